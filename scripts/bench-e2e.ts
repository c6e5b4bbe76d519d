/**
 * bench-e2e (issue 19): end-to-end rollouts/s of three stacks doing the same hops, each timed as a
 * whole command (start-up, reading the input, writing results and, for gym, materialisation,
 * journal and aggregation included), in alternating rounds:
 *
 *   gym      `gym env start` (example_single_tool_call + simple_agent + openai_model), then the whole
 *            `gym eval run --no-serve` command — the BUILT BINARY (dist/gym, built first) unless
 *            GYM_FROM_SOURCE=1 (then `bun src/main.ts`)
 *   bare     Bun.serve + fetch servers (scripts/_bench-bare.ts) and a bare driver process
 *   fastapi  upstream's path replicated with FastAPI + uvicorn(uvloop, httptools) + aiohttp
 *            (scripts/bench-fastapi/replica.py, servers and driver, on /usr/bin/python3)
 *
 * Each rollout: driver → env /run → agent /run: seed → agent's own /v1/responses (model → endpoint,
 * get_weather, model → endpoint) → verify; every stack calls the same 0 ms mock endpoint.
 * Prints medians of rollouts/s, both ratios (targets: gym ≥ 0.85 × bare, ≥ 6 × fastapi), CPU per
 * rollout per process, and the help/version CPU ratio (bench-help.ts).
 *
 *   nice -n -15 bun scripts/bench-e2e.ts [rollouts=4000] [inFlight=256]
 *   env: ROUNDS (5), FASTAPI_ROLLOUTS (rollouts/2), WARM (rollouts), WARM_RUNS (2), NO_FASTAPI=1, NO_HELP=1,
 *        GYM_BASELINE_BIN=path (a second gym binary, e.g. built from main, run as a fourth stack: before/after)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bareRole } from "./_bench-bare.ts";
import { autogroupLine, cpuSeconds, descendants, freePort, inOwnNicedGroup, loadAverage, median, processLabel, rssMb, spawnLine } from "./_bench-proc.ts";
import { buildGym, helpCpu } from "./bench-help.ts";

const ROOT = resolve(import.meta.dir, "..");
const REPLICA = join(import.meta.dir, "bench-fastapi", "replica.py");
const PYTHON = "/usr/bin/python3";
const EXAMPLE_ROWS = join(ROOT, "assets", "resources_servers", "example_single_tool_call", "data", "example.jsonl");
const AGENT = "example_single_tool_call_simple_agent";

type Proc = ReturnType<typeof Bun.spawn>;

interface RunResult {
  rate: number;
  ok: number;
  seconds: number;
  /** ms of CPU per rollout per process label (the driver command included). */
  cpu: Map<string, number>;
  cpuTotal: number;
  rss: Map<string, number>;
  stdout: string;
}

/** Time one whole driver command while reading the CPU of the stack's server processes. */
async function timed(argv: string[], n: number, servers: () => number[], env: Record<string, string> = {}, parseOk: (stdout: string) => number): Promise<RunResult> {
  const pids = servers();
  const before = new Map(pids.map((p) => [p, cpuSeconds(p)]));
  const t0 = performance.now();
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } as Record<string, string> });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`${argv.slice(0, 4).join(" ")} exited ${code}:\n${stderr.slice(-2000)}`);
  const cpu = new Map<string, number>();
  const rss = new Map<string, number>();
  const u = proc.resourceUsage()!;
  const driverCpu = Number(u.cpuTime.user + u.cpuTime.system) / 1e6;
  cpu.set("driver command", (1000 * driverCpu) / n);
  rss.set("driver command", u.maxRSS / (1024 * 1024));
  let total = driverCpu;
  for (const p of pids) {
    const d = cpuSeconds(p) - (before.get(p) ?? 0);
    total += d;
    const label = processLabel(p);
    cpu.set(label, (cpu.get(label) ?? 0) + (1000 * d) / n);
    rss.set(label, rssMb(p));
  }
  const ok = parseOk(stdout);
  return { rate: n / seconds, ok, seconds, cpu, cpuTotal: (1000 * total) / n, rss, stdout };
}

function rowsFile(path: string, base: Record<string, unknown>[], n: number): void {
  writeFileSync(path, Array.from({ length: n }, (_, i) => JSON.stringify({ ...base[i % base.length]!, agent_ref: { name: AGENT } })).join("\n") + "\n");
}

async function waitHttp(url: string, seconds = 60): Promise<void> {
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not answer within ${seconds} s`);
}

async function main(): Promise<void> {
  // 4,000 rollouts at 256 in flight: the issue's measurement.
  const n = Number(process.argv[2] ?? 4000);
  const inFlight = Number(process.argv[3] ?? 256);
  const rounds = Math.max(1, Number(process.env.ROUNDS ?? 5));
  const nFast = Number(process.env.FASTAPI_ROLLOUTS ?? Math.round(n / 2));
  // Long-running servers are measured at steady state: JSC tiers hot code up over thousands of
  // calls (gym's servers, with more code on the path, took ~3 runs of 4,000 to settle, the bare
  // ones less). CPython has no JIT: one short run warms the replica's connections.
  const warmN = Number(process.env.WARM ?? n);
  const warmRuns = Math.max(1, Number(process.env.WARM_RUNS ?? 2));
  const withFastapi = process.env.NO_FASTAPI !== "1";
  const fromSource = process.env.GYM_FROM_SOURCE === "1";
  const gym = fromSource ? [process.execPath, join(ROOT, "src", "main.ts")] : [buildGym()];
  const work = mkdtempSync(join(tmpdir(), "gym-bench-e2e-"));
  const procs: Proc[] = [];
  const self = [process.execPath, import.meta.path, "--role"];
  const maxReq = { BUN_CONFIG_MAX_HTTP_REQUESTS: "65535" };
  try {
    console.log(`load average at start: ${loadAverage()}; scheduling group ${autogroupLine()}; gym = ${fromSource ? "bun src/main.ts" : "dist/gym (built binary)"}`);
    const base = (await Bun.file(EXAMPLE_ROWS).text()).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    const input = join(work, "in.jsonl");
    const inputFast = join(work, "in-fast.jsonl");
    const warm = join(work, "warm.jsonl");
    rowsFile(input, base, n);
    rowsFile(inputFast, base, nFast);
    rowsFile(warm, base, warmN);
    const warmFast = join(work, "warm-fast-in.jsonl");
    rowsFile(warmFast, base, Math.min(400, nFast));

    const endpoint = await spawnLine([...self, "endpoint"], { stderr: "ignore" });
    procs.push(endpoint.proc);
    const endpointUrl = `http://127.0.0.1:${endpoint.line}`;

    // --- bare
    const model = await spawnLine([...self, "model", endpointUrl], { stderr: "ignore", env: maxReq });
    const rs = await spawnLine([...self, "rs"], { stderr: "ignore", env: maxReq });
    const agent = await spawnLine([...self, "agent", `http://127.0.0.1:${rs.line}`, `http://127.0.0.1:${model.line}`], { stderr: "ignore", env: maxReq });
    const env = await spawnLine([...self, "env", `http://127.0.0.1:${agent.line}`], { stderr: "ignore", env: maxReq });
    procs.push(model.proc, rs.proc, agent.proc, env.proc);
    const barePids = [endpoint.proc.pid, model.proc.pid, rs.proc.pid, agent.proc.pid, env.proc.pid];
    const bareRun = (inPath: string, out: string, count: number) =>
      timed([...self, "driver", `http://127.0.0.1:${env.line}/run`, inPath, out, String(inFlight)], count, () => barePids, maxReq, (s) => Number(s.trim()));

    // --- gym (and, with GYM_BASELINE_BIN, a second gym binary, e.g. built from main, as "before")
    const startGym = async (bin: string[]) => {
      const headPort = await freePort();
      const head = `+head_server={host: 127.0.0.1, port: ${headPort}}`;
      const start = Bun.spawn(
        [...bin, "env", "start", "--resources-server", "example_single_tool_call", "--model-type", "openai_model", `+policy_base_url=${endpointUrl}/v1`, "+policy_api_key=dummy", "+policy_model_name=bench", head],
        { stdout: "ignore", stderr: "ignore", cwd: work },
      );
      procs.push(start);
      await waitHttp(`http://127.0.0.1:${headPort}/readyz`, 120);
      const pids = () => [endpoint.proc.pid, ...descendants(start.pid)];
      const run = (inPath: string, out: string, count: number) =>
        timed([...bin, "eval", "run", "--no-serve", "-i", inPath, "-o", out, "--concurrency", String(inFlight), head], count, pids, {}, () => {
          const lines = require("node:fs").readFileSync(out, "utf8").split("\n").filter((l: string) => l.includes('"reward"'));
          return lines.length;
        });
      return { start, run };
    };
    const gymStack = await startGym(gym);
    const gymRun = gymStack.run;
    const baselineBin = process.env.GYM_BASELINE_BIN;
    const baseline = baselineBin ? await startGym([baselineBin]) : undefined;

    // --- fastapi replica
    let fastRun: ((inPath: string, out: string, count: number) => Promise<RunResult>) | undefined;
    let fastPids: number[] = [];
    if (withFastapi) {
      const ports = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
      const [pModel, pRs, pAgent, pEnv] = ports as [number, number, number, number];
      const serve = (role: string, port: number, ...targets: string[]) => Bun.spawn([PYTHON, REPLICA, "serve", role, String(port), ...targets], { stdout: "ignore", stderr: Bun.file(join(work, `fastapi-${role}.log`)) });
      const fm = serve("model", pModel, endpointUrl);
      const fr = serve("rs", pRs);
      const fa = serve("agent", pAgent, `http://127.0.0.1:${pRs}`, `http://127.0.0.1:${pModel}`);
      const fe = serve("env", pEnv, `http://127.0.0.1:${pAgent}`);
      procs.push(fm, fr, fa, fe);
      for (const p of ports) await waitHttp(`http://127.0.0.1:${p}/health`, 60);
      fastPids = [endpoint.proc.pid, fm.pid, fr.pid, fa.pid, fe.pid];
      fastRun = (inPath, out, count) => timed([PYTHON, REPLICA, "drive", `http://127.0.0.1:${pEnv}/run`, inPath, out, String(inFlight)], count, () => fastPids, {}, (s) => (JSON.parse(s.trim().split("\n").pop()!) as { done: number }).done);
    }

    // Warm-up: untimed runs so each stack is measured at steady state.
    for (let w = 0; w < warmRuns; w++) {
      await bareRun(warm, join(work, `warm-bare-${w}.jsonl`), warmN);
      await gymRun(warm, join(work, `warm-gym-${w}.jsonl`), warmN);
      if (baseline) await baseline.run(warm, join(work, `warm-baseline-${w}.jsonl`), warmN);
    }
    if (fastRun) await fastRun(warmFast, join(work, "warm-fast.jsonl"), Math.min(400, nFast));

    const results: Record<"gym" | "bare" | "fastapi" | "baseline", RunResult[]> = { gym: [], bare: [], fastapi: [], baseline: [] };
    for (let r = 0; r < rounds; r++) {
      // Alternate the order too, so no stack always runs right after the same neighbour.
      const order = r % 2 === 0 ? (["gym", "bare", "fastapi", "baseline"] as const) : (["baseline", "fastapi", "bare", "gym"] as const);
      const line: string[] = [];
      for (const s of order) {
        if (s === "fastapi" && !fastRun) continue;
        if (s === "baseline" && !baseline) continue;
        const res =
          s === "gym" ? await gymRun(input, join(work, `gym-${r}.jsonl`), n)
          : s === "baseline" ? await baseline!.run(input, join(work, `baseline-${r}.jsonl`), n)
          : s === "bare" ? await bareRun(input, join(work, `bare-${r}.jsonl`), n)
          : await fastRun!(inputFast, join(work, `fast-${r}.jsonl`), nFast);
        const expected = s === "fastapi" ? nFast : n;
        if (res.ok !== expected) throw new Error(`${s} round ${r + 1}: ${res.ok} of ${expected} rollouts rewarded`);
        results[s].push(res);
        // upstream's request() retries dropped connections after 0.5 s; the replica counts them.
        const retries = s === "fastapi" ? (JSON.parse(res.stdout.trim().split("\n").pop()!) as { retries: number }).retries : 0;
        line.push(`${s} ${res.rate.toFixed(0)}/s (${res.cpuTotal.toFixed(2)} ms CPU each${retries ? `, driver retried ${retries} dropped connections` : ""})`);
      }
      console.log(`round ${r + 1} [load ${loadAverage()}]: ${line.join(", ")}`);
    }

    for (const g of [gymStack, baseline]) {
      g?.start.kill("SIGINT");
      await g?.start.exited;
    }

    const med = (s: keyof typeof results) => median(results[s].map((x) => x.rate));
    const gymRate = med("gym");
    const bareRate = med("bare");
    const ratiosBare = results.gym.map((g, i) => g.rate / results.bare[i]!.rate);
    console.log(`\nrollouts per run: gym/bare ${n}, fastapi ${nFast}; ${inFlight} in flight; ${rounds} alternating rounds; load average now ${loadAverage()}`);
    console.log(`gym (dist/gym eval run --no-serve):  median ${gymRate.toFixed(1)} rollouts/s`);
    console.log(`bare Bun.serve + fetch:               median ${bareRate.toFixed(1)} rollouts/s`);
    if (fastRun) console.log(`FastAPI + uvicorn + aiohttp replica:  median ${med("fastapi").toFixed(1)} rollouts/s`);
    if (baseline) console.log(`gym baseline (${baselineBin}): median ${med("baseline").toFixed(1)} rollouts/s; this branch / baseline ${(gymRate / med("baseline")).toFixed(3)}`);
    console.log(`ratio gym / bare:    ${(gymRate / bareRate).toFixed(3)} (per round: ${ratiosBare.map((x) => x.toFixed(3)).join(", ")}) target ≥ 0.85`);
    if (fastRun) {
      const ratiosFast = results.gym.map((g, i) => g.rate / results.fastapi[i]!.rate);
      console.log(`ratio gym / fastapi: ${(gymRate / med("fastapi")).toFixed(2)}× (per round: ${ratiosFast.map((x) => x.toFixed(2)).join(", ")}) target ≥ 6×`);
    }
    for (const s of ["gym", "baseline", "bare", "fastapi"] as const) {
      if (results[s].length === 0) continue;
      const labels = [...results[s][0]!.cpu.keys()];
      const total = median(results[s].map((x) => x.cpuTotal));
      console.log(`CPU per rollout, ${s} (medians over rounds; total ${total.toFixed(3)} ms):`);
      for (const l of labels) {
        const ms = median(results[s].map((x) => x.cpu.get(l) ?? 0));
        if (ms < 0.0005) continue;
        console.log(`    ${l.padEnd(58)} ${ms.toFixed(3).padStart(7)} ms   RSS ${results[s].at(-1)!.rss.get(l)!.toFixed(0).padStart(4)} MB`);
      }
    }
    if (fastRun) {
      const retried = ["model", "rs", "agent", "env"].map((r) => `${r} ${(require("node:fs").readFileSync(join(work, `fastapi-${r}.log`), "utf8") as string).split("[request_retry").length - 1}`);
      console.log(`FastAPI replica servers retried dropped connections (0.5 s each, as upstream): ${retried.join(", ")}`);
    }
    if (process.env.NO_HELP !== "1" && !fromSource) console.log(`\n${(await helpCpu(gym[0]!, 15)).lines.join("\n")}`);
  } finally {
    for (const p of procs) if (p.exitCode === null) p.kill();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--role") await bareRole(process.argv[3]!, process.argv.slice(4));
else if (!(await inOwnNicedGroup())) await main();
