/**
 * Startup benchmark (issue 3): time from `gym env start` (head + 4 built-in servers) to "all servers
 * ready", median of N runs, against a baseline measured here: spawning 4 trivial `bun -e` Bun.serve
 * processes and waiting until each answers. Also prints the peak RSS (VmHWM) of each server process.
 *
 *   bun scripts/bench-startup.ts [--runs 10] [--binary path/to/gym]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1] ?? 10) || 10;
const binaryAt = args.indexOf("--binary");
const gym = binaryAt >= 0 ? [args[binaryAt + 1]!] : [process.execPath, join(import.meta.dir, "..", "src", "main.ts")];
const START = ["env", "start", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model"];

/** A head port that was free a moment ago (config/ rejects port 0). */
function freePort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const p = s.port!;
  s.stop(true);
  return p;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function peakRssMb(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** One `gym env start` to ready; returns ms and the per-server peak RSS. */
async function gymOnce(): Promise<{ ms: number; rss: Record<string, number> }> {
  const headPort = freePort();
  const t0 = performance.now();
  const proc = Bun.spawn([...gym, ...START, `++head_server.port=${headPort}`], { stdin: "ignore", stdout: "ignore", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  let text = "";
  let ms = 0;
  for await (const chunk of proc.stderr) {
    text += new TextDecoder().decode(chunk);
    if (/All \d+ \/ \d+ servers ready!/.test(text)) {
      ms = performance.now() - t0;
      break;
    }
  }
  if (!ms) throw new Error(`gym env start failed:\n${text}`);
  const head = Number(/Head server listening on http:\/\/[^:]+:(\d+)/.exec(text)![1]);
  const instances = (await (await fetch(`http://127.0.0.1:${head}/server_instances`)).json()) as { process_name: string; pid: number }[];
  const rss: Record<string, number> = {};
  for (const i of instances) rss[i.process_name] = peakRssMb(i.pid) ?? NaN;
  proc.kill("SIGINT");
  await proc.exited;
  return { ms, rss };
}

let baseRss = 0;

/** Baseline: 4 trivial Bun.serve processes to answering. */
async function baselineOnce(): Promise<number> {
  const t0 = performance.now();
  const procs = Array.from({ length: 4 }, () =>
    Bun.spawn([process.execPath, "-e", "const s = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('ok') }); console.log(s.port);"], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
    }),
  );
  await Promise.all(
    procs.map(async (p) => {
      const reader = p.stdout.getReader();
      let out = "";
      while (!out.includes("\n")) out += new TextDecoder().decode((await reader.read()).value);
      const port = Number(out.trim());
      for (;;) {
        try {
          await fetch(`http://127.0.0.1:${port}/`);
          return;
        } catch {
          await Bun.sleep(5);
        }
      }
    }),
  );
  const ms = performance.now() - t0;
  for (const p of procs) baseRss = Math.max(baseRss, peakRssMb(p.pid) ?? 0);
  for (const p of procs) p.kill("SIGKILL");
  await Promise.all(procs.map((p) => p.exited));
  return ms;
}

const gymTimes: number[] = [];
const baseTimes: number[] = [];
let lastRss: Record<string, number> = {};
const peak: Record<string, number> = {};
await gymOnce(); // warm the file cache once; not counted
for (let i = 0; i < runs; i++) {
  baseTimes.push(await baselineOnce());
  const r = await gymOnce();
  gymTimes.push(r.ms);
  lastRss = r.rss;
  for (const [k, v] of Object.entries(r.rss)) peak[k] = Math.max(peak[k] ?? 0, v);
}
const g = median(gymTimes);
const b = median(baseTimes);
console.log(`gym: ${gym.join(" ")}`);
console.log(`gym env start → ready (head + ${Object.keys(lastRss).length} built-in servers), median of ${runs}: ${g.toFixed(0)} ms  [min ${Math.min(...gymTimes).toFixed(0)}, max ${Math.max(...gymTimes).toFixed(0)}]  (target ≤ 250 ms)`);
console.log(`baseline: 4 × bun -e Bun.serve → answering, median of ${runs}: ${b.toFixed(0)} ms`);
console.log(`ratio gym / baseline: ${(g / b).toFixed(2)}×`);
console.log("peak RSS per server process (VmHWM, max over runs; target ≤ 60 MB):");
for (const [k, v] of Object.entries(peak)) console.log(`  ${k.padEnd(56)} ${v.toFixed(1)} MB`);
console.log(`  ${"(baseline: one bun -e Bun.serve process)".padEnd(56)} ${baseRss.toFixed(1)} MB`);
