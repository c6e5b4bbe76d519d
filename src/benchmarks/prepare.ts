/**
 * Preparing built-in benchmarks in-process (components §3.9 with TypeScript preparers): every
 * selected benchmark is checked before anything is downloaded; sources are fetched (or read
 * from `--data-dir`), turned into JSONL lines, and written to a temp file renamed into place,
 * so an interrupted or failed preparation never leaves a half-written JSONL.
 */
import { sourceLabel } from "./types.ts";
import { OfflineError, offlinePolicy } from "../runtime/http/offline.ts";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { ConfigError, RuntimeError } from "../errors.ts";
import { log } from "../log.ts";
import { checkSources, fetchSource, type FetchEnv } from "./fetch-sources.ts";
import type { BenchmarkPreparer, SourceFile } from "./types.ts";

/** One built-in benchmark to prepare. */
export interface BuiltinJob {
  /** The dataset's name (`gym list benchmarks` row name may differ for nested configs). */
  name: string;
  /** `jsonl_fpath` as the config writes it (relative to a search root, or absolute). */
  jsonlFpath: string;
  preparer: BenchmarkPreparer;
}

/** What one preparation produced (kept for a bundle). */
export interface PreparedBenchmark {
  job: BuiltinJob;
  /** Absolute path written. */
  path: string;
  jsonl: Uint8Array;
  sources: SourceFile[];
  /** Side files written beside it (paths relative to the output root); none when absent. */
  extra?: { path: string; bytes: Uint8Array }[];
}

/** Options of `prepareBuiltins`. */
export interface BuiltinOptions {
  /** Root the outputs go under (`<root>/<jsonl_fpath>`). */
  outputRoot: string;
  /** Skip a benchmark whose output already exists (`use_cached_prepared_benchmarks`). */
  useCached: boolean;
  /** How many benchmarks prepare at once (`num_prepare_benchmark_processes`). */
  processes: number;
  fetch: FetchEnv;
  /** Keep each result in memory (for `--bundle`); cached benchmarks are then prepared anyway. */
  collect?: boolean;
}

/** Where a job's JSONL goes under an output root. */
export function outputPath(root: string, jsonlFpath: string): string {
  return isAbsolute(jsonlFpath) ? jsonlFpath : join(root, jsonlFpath);
}

/** Write `bytes` to `path` through a temp file and a rename (readers never see half a file). */
export function writeAtomic(path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, bytes);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Check every job (sources reachable in principle, tokens present, offline files there) before any work. */
export function checkBuiltins(jobs: BuiltinJob[], env: FetchEnv, outputRoot?: string, useCached = false): void {
  const outside = jobs.filter((j) => j.preparer.unsupported !== undefined && !(useCached && outputRoot !== undefined && existsSync(outputPath(outputRoot, j.jsonlFpath))));
  if (outside.length > 0) {
    throw new ConfigError(outside.map((j) => `${j.name}: gym cannot prepare this benchmark itself: ${j.preparer.unsupported}`).join("\n"), {
      hint: `prepare it with upstream's script, then place the JSONL at ${outside.map((j) => j.jsonlFpath).join(", ")} under a search root (or --output-dir)`,
    });
  }
  // Offline mode (issue 20 §3): list every source the network would have served, before fetching any.
  const policy = offlinePolicy();
  if (policy.on && !env.dataDir) {
    const wanted = jobs
      .filter((j) => !(useCached && outputRoot !== undefined && existsSync(outputPath(outputRoot, j.jsonlFpath))))
      .flatMap((j) => j.preparer.sources.map((s) => `${j.name}: ${sourceLabel(s)}`));
    if (wanted.length > 0) throw new OfflineError(wanted);
  }
  const problems = jobs.flatMap((j) => checkSources(j.preparer.name, j.preparer.sources, env));
  if (problems.length > 0) {
    throw new ConfigError(problems.length === 1 ? problems[0]! : `cannot prepare ${problems.length} source(s):\n${problems.map((p) => `- ${p}`).join("\n")}`, {
      hint: env.dataDir ? "lay the files out as `gym eval prepare --help` describes" : undefined,
    });
  }
}

async function runOne(job: BuiltinJob, opts: BuiltinOptions): Promise<PreparedBenchmark | undefined> {
  const path = outputPath(opts.outputRoot, job.jsonlFpath);
  if (opts.useCached && !opts.collect && existsSync(path)) {
    log.info(`${job.name}: using the cached ${path} (use_cached_prepared_benchmarks)`);
    return undefined;
  }
  const files: SourceFile[][] = [];
  for (const s of job.preparer.sources) files.push(await fetchSource(opts.fetch, job.preparer.name, s));
  let lines: string[];
  let extra: NonNullable<PreparedBenchmark["extra"]> = [];
  try {
    const out = await job.preparer.prepare(files);
    if (Array.isArray(out)) lines = out;
    else ({ lines, extra } = out);
  } catch (e) {
    if (e instanceof RuntimeError || e instanceof ConfigError) throw e;
    throw new RuntimeError(`${job.name}: preparation failed: ${(e as Error).message}`, { cause: e });
  }
  const jsonl = new TextEncoder().encode(lines.map((l) => `${l}\n`).join(""));
  for (const x of extra) {
    const p = join(opts.outputRoot, x.path);
    writeAtomic(p, x.bytes);
    log.info(`${job.name}: wrote ${p}`);
  }
  writeAtomic(path, jsonl);
  log.info(`${job.name}: wrote ${lines.length} rows to ${path}`);
  return { job, path, jsonl, sources: files.flat(), extra };
}

/** Prepare the jobs (checked first); returns what was prepared (in job order). */
export async function prepareBuiltins(jobs: BuiltinJob[], opts: BuiltinOptions): Promise<PreparedBenchmark[]> {
  checkBuiltins(jobs, opts.fetch, opts.outputRoot, opts.useCached);
  const results: (PreparedBenchmark | undefined)[] = new Array(jobs.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(opts.processes, jobs.length)) }, async () => {
    for (let i = next++; i < jobs.length; i = next++) results[i] = await runOne(jobs[i]!, opts);
  });
  await Promise.all(workers);
  return results.filter((r): r is PreparedBenchmark => r !== undefined);
}
