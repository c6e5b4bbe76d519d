/**
 * `gym eval status` (D32 + addendum): read `gym-job.json`, then per benchmark the Slurm state
 * (squeue, then sacct, then scontrol; `unknown` when none answers), exit code, job chain and the
 * driver's progress file. Queries run where the submit ran (over SSH when the record names a host).
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { ConfigError } from "../errors.ts";
import { RECORD_SCHEMA_VERSION, type SubmissionRecord } from "./records.ts";
import { q } from "./render/shell.ts";
import type { Connection } from "./ssh.ts";

/** Status of one benchmark. */
export interface BenchmarkStatus {
  job_id: string | null;
  state: string;
  exit_code: string | null;
  chain: string[];
  progress: { done: number; failed: number; in_flight: number; total: number | null } | null;
}

/** The JSON `gym eval status --json` prints. */
export interface RunStatus {
  gym_job_id: string;
  run_dir: string;
  benchmarks: Record<string, BenchmarkStatus>;
}

/** Read and check a run dir's record (local file). */
export function readRecord(runDir: string, cacheDir?: string): SubmissionRecord {
  let p = join(runDir, "gym-job.json");
  // A run dir on a remote cluster: fall back to the local record copy written at submit time.
  const copy = cacheDir === undefined ? undefined : join(cacheDir, "nemo-gym", "jobs", `${basename(runDir.replace(/\/+$/, ""))}.json`);
  if (!existsSync(p) && copy !== undefined && existsSync(copy)) p = copy;
  if (!existsSync(p)) throw new ConfigError(`No gym-job.json in '${runDir}'`, { code: "E_STATUS", hint: "pass the run directory printed by gym eval submit (…/gym-job-<stamp>-<hex>)" });
  const rec = JSON.parse(readFileSync(p, "utf8")) as SubmissionRecord;
  if (typeof rec.schema_version !== "number" || rec.schema_version > RECORD_SCHEMA_VERSION) {
    throw new ConfigError(`'${p}' has schema_version ${String(rec.schema_version)}, newer than this gym reads (${RECORD_SCHEMA_VERSION})`, { code: "E_STATUS", hint: "use a newer gym" });
  }
  return rec;
}

/** The shell program that queries one job; prints `KEY=value` lines. */
export function statusProgram(jobDir: string, jobId: string | null, outputFile: string): string {
  const chain = q(`${jobDir}/.gym_job_chain`);
  const lines = [
    `if [ -f ${chain} ]; then echo "CHAIN=$(tr '\\n' ' ' < ${chain})"; fi`,
    `if [ -f ${q(`${outputFile}.status.json`)} ]; then echo "PROGRESS=$(tr -d '\\n' < ${q(`${outputFile}.status.json`)})"; fi`,
  ];
  if (jobId !== null) {
    lines.push(
      `id=${q(jobId)}`,
      `if [ -f ${chain} ]; then last=$(tail -n 1 ${chain}); [ -n "$last" ] && id="$last"; fi`,
      'echo "JOB=$id"',
      's=$(squeue -h -j "$id" -o %T 2>/dev/null | head -n 1); if [ -n "$s" ]; then echo "STATE=$s"; fi',
      'a=$(sacct -j "$id" -X -P -n -o State,ExitCode 2>/dev/null | head -n 1); if [ -n "$a" ]; then echo "SACCT=$a"; fi',
      'c=$(scontrol show job "$id" 2>/dev/null | tr \' \' \'\\n\' | grep -E "^(JobState|ExitCode)=" | tr \'\\n\' \' \'); if [ -n "$c" ]; then echo "SCONTROL=$c"; fi',
    );
  }
  return `${lines.join("\n")}\n`;
}

/** Interpret the program's output. */
export function parseStatus(jobId: string | null, out: string): BenchmarkStatus {
  const kv = new Map<string, string>();
  for (const line of out.split("\n")) {
    const i = line.indexOf("=");
    if (i > 0 && !kv.has(line.slice(0, i))) kv.set(line.slice(0, i), line.slice(i + 1));
  }
  let state = "unknown";
  let exit: string | null = null;
  const sacct = kv.get("SACCT");
  const sc = kv.get("SCONTROL");
  if (kv.has("STATE")) state = kv.get("STATE")!;
  else if (sacct) {
    const [s, e] = sacct.split("|");
    state = (s ?? "unknown").split(" ")[0]!;
    exit = e ?? null;
  } else if (sc) {
    state = /JobState=(\S+)/.exec(sc)?.[1] ?? "unknown";
    exit = /ExitCode=(\S+)/.exec(sc)?.[1] ?? null;
  }
  if (exit === null && sc) exit = /ExitCode=(\S+)/.exec(sc)?.[1] ?? null;
  let progress: BenchmarkStatus["progress"] = null;
  const raw = kv.get("PROGRESS");
  if (raw) {
    try {
      const p = JSON.parse(raw) as Record<string, unknown>;
      const n = (k: string) => (typeof p[k] === "number" ? (p[k] as number) : 0);
      progress = { done: n("done"), failed: n("failed"), in_flight: n("in_flight"), total: typeof p.total === "number" ? p.total : null };
    } catch {
      progress = null;
    }
  }
  const chain = (kv.get("CHAIN") ?? "").split(/\s+/).filter((x) => x !== "");
  return { job_id: kv.get("JOB") ?? jobId, state, exit_code: exit, chain, progress };
}

/** Collect the status of every benchmark of a record. */
export async function runStatus(rec: SubmissionRecord, conn: Connection): Promise<RunStatus> {
  const benchmarks: Record<string, BenchmarkStatus> = {};
  for (const b of rec.benchmarks) {
    const out = join(b.job_dir, "artifacts", "rollouts.jsonl");
    const r = await conn.run(statusProgram(b.job_dir, b.job_id, out), "status", 60_000);
    benchmarks[b.benchmark] = parseStatus(b.job_id, r.stdout);
  }
  return { gym_job_id: rec.gym_job_id, run_dir: rec.run_dir, benchmarks };
}
