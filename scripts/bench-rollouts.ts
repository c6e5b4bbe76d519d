/**
 * bench-rollouts: end-to-end rollouts/s of gym (`gym env start` with example_single_tool_call +
 * simple_agent + openai_model proxying a zero-latency OpenAI-compatible endpoint, driven by the
 * rollout driver with 256 in flight) against a minimal bare Bun.serve/fetch implementation of the
 * same hop path (env → agent → seed / agent's self-call to /v1/responses (model→endpoint, tool,
 * model→endpoint) / verify), one process per
 * server in both cases, measured in the same run. Prints figures and the ratio (target ≥ 85 %).
 *
 *   bun scripts/bench-rollouts.ts [rollouts=2000] [inFlight=256] [hops]
 *
 * Both stacks first run WARM rollouts (env, default 1000) at full concurrency, untimed; then
 * ROUNDS (env, default 3) alternating measured runs of each, reported per round and as medians.
 *
 * With `hops`, each gym server is also hit directly (256 in flight) to show where time goes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { rolloutConfigFrom } from "../src/rollout/config.ts";
import { runRollouts } from "../src/rollout/driver.ts";
import { targetsFromConfig } from "../src/rollout/targets.ts";
import { cpuSeconds, freePort, rssMb, spawnLine } from "./_bench-proc.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const EXAMPLE_ROWS = join(import.meta.dir, "..", "assets", "resources_servers", "example_single_tool_call", "data", "example.jsonl");

// ---------------------------------------------------------------- baseline server roles
async function role(kind: string, targets: string[]): Promise<void> {
  let self = "";
  const post = async (url: string, body: unknown) => (await fetch(url, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } })).json() as Promise<Record<string, unknown>>;
  const handlers: Record<string, (path: string, body: Record<string, unknown>) => Promise<unknown>> = {
    // environment server: relay /run to the agent
    env: (_p, body) => post(`${targets[0]}/run`, body),
    // model server: proxy /v1/responses to the endpoint
    model: (_p, body) => post(`${targets[0]}/v1/responses`, body),
    // resources server: seed, the tool, verify
    rs: async (p, body) => {
      if (p === "/seed_session") return {};
      if (p === "/get_weather") return { city: body.city, weather_description: `The weather in ${String(body.city)} is cold.` };
      const output = ((body.response as { output?: Record<string, unknown>[] }).output ?? []) as Record<string, unknown>[];
      return { ...body, reward: output.some((o) => o.type === "function_call") ? 1 : 0 };
    },
    // agent: /run = seed → POST self /v1/responses (model → tool → model) → verify. The self-call is
    // upstream's hop path (runtime §6.2, §8.1), so the baseline makes it too.
    agent: async (p, row) => {
      const [rs, model] = targets as [string, string];
      if (p === "/run") {
        await post(`${rs}/seed_session`, row);
        const response = await post(`${self}/v1/responses`, row);
        return post(`${rs}/verify`, { ...row, response });
      }
      const rcp = row.responses_create_params as Record<string, unknown>;
      const input = [...(rcp.input as unknown[])];
      const outputs: Record<string, unknown>[] = [];
      let last: Record<string, unknown> = {};
      for (let turn = 0; turn < 4; turn++) {
        last = await post(`${model}/v1/responses`, { ...rcp, input: [...input, ...outputs] });
        const out = (last.output as Record<string, unknown>[]) ?? [];
        outputs.push(...out);
        const calls = out.filter((o) => o.type === "function_call");
        if (calls.length === 0) break;
        for (const c of calls) {
          const result = await post(`${rs}/${c.name}`, JSON.parse(String(c.arguments)));
          outputs.push({ type: "function_call_output", call_id: c.call_id, output: JSON.stringify(result) });
        }
      }
      return { ...last, output: outputs };
    },
  };
  const h = handlers[kind]!;
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: async (req) => Response.json(await h(new URL(req.url).pathname, (await req.json()) as Record<string, unknown>)) });
  self = `http://127.0.0.1:${server.port}`;
  process.stdout.write(`${server.port}\n`);
}

// ---------------------------------------------------------------- helpers




function descendants(pid: number): number[] {
  try {
    const kids = (require("node:fs").readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8") as string).trim().split(/\s+/).filter(Boolean).map(Number);
    return kids.flatMap((k) => [k, ...descendants(k)]);
  } catch {
    return [];
  }
}

function label(pid: number): string {
  try {
    const env = (require("node:fs").readFileSync(`/proc/${pid}/environ`, "utf8") as string).split("\0").find((e) => e.startsWith("NEMO_GYM_CONFIG_PATH="));
    if (env) return env.slice("NEMO_GYM_CONFIG_PATH=".length);
    const argv = (require("node:fs").readFileSync(`/proc/${pid}/cmdline`, "utf8") as string).split("\0").filter(Boolean);
    const role = argv.indexOf("--role");
    return role >= 0 ? `bare ${argv[role + 1]}` : argv.slice(1, 5).join(" ").replace(/^.*\/(src|scripts)\//, "");
  } catch {
    return "?";
  }
}

/** CPU seconds per process (this process = the driver) over `fn`, as lines of ms per rollout. */
async function cpuOver<T>(pids: number[] | (() => number[]), n: number, fn: () => Promise<T>): Promise<{ value: T; lines: string[]; total: number }> {
  const all = () => [process.pid, ...(typeof pids === "function" ? pids() : pids)];
  const before = new Map(all().map((p) => [p, cpuSeconds(p)]));
  const value = await fn();
  const lines: string[] = [];
  let total = 0;
  for (const p of all()) {
    const d = cpuSeconds(p) - (before.get(p) ?? 0);
    total += d;
    if (d > 0.005) lines.push(`    ${(p === process.pid ? "driver (this bench)" : label(p)).padEnd(56)} ${((1000 * d) / n).toFixed(3).padStart(7)} ms CPU/rollout  RSS ${rssMb(p).toFixed(0).padStart(4)} MB`);
  }
  return { value, lines, total };
}

async function bareDriver(url: string, rows: Record<string, unknown>[], inFlight: number): Promise<number> {
  let next = 0;
  let ok = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++]!;
      const r = (await (await fetch(url, { method: "POST", body: JSON.stringify(row), headers: { "content-type": "application/json" } })).json()) as { reward?: number };
      if (typeof r.reward === "number") ok++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return ok;
}

// ---------------------------------------------------------------- main
function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 2000);
  const inFlight = Number(process.argv[3] ?? 256);
  const warmRows = Math.min(total, Number(process.env.WARM ?? 1000));
  const rounds = Math.max(1, Number(process.env.ROUNDS ?? 3));
  const work = mkdtempSync(join(tmpdir(), "gym-bench-rollouts-"));
  const procs: ReturnType<typeof Bun.spawn>[] = [];
  try {
    const base = (await Bun.file(EXAMPLE_ROWS).text()).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    const rows = Array.from({ length: total }, (_, i) => ({ ...base[i % base.length]!, id: i }));
    const endpoint = await spawnLine([process.execPath, MAIN, "model", "serve", "scripted_model", "--port", "0"], { stderr: "ignore" });
    procs.push(endpoint.proc);
    const endpointUrl = endpoint.line.replace(/\/v1\/?$/, "");
    console.log(`endpoint (zero-latency scripted_model): ${endpointUrl}`);

    // --- bare baseline: one process per hop server
    const self = [process.execPath, import.meta.path, "--role"];
    const model = await spawnLine([...self, "model", endpointUrl], { stderr: "ignore" });
    const rs = await spawnLine([...self, "rs"], { stderr: "ignore" });
    const agent = await spawnLine([...self, "agent", `http://127.0.0.1:${rs.line}`, `http://127.0.0.1:${model.line}`], { stderr: "ignore" });
    const env = await spawnLine([...self, "env", `http://127.0.0.1:${agent.line}`], { stderr: "ignore" });
    procs.push(model.proc, rs.proc, agent.proc, env.proc);
    const barePids = [endpoint.proc.pid, model.proc.pid, rs.proc.pid, agent.proc.pid, env.proc.pid];
    const bareUrl = `http://127.0.0.1:${env.line}/run`;

    // --- gym: env start + the rollout driver (both stacks stay up; an idle stack costs nothing)
    const headPort = await freePort();
    const start = Bun.spawn(
      [process.execPath, MAIN, "env", "start", "--resources-server", "example_single_tool_call", "--model-type", "openai_model",
        `+policy_base_url=${endpointUrl}/v1`, "+policy_api_key=dummy", "+policy_model_name=scripted", `+head_server={host: 127.0.0.1, port: ${headPort}}`],
      { stdout: "ignore", stderr: "ignore", cwd: work },
    );
    procs.push(start);
    let dict: Record<string, unknown> | undefined;
    for (let i = 0; i < 600 && !dict; i++) {
      await Bun.sleep(100);
      const ready = await fetch(`http://127.0.0.1:${headPort}/readyz`).then((r) => r.ok).catch(() => false);
      if (ready) dict = parseYaml(JSON.parse(await (await fetch(`http://127.0.0.1:${headPort}/global_config_dict_yaml`)).text())) as Record<string, unknown>;
    }
    if (!dict) throw new Error("gym env start did not become ready");
    const gymPids = () => [endpoint.proc.pid, ...descendants(start.pid)];
    const input = join(work, "in.jsonl");
    writeFileSync(input, rows.map((r) => JSON.stringify({ ...r, agent_ref: { name: "example_single_tool_call_simple_agent" } })).join("\n") + "\n");
    const warm = join(work, "warm.jsonl");
    writeFileSync(warm, rows.slice(0, warmRows).map((r) => JSON.stringify({ ...r, agent_ref: { name: "example_single_tool_call_simple_agent" } })).join("\n") + "\n");
    const targets = targetsFromConfig(dict);
    const gymRun = (inPath: string, outName: string) =>
      runRollouts(rolloutConfigFrom({ input_jsonl_fpath: inPath, output_jsonl_fpath: join(work, outName), num_samples_in_parallel: inFlight, disable_aggregation: true }), { targets });

    // Warm-up, the same for both stacks: WARM rollouts at full concurrency, untimed, so both are
    // measured at steady state (their hot paths compiled) rather than partly while warming up.
    await bareDriver(bareUrl, rows.slice(0, warmRows), inFlight);
    await gymRun(warm, "warm-out.jsonl");

    // Alternating measured rounds (the machine is shared: one pair can land in a noisy moment).
    type Round = { bareRate: number; gymRate: number; bareCpu: Awaited<ReturnType<typeof cpuOver<number>>>; gymCpu: Awaited<ReturnType<typeof cpuOver<unknown>>>; failed: number };
    const results: Round[] = [];
    for (let r = 0; r < rounds; r++) {
      let t0 = performance.now();
      const bareCpu = await cpuOver(() => barePids, total, () => bareDriver(bareUrl, rows, inFlight));
      const bareRate = bareCpu.value / ((performance.now() - t0) / 1000);
      t0 = performance.now();
      const gymCpu = await cpuOver(gymPids, total, () => gymRun(input, `out-${r}.jsonl`));
      const summary = gymCpu.value as Awaited<ReturnType<typeof runRollouts>>;
      const gymRate = summary.newlyDone / ((performance.now() - t0) / 1000);
      results.push({ bareRate, gymRate, bareCpu, gymCpu, failed: summary.failed });
      console.log(`round ${r + 1}: bare ${bareRate.toFixed(0)} rollouts/s (${((1000 * bareCpu.total) / total).toFixed(2)} ms CPU each), gym ${gymRate.toFixed(0)} rollouts/s (${((1000 * gymCpu.total) / total).toFixed(2)} ms CPU each, ${summary.failed} failed): ${((100 * gymRate) / bareRate).toFixed(1)} %`);
    }
    const driverRss = rssMb(process.pid);

    // The driver alone: gym's driver against the bare servers (isolates driver overhead from server overhead).
    const bareDict = {
      a: { responses_api_agents: { simple_agent: { host: "127.0.0.1", port: 1 } } },
      a_env: { environment_servers: { legacy_agent: { host: "127.0.0.1", port: Number(env.line), agent_server: { type: "responses_api_agents", name: "a" } } } },
    };
    const bareInput = join(work, "bare-in.jsonl");
    writeFileSync(bareInput, rows.map((r) => JSON.stringify({ ...r, agent_ref: { name: "a" } })).join("\n") + "\n");
    let t0 = performance.now();
    const viaDriver = await runRollouts(rolloutConfigFrom({ input_jsonl_fpath: bareInput, output_jsonl_fpath: join(work, "bare-out.jsonl"), num_samples_in_parallel: inFlight, disable_aggregation: true }), { targets: targetsFromConfig(bareDict) });
    const driverOnBareSec = (performance.now() - t0) / 1000;
    t0 = performance.now();
    await bareDriver(bareUrl, rows, inFlight);
    const bareAgainSec = (performance.now() - t0) / 1000;

    const hopLines: string[] = [];
    if (process.argv[4] === "hops") {
      const port = (name: string) => (Object.values(Object.values(dict[name] as Record<string, unknown>)[0] as Record<string, unknown>)[0] as { port: number }).port;
      const hammer = async (label: string, url: string, body: unknown) => {
        const b = JSON.stringify(body);
        let next = 0;
        let errors = 0;
        const t = performance.now();
        await Promise.all(Array.from({ length: inFlight }, async () => {
          while (next++ < total) {
            const r = await fetch(url, { method: "POST", body: b, headers: { "content-type": "application/json" } });
            await r.text();
            if (!r.ok) errors++;
          }
        }));
        hopLines.push(`  ${label.padEnd(44)} ${(total / ((performance.now() - t) / 1000)).toFixed(0).padStart(6)} req/s${errors ? `  (${errors} errors)` : ""}`);
      };
      const row = base[0]!;
      const rsUrl = `http://127.0.0.1:${port("example_single_tool_call")}`;
      await hammer("endpoint (scripted_model) /v1/responses", `${endpointUrl}/v1/responses`, row.responses_create_params);
      await hammer("policy_model (openai_model) /v1/responses", `http://127.0.0.1:${port("policy_model")}/v1/responses`, row.responses_create_params);
      await hammer("resources server /seed_session", `${rsUrl}/seed_session`, row);
      await hammer("resources server /get_weather", `${rsUrl}/get_weather`, { city: "SF" });
      await hammer("agent (simple_agent) /run", `http://127.0.0.1:${port("example_single_tool_call_simple_agent")}/run`, row);
      await hammer("environment server (legacy_agent) /run", `http://127.0.0.1:${port("example_single_tool_call_simple_agent__legacy_agent")}/run`, row);
    }
    start.kill("SIGINT");
    await start.exited;

    const ratios = results.map((x) => (100 * x.gymRate) / x.bareRate);
    const cpuRatios = results.map((x) => (100 * x.bareCpu.total) / x.gymCpu.total);
    const mid = results.map((x, i) => [cpuRatios[i]!, x] as const).sort((p, q) => p[0] - q[0])[Math.floor((results.length - 1) / 2)]![1];
    console.log(`rollouts: ${total} per run, in flight: ${inFlight}, warm-up ${warmRows} per stack, ${rounds} alternating rounds`);
    console.log(`bare Bun.serve/fetch hop path: median ${median(results.map((x) => x.bareRate)).toFixed(1)} rollouts/s`);
    console.log(`gym (env start + driver):      median ${median(results.map((x) => x.gymRate)).toFixed(1)} rollouts/s, ${results.reduce((n, x) => n + x.failed, 0)} failed (bench process RSS ${driverRss.toFixed(0)} MB)`);
    console.log(`gym driver on the bare servers: ${viaDriver.newlyDone} ok in ${driverOnBareSec.toFixed(2)} s vs the bare driver ${bareAgainSec.toFixed(2)} s (driver alone: ${((100 * bareAgainSec) / driverOnBareSec).toFixed(1)} % of the bare driver's rate)`);
    console.log(`ratio gym / bare, rollouts/s: median ${median(ratios).toFixed(1)} % (rounds: ${ratios.map((x) => x.toFixed(1)).join(", ")}) (target ≥ 85 %)`);
    console.log(`ratio bare / gym, CPU per rollout: median ${median(cpuRatios).toFixed(1)} % (rounds: ${cpuRatios.map((x) => x.toFixed(1)).join(", ")})`);
    console.log(`CPU per rollout in the median round, bare (total ${((1000 * mid.bareCpu.total) / total).toFixed(2)} ms):\n${mid.bareCpu.lines.join("\n")}`);
    console.log(`CPU per rollout in the median round, gym (total ${((1000 * mid.gymCpu.total) / total).toFixed(2)} ms):\n${mid.gymCpu.lines.join("\n")}`);
    if (hopLines.length > 0) console.log(`gym servers hit directly (${inFlight} in flight):\n${hopLines.join("\n")}`);
  } finally {
    for (const p of procs) if (p.exitCode === null) p.kill();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--role") await role(process.argv[3]!, process.argv.slice(4));
else if (!process.env.BUN_CONFIG_MAX_HTTP_REQUESTS) {
  // D16: Bun caps outbound fetch at 256 unless this is set at start; re-run with it.
  const p = Bun.spawn([process.execPath, import.meta.path, ...process.argv.slice(2)], { env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: "65535" }, stdio: ["inherit", "inherit", "inherit"] });
  process.exit(await p.exited);
} else await main();
