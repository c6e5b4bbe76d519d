/**
 * bench-scale: the driver and servers at scale. Prints figures; asserts nothing.
 *
 *   bun scripts/bench-scale.ts inflight [n=8192]    n rollouts in flight end to end (gym env start:
 *                                                   example_single_tool_call + simple_agent + openai_model)
 *                                                   against an endpoint with 1 s latency; RSS per process
 *   bun scripts/bench-scale.ts rs [n=16384]         n concurrent requests at one resources server
 *   bun scripts/bench-scale.ts million [n=1000000]  n input rows, retain_results_in_memory=false, against a
 *                                                   trivial environment server in its own process; driver RSS
 *                                                   sampled over the run (flat, target ≤ 300 MB)
 *
 * The machine's open-file hard limit is 20,000; the fd-budget warning is printed before a run that exceeds it.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { fdBudgetWarning } from "../src/rollout/capacity.ts";
import { rolloutConfigFrom } from "../src/rollout/config.ts";
import { runRollouts } from "../src/rollout/driver.ts";
import { targetsFromConfig } from "../src/rollout/targets.ts";
import { cpuSeconds, freePort, rssMb, spawnLine } from "./_bench-proc.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const ROW = { responses_create_params: { input: [{ role: "user", content: "What's the weather like in San Francisco right now?" }], tools: [{ type: "function", name: "get_weather", description: "Get the weather.", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false }, strict: true }] } };



function fdCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

function childPids(pid: number): number[] {
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    return kids.flatMap((k) => [k, ...childPids(k)]);
  } catch {
    return [];
  }
}

function cmdline(pid: number): string {
  try {
    const instance = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").find((e) => e.startsWith("NEMO_GYM_CONFIG_PATH="));
    if (instance) return `server ${instance.slice("NEMO_GYM_CONFIG_PATH=".length)}`;
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).slice(1, 6).join(" ");
  } catch {
    return "?";
  }
}



// ---------------------------------------------------------------- helper processes
async function helper(kind: string, args: string[]): Promise<void> {
  if (kind === "delay-proxy") {
    // The 1 s-latency OpenAI-compatible endpoint: wait, then forward to the zero-latency scripted_model.
    const [target, ms] = [args[0]!, Number(args[1] ?? 1000)];
    const s = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      async fetch(req) {
        const body = await req.text();
        await Bun.sleep(ms);
        const url = new URL(req.url);
        const res = await fetch(`${target}${url.pathname}`, { method: req.method, body: req.method === "GET" ? undefined : body, headers: { "content-type": "application/json" } });
        return new Response(await res.text(), { status: res.status, headers: { "content-type": "application/json" } });
      },
    });
    process.stdout.write(`http://127.0.0.1:${s.port}\n`);
  } else if (kind === "trivial-env") {
    // An environment server that answers /run at once with a rewarded record.
    const s = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      async fetch(req) {
        const row = (await req.json()) as Record<string, unknown>;
        return Response.json({ ...row, response: { output: [], usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } }, reward: Number(row._ng_task_index) % 2 });
      },
    });
    process.stdout.write(`${s.port}\n`);
  }
}

// ---------------------------------------------------------------- scenarios
async function inflight(n: number): Promise<void> {
  const warn = fdBudgetWarning(n);
  if (warn) console.log(`warning before the run: ${warn}`);
  const work = mkdtempSync(join(tmpdir(), "gym-bench-scale-"));
  const procs: ReturnType<typeof Bun.spawn>[] = [];
  try {
    const endpoint = await spawnLine([process.execPath, MAIN, "model", "serve", "scripted_model", "--port", "0"]);
    procs.push(endpoint.proc);
    const slow = await spawnLine([process.execPath, import.meta.path, "--helper", "delay-proxy", endpoint.line.replace(/\/v1\/?$/, ""), "1000"]);
    procs.push(slow.proc);
    const headPort = await freePort();
    const start = Bun.spawn(
      [process.execPath, MAIN, "env", "start", "--resources-server", "example_single_tool_call", "--model-type", "openai_model", `+policy_base_url=${slow.line}/v1`,
        "+policy_api_key=dummy", "+policy_model_name=scripted", `+head_server={host: 127.0.0.1, port: ${headPort}}`, "+global_aiohttp_connector_limit_per_host=0"],
      { stdout: "ignore", stderr: "inherit", cwd: work },
    );
    procs.push(start);
    let dict: Record<string, unknown> | undefined;
    for (let i = 0; i < 600 && !dict; i++) {
      await Bun.sleep(100);
      if (await fetch(`http://127.0.0.1:${headPort}/readyz`).then((r) => r.ok).catch(() => false)) {
        dict = parseYaml(JSON.parse(await (await fetch(`http://127.0.0.1:${headPort}/global_config_dict_yaml`)).text())) as Record<string, unknown>;
      }
    }
    if (!dict) throw new Error("gym env start did not become ready");
    const input = join(work, "in.jsonl");
    writeFileSync(input, Array.from({ length: n }, (_, i) => JSON.stringify({ ...ROW, id: i, agent_ref: { name: "example_single_tool_call_simple_agent" } })).join("\n") + "\n");
    const peaks = new Map<number, number>();
    const fds = new Map<number, number>();
    const cpu0 = new Map<number, number>();
    const cpu1 = new Map<number, number>();
    for (const pid of [process.pid, ...childPids(process.pid)]) cpu0.set(pid, cpuSeconds(pid));
    const sampler = setInterval(() => {
      for (const pid of [process.pid, ...childPids(process.pid)]) {
        peaks.set(pid, Math.max(peaks.get(pid) ?? 0, rssMb(pid)));
        fds.set(pid, Math.max(fds.get(pid) ?? 0, fdCount(pid)));
        cpu1.set(pid, cpuSeconds(pid));
      }
    }, 250);
    const t0 = performance.now();
    const s = await runRollouts(
      rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(work, "out.jsonl"), num_samples_in_parallel: n, disable_aggregation: true, request_retry_budget_seconds: 30 }),
      { targets: targetsFromConfig(dict) },
    );
    const sec = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    console.log(`${n} rollouts, ${n} in flight, 2 model calls each at 1 s latency: ${s.newlyDone} ok, ${s.failed} failed in ${sec.toFixed(1)} s (${(s.newlyDone / sec).toFixed(0)} rollouts/s)`);
    console.log(`failures by type: ${JSON.stringify(s.failuresByCategory)}`);
    for (const pid of cpu1.keys()) cpu1.set(pid, cpuSeconds(pid) || (cpu1.get(pid) ?? 0));
    console.log("peak RSS, peak open files and CPU seconds during the run, per process:");
    for (const [pid, mb] of peaks) {
      const cpu = (cpu1.get(pid) ?? 0) - (cpu0.get(pid) ?? 0);
      console.log(`  ${String(pid).padStart(7)} ${mb.toFixed(0).padStart(6)} MB ${String(fds.get(pid) ?? 0).padStart(6)} fds ${cpu.toFixed(1).padStart(6)} s CPU  ${pid === process.pid ? "driver (this bench)" : cmdline(pid)}`);
    }
    start.kill("SIGINT");
    await start.exited;
  } finally {
    for (const p of procs) if (p.exitCode === null) p.kill();
    rmSync(work, { recursive: true, force: true });
  }
}

async function rs(n: number): Promise<void> {
  // No relay here: the server holds one inbound socket per request (n < the 20,000 fd limit).
  const work = mkdtempSync(join(tmpdir(), "gym-bench-rs-"));
  const headPort = await freePort();
  const start = Bun.spawn(
    [process.execPath, MAIN, "env", "start", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", `+head_server={host: 127.0.0.1, port: ${headPort}}`],
    { stdout: "ignore", stderr: "inherit", cwd: work },
  );
  try {
    let dict: Record<string, unknown> | undefined;
    for (let i = 0; i < 600 && !dict; i++) {
      await Bun.sleep(100);
      if (await fetch(`http://127.0.0.1:${headPort}/readyz`).then((r) => r.ok).catch(() => false)) {
        dict = parseYaml(JSON.parse(await (await fetch(`http://127.0.0.1:${headPort}/global_config_dict_yaml`)).text())) as Record<string, unknown>;
      }
    }
    if (!dict) throw new Error("gym env start did not become ready");
    const leaf = ((dict.example_single_tool_call as Record<string, Record<string, Record<string, unknown>>>).resources_servers!).example_single_tool_call!;
    const url = `http://127.0.0.1:${leaf.port}`;
    const rsPid = childPids(process.pid).find((p) => cmdline(p) === "server example_single_tool_call") ?? 0;
    const body = JSON.stringify({ ...ROW, response: { id: "r", output: [{ type: "function_call", name: "get_weather", arguments: "{}", call_id: "c" }] } });
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(rsPid))), 100);
    const t0 = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: n }, (_, i) =>
        fetch(`${url}/${i % 2 ? "verify" : "get_weather"}`, { method: "POST", body: i % 2 ? body : '{"city":"SF"}', headers: { "content-type": "application/json" } }).then(async (r) => {
          await r.text();
          if (!r.ok) throw new Error(`HTTP ${r.status}`);
        }),
      ),
    );
    const sec = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const errors = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
    console.log(`${n} concurrent requests at one resources server (${url}): ${n - errors.length} ok, ${errors.length} errors in ${sec.toFixed(2)} s (${((n - errors.length) / sec).toFixed(0)} req/s)`);
    if (errors.length > 0) console.log(`first error: ${String(errors[0]!.reason)}`);
    console.log(`resources server peak RSS: ${peak.toFixed(0)} MB (pid ${rsPid}); client (this bench) RSS: ${rssMb(process.pid).toFixed(0)} MB`);
  } finally {
    start.kill("SIGINT");
    await start.exited;
    rmSync(work, { recursive: true, force: true });
  }
}

async function million(n: number): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "gym-bench-million-"));
  const env = await spawnLine([process.execPath, import.meta.path, "--helper", "trivial-env"]);
  try {
    const input = join(work, "in.jsonl");
    // Written in chunks so the bench's own buffers do not count against the driver's RSS.
    writeFileSync(input, "");
    for (let i = 0; i < n; i += 10_000) {
      let chunk = "";
      for (let j = i; j < Math.min(n, i + 10_000); j++) chunk += `${JSON.stringify({ responses_create_params: { input: `question ${j}` }, id: j, agent_ref: { name: "a" } })}\n`;
      appendFileSync(input, chunk);
    }
    Bun.gc(true);
    const dict = {
      a: { responses_api_agents: { simple_agent: { host: "127.0.0.1", port: 1 } } },
      a_env: { environment_servers: { legacy_agent: { host: "127.0.0.1", port: Number(env.line), agent_server: { type: "responses_api_agents", name: "a" } } } },
    };
    const samples: [number, number][] = [];
    const t0 = performance.now();
    const sampler = setInterval(() => samples.push([(performance.now() - t0) / 1000, rssMb(process.pid)]), 250);
    const s = await runRollouts(
      rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(work, "out.jsonl"), num_samples_in_parallel: 256, retain_results_in_memory: false, disable_aggregation: true }),
      { targets: targetsFromConfig(dict) },
    );
    clearInterval(sampler);
    const sec = (performance.now() - t0) / 1000;
    const rss = samples.map(([, m]) => m);
    const step = Math.max(1, Math.floor(samples.length / 12));
    console.log(`${n} rows, retain_results_in_memory=false: ${s.newlyDone} ok, ${s.failed} failed in ${sec.toFixed(0)} s (${(s.newlyDone / sec).toFixed(0)} rollouts/s)`);
    console.log(`driver RSS (MB) over time: ${samples.filter((_, i) => i % step === 0).map(([t, m]) => `${t.toFixed(0)}s:${m.toFixed(0)}`).join("  ")}`);
    console.log(`driver RSS min ${Math.min(...rss).toFixed(0)} MB, max ${Math.max(...rss).toFixed(0)} MB, last ${rss.at(-1)?.toFixed(0)} MB (target ≤ 300 MB)`);
  } finally {
    env.proc.kill();
    rmSync(work, { recursive: true, force: true });
  }
}

const [cmd, arg] = [process.argv[2], process.argv[3]];
if (cmd === "--helper") await helper(process.argv[3]!, process.argv.slice(4));
else if (!process.env.BUN_CONFIG_MAX_HTTP_REQUESTS) {
  // D16: Bun caps outbound fetch at 256 unless this is set at start; re-run with it.
  const p = Bun.spawn([process.execPath, import.meta.path, ...process.argv.slice(2)], { env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: "65535" }, stdio: ["inherit", "inherit", "inherit"] });
  process.exit(await p.exited);
} else if (cmd === "inflight") await inflight(Number(arg ?? 8192));
else if (cmd === "rs") await rs(Number(arg ?? 16384));
else if (cmd === "million") await million(Number(arg ?? 1_000_000));
else {
  console.error("usage: bun scripts/bench-scale.ts inflight [n] | rs [n] | million [n]");
  process.exit(2);
}
