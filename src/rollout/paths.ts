/**
 * The artifact file names derived from the output path (runtime §11.3, §11.6, §11.9, §17.10; D21).
 * Kept in one place because upstream tools and `gym eval status` read them by name.
 */
import { dirname, extname, join } from "node:path";

/** Every file a rollout run writes, derived from `output_jsonl_fpath`. */
export interface RolloutPaths {
  /** Main rollouts JSONL (`<stem>.jsonl`, the output path itself). */
  output: string;
  /** `<stem>_materialized_inputs.jsonl`. */
  materialized: string;
  /** `<stem>_failures.jsonl`: typed failure records (D21). */
  failures: string;
  /** `<stem>_aggregate_metrics.json`. */
  aggregate: string;
  /** `<output>.status.json`: live counts for `gym eval status` (D32). */
  status: string;
  /** `<bench dir>/.gym_drained`: written when the driver drains for walltime (D30). */
  drained: string;
  /** `<stem>.gym-lock`: the exclusive lock of the run writing these files (D38). */
  lock: string;
  /** `<output>.journal.json`: what the journal was made from (the input's digest), checked on resume (D38). */
  journal: string;
}

/** The output path without its extension (`/a/b/out.jsonl` → `/a/b/out`). */
export function outputStem(output: string): string {
  const ext = extname(output);
  return ext ? output.slice(0, -ext.length) : output;
}

/** Derive every artifact path from the output path. */
export function rolloutPaths(output: string): RolloutPaths {
  const stem = outputStem(output);
  return {
    output,
    materialized: `${stem}_materialized_inputs.jsonl`,
    failures: `${stem}_failures.jsonl`,
    aggregate: `${stem}_aggregate_metrics.json`,
    status: `${output}.status.json`,
    drained: join(dirname(output), ".gym_drained"),
    lock: `${stem}.gym-lock`,
    journal: `${output}.journal.json`,
  };
}
