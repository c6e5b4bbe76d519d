/**
 * bench-verifier-scaleout: built-in verification scales by the worker pool inside a server and by
 * more resources-server processes (issue 20 §2; gym embeds no Ray). Starts 1, 2 and 4 processes of
 * a built-in resources server (default math_with_judge, library check only, each with its verifier
 * pool of `verifier_workers`, default cores − 1), sends the recorded example rollouts' /verify
 * bodies round-robin for DURATION seconds with IN_FLIGHT requests per instance, and prints
 * verdicts/s per instance count with the ratio to one instance, beside the load average (the
 * machine is shared). Run it as root under `nice -n -15`:
 *
 *   nice -n -15 bun scripts/bench-verifier-scaleout.ts [server=math_with_judge] [counts=1,2,4]
 *   env: DURATION=8 WARM=2 IN_FLIGHT=4 WORKERS=<verifier_workers>
 */
import { loadavg } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
type Obj = Record<string, unknown>;

/** `--serve IMPL WORKERS`: host one instance in this process and print its port. */
async function serve(impl: string, workers: string): Promise<void> {
  await import("../src/components/index.ts");
  const { findBuiltin } = await import("../src/components/registry.ts");
  const { serveApp } = await import("../src/runtime/http/http.ts");
  const comp = await findBuiltin("resources_servers", impl);
  if (!comp) throw new Error(`not built in: ${impl}`);
  const leaf: Obj = { entrypoint: "app.py", host: "127.0.0.1", should_use_judge: false, name: impl };
  if (workers !== "") leaf.verifier_workers = Number(workers);
  const app = await comp.create({ instanceName: impl, config: leaf, globalConfig: { [impl]: { resources_servers: { [impl]: leaf } } } });
  const server = serveApp(app, { host: "127.0.0.1", port: 0 });
  process.stdout.write(`PORT ${server.port}\n`);
}

/** Verify bodies: each recorded rollout with its example row's fields (rollouts do not echo e.g. `question`). */
async function bodies(impl: string): Promise<string[]> {
  const read = async (f: string) => (await Bun.file(join(ROOT, "assets", "resources_servers", impl, "data", f)).text()).split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Obj);
  const examples = await read("example.jsonl");
  return (await read("example_rollouts.jsonl"))
    .map((rollout, i) => {
      const r: Obj = { ...examples[i % examples.length], ...rollout };
      for (const k of ["reward", "library_reward", "judge_evaluations", "extracted_answer", "follow_all_instructions", "follow_instruction_list"]) delete r[k];
      return JSON.stringify(r);
    });
}

async function start(impl: string, workers: string): Promise<{ url: string; proc: ReturnType<typeof Bun.spawn> }> {
  const proc = Bun.spawn([process.execPath, import.meta.path, "--serve", impl, workers], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let buf = "";
  const deadline = Date.now() + 60_000;
  while (!/PORT (\d+)\n/.test(buf)) {
    if (Date.now() > deadline) throw new Error("server did not start in 60 s");
    const { value, done } = await reader.read();
    if (done) throw new Error("server exited before printing its port");
    buf += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { url: `http://127.0.0.1:${/PORT (\d+)/.exec(buf)![1]}`, proc };
}

/** Verdicts answered in `seconds` with `inFlight` requests per instance kept busy. */
async function drive(urls: string[], rows: string[], seconds: number, inFlight: number): Promise<{ verdicts: number; errors: number }> {
  const end = performance.now() + seconds * 1000;
  let verdicts = 0;
  let errors = 0;
  let next = 0;
  const lane = async (url: string) => {
    while (performance.now() < end) {
      const body = rows[next++ % rows.length]!;
      const res = await fetch(`${url}/verify`, { method: "POST", headers: { "content-type": "application/json" }, body });
      const out = (await res.json()) as Obj;
      if (res.ok && typeof out.reward === "number") verdicts++;
      else errors++;
    }
  };
  await Promise.all(urls.flatMap((u) => Array.from({ length: inFlight }, () => lane(u))));
  return { verdicts, errors };
}

async function main(): Promise<void> {
  const impl = process.argv[2] ?? "math_with_judge";
  const counts = (process.argv[3] ?? "1,2,4").split(",").map(Number);
  const duration = Number(process.env.DURATION ?? 8);
  const warm = Number(process.env.WARM ?? 2);
  const inFlight = Number(process.env.IN_FLIGHT ?? 4);
  const workers = process.env.WORKERS ?? "";
  const rows = await bodies(impl);
  const cores = navigator.hardwareConcurrency;
  const la = () => loadavg().map((x) => x.toFixed(2)).join(" ");
  console.log(`bench-verifier-scaleout: ${impl}, ${rows.length} recorded bodies, ${cores} cores, verifier_workers=${workers || `default (${Math.max(1, cores - 1)})`} per instance, ${inFlight} in flight per instance, ${duration} s measured after ${warm} s warm-up`);
  console.log(`load average before: ${la()}`);
  let base = 0;
  for (const n of counts) {
    const servers = await Promise.all(Array.from({ length: n }, () => start(impl, workers)));
    try {
      const urls = servers.map((s) => s.url);
      await drive(urls, rows, warm, inFlight);
      const { verdicts, errors } = await drive(urls, rows, duration, inFlight);
      const rate = verdicts / duration;
      if (n === counts[0]) base = rate;
      console.log(`${String(n).padStart(2)} instance${n === 1 ? " " : "s"}: ${rate.toFixed(1).padStart(8)} verdicts/s  (×${(rate / base).toFixed(2)} of ${counts[0]})  errors ${errors}  load average ${la()}`);
    } finally {
      for (const s of servers) s.proc.kill();
      await Promise.all(servers.map((s) => s.proc.exited));
    }
  }
}

if (process.argv[2] === "--serve") await serve(process.argv[3]!, process.argv[4] ?? "");
else await main();
