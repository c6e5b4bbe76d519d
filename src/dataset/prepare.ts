/**
 * `gym eval prepare` (components §3.9, §6): for every agent holding a `type: benchmark` dataset
 * (exactly one each), run its `prepare_script`'s `prepare(**prepare_script_args)` and check that
 * the path it returns is the dataset's `jsonl_fpath`. Python scripts run with the configured
 * interpreter (`python_executable`, default python3) in a subprocess; every script is checked
 * before any of them runs; `num_prepare_benchmark_processes` of them run at once.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigError, RuntimeError } from "../errors.ts";
import { log } from "../log.ts";
import { resolveAt } from "../config/interpolate.ts";
import { resolveInRoots } from "../config/roots.ts";
import type { ResolvedConfig } from "../config/types.ts";

/** One benchmark to prepare. */
export interface BenchmarkJob {
  agent: string;
  name: string;
  script: string;
  jsonl: string;
}

/** Prepare settings. */
export interface PrepareOptions {
  useCached: boolean;
  processes: number;
  args: Record<string, unknown>;
  python: string;
  cwd: string;
}

const MARK = "__GYM_PREPARE_RESULT__";
// Imports the script as a module (as upstream does) and prints the returned path after a marker.
const RUNNER = `import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("gym_prepare", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
result = mod.prepare(**json.loads(sys.argv[2]))
print("\\n${MARK}" + json.dumps(str(result)))
`;

/** Find the benchmark datasets of a resolved config (exactly one per agent). */
export function benchmarkJobs(resolved: ResolvedConfig, opts: { resolvePaths?: boolean } = {}): BenchmarkJob[] {
  // resolvePaths=false keeps the paths as written (built-in preparers resolve them themselves).
  const at = (p: string) => (opts.resolvePaths === false ? p : resolveInRoots(p, resolved.roots));
  const jobs: BenchmarkJob[] = [];
  for (const s of resolved.servers) {
    if (s.serverType !== "responses_api_agents") continue;
    const datasets = resolveAt(resolved.dict, [s.name, s.serverType, s.implementation, "datasets"]);
    if (!Array.isArray(datasets)) continue;
    const bench = (datasets as Record<string, unknown>[]).filter((d) => d && d.type === "benchmark");
    if (bench.length === 0) continue;
    if (bench.length > 1) {
      throw new ConfigError(`agent '${s.name}' has ${bench.length} benchmark datasets; exactly one is allowed per benchmark config`, { key: `${s.name}.${s.serverType}.${s.implementation}.datasets` });
    }
    const d = bench[0]!;
    if (typeof d.prepare_script !== "string" || d.prepare_script === "") {
      throw new ConfigError(`benchmark dataset '${d.name}' of '${s.name}' has no prepare_script`, { key: `${s.name}.${s.serverType}.${s.implementation}.datasets` });
    }
    jobs.push({ agent: s.name, name: String(d.name ?? s.name), script: at(d.prepare_script), jsonl: at(String(d.jsonl_fpath ?? "")) });
  }
  if (jobs.length === 0) throw new ConfigError("no benchmark dataset (type: benchmark) in the config: nothing to prepare", { hint: "pass --benchmark NAME or a --config with a benchmark dataset" });
  return jobs;
}

async function runOne(job: BenchmarkJob, opts: PrepareOptions): Promise<void> {
  if (opts.useCached && existsSync(job.jsonl)) {
    log.info(`${job.name}: using the cached ${job.jsonl} (use_cached_prepared_benchmarks)`);
    return;
  }
  log.info(`${job.name}: running ${job.script}`);
  const proc = Bun.spawn([opts.python, "-c", RUNNER, job.script, JSON.stringify(opts.args)], { cwd: opts.cwd, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new RuntimeError(`${job.name}: ${job.script} failed (exit ${code})\n${err.trim().split("\n").slice(-15).join("\n")}`);
  const line = out.split("\n").find((l) => l.startsWith(MARK));
  const returned = line ? (JSON.parse(line.slice(MARK.length)) as string) : undefined;
  if (!returned || resolve(opts.cwd, returned) !== resolve(opts.cwd, job.jsonl)) {
    throw new RuntimeError(`${job.name}: prepare() returned ${JSON.stringify(returned)}, but the dataset's jsonl_fpath is ${job.jsonl}`, { hint: "make prepare() write and return the configured jsonl_fpath" });
  }
  if (!existsSync(job.jsonl)) throw new RuntimeError(`${job.name}: prepare() returned ${returned}, but the file does not exist`);
  log.info(`${job.name}: wrote ${job.jsonl}`);
}

/** Check every script (present, Python, interpreter found) without running any. */
export function checkPrepareScripts(jobs: BenchmarkJob[], opts: PrepareOptions): void {
  const missing = jobs.filter((j) => !existsSync(j.script));
  if (missing.length > 0) throw new ConfigError(`prepare_script not found:\n${missing.map((j) => `- ${j.agent}: ${j.script}`).join("\n")}`);
  const notPy = jobs.filter((j) => !j.script.endsWith(".py"));
  if (notPy.length > 0) throw new ConfigError(`prepare_script must be a Python file:\n${notPy.map((j) => `- ${j.agent}: ${j.script}`).join("\n")}`);
  if (jobs.some((j) => !(opts.useCached && existsSync(j.jsonl))) && !Bun.which(opts.python)) {
    throw new ConfigError(`'${opts.python}' was not found; benchmark preparation runs the prepare scripts with Python`, { key: "python_executable", hint: "install python3 or set python_executable" });
  }
}

/** Prepare every benchmark; scripts are all checked before any runs. */
export async function prepareBenchmarks(jobs: BenchmarkJob[], opts: PrepareOptions): Promise<void> {
  checkPrepareScripts(jobs, opts);
  const queue = [...jobs];
  const workers = Array.from({ length: Math.max(1, Math.min(opts.processes, jobs.length)) }, async () => {
    for (let job = queue.shift(); job; job = queue.shift()) await runOne(job, opts);
  });
  await Promise.all(workers);
}
