/**
 * Job identity and records (spec submit.md §8, §9.1): the gym job id, `resolved-config.yaml`
 * (host: references only, D28) and the `gym-job.json` submission record.
 */
import { readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { envVar } from "../env.ts";
import { stringify } from "yaml";
import { GIT_SHA, VERSION } from "../version.ts";
import type { SubmitConfig } from "./schema.ts";

/** Record schema version this gym writes and reads. */
export const RECORD_SCHEMA_VERSION = 1;

/** One benchmark's outcome in the record. */
export interface BenchmarkRecord {
  benchmark: string;
  job_dir: string;
  job_id: string | null;
  error: string | null;
  /** Sharded benchmarks only: the merge job queued after the job array (issue 20). */
  merge_job_id?: string | null;
}

/** `gym-job.json`. */
export interface SubmissionRecord {
  gym_job_id: string;
  gym_version: string;
  gym_commit: string | null;
  submitted_at: string;
  run_dir: string;
  cluster: string;
  executor: "slurm";
  hostname: string | null;
  submitted_by: string;
  benchmarks: BenchmarkRecord[];
  executor_metadata: Record<string, unknown>;
  schema_version: number;
}

function utcStamp(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, "Z");
}

/** The submitting user: $USER/$LOGNAME, else the passwd entry of this uid (Bun's userInfo reads $USER). */
export function currentUser(): string {
  const fromEnv = envVar("USER") || envVar("LOGNAME");
  if (fromEnv) return fromEnv;
  const uid = process.getuid?.();
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const f = line.split(":");
      if (f.length > 2 && Number(f[2]) === uid) return f[0]!;
    }
  } catch {
    // no passwd file: fall through
  }
  return userInfo().username;
}

/** `gym-job-<YYYYMMDDTHHMMSSZ>-<6 hex>`. */
export function newGymJobId(now = new Date()): string {
  const stamp = utcStamp(now).replace(/[-:]/g, "");
  return `gym-job-${stamp}-${Buffer.from(crypto.getRandomValues(new Uint8Array(3))).toString("hex")}`;
}

/** The validated config as YAML: what `--resolve-only` prints and `resolved-config.yaml` holds. */
export function resolvedYaml(cfg: SubmitConfig): string {
  return stringify(cfg, { lineWidth: 0 });
}

/** Build the submission record. */
export function buildRecord(a: {
  gymJobId: string;
  runDir: string;
  cluster: string;
  hostname: string | null;
  user: string;
  benchmarks: BenchmarkRecord[];
  now?: Date;
}): SubmissionRecord {
  return {
    gym_job_id: a.gymJobId,
    gym_version: VERSION,
    gym_commit: GIT_SHA === "unknown" ? null : GIT_SHA,
    submitted_at: utcStamp(a.now ?? new Date()),
    run_dir: a.runDir,
    cluster: a.cluster,
    executor: "slurm",
    hostname: a.hostname,
    submitted_by: a.user,
    benchmarks: a.benchmarks,
    executor_metadata: {},
    schema_version: RECORD_SCHEMA_VERSION,
  };
}
