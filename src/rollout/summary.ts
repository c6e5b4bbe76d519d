/**
 * The driver's contract: what a run needs besides its config (DriverDeps) and how it ended
 * (RunSummary). Its own module so the driver's steps (dispatch.ts, finish.ts) and its callers
 * (run-eval.ts) share the types without importing the driver.
 */
import type { TokenCaptureCollector } from "./token-capture.ts";
import type { AggregateEntry } from "./aggregate.ts";
import type { MaterializeOptions } from "./materialize.ts";
import type { OtlpMetrics } from "./otlp.ts";
import type { RolloutPaths } from "./paths.ts";
import type { Row } from "./record.ts";
import type { RunTargets } from "./targets.ts";

/** What the driver needs besides the config. */
export interface DriverDeps {
  targets: RunTargets;
  /** `NEMO_GYM_MAX_ROLLOUT_ATTEMPTS` (default 3). */
  maxAttempts?: number;
  /** `GYM_JOB_END_TIME`, epoch seconds. */
  jobEndTime?: number;
  /** Show the live bar (stderr is a TTY and not under test). */
  tty?: boolean;
  /** Stops admission and abandons in-flight rollouts (SIGINT/SIGTERM); they are not journaled. */
  stop?: AbortSignal;
  /** Row transform applied during materialization (prompt config). */
  transform?: MaterializeOptions["transform"];
  /** Called after the aggregate file is written (exporters). */
  onAggregated?: (entries: AggregateEntry[], flat: Record<string, unknown>) => Promise<void> | void;
  /** Called with each success record (exporters spool rollouts; `retain_results_in_memory`). */
  onResult?: (record: Row) => void;
  /** OTLP metrics of this run (observability), pushed periodically. */
  otlp?: OtlpMetrics;
  /**
   * Keep success records for `RunSummary.results` (default: `retain_results_in_memory`). The CLI
   * passes false: it never reads them, and aggregation re-reads the journal either way.
   */
  keepResults?: boolean;
  /** Training-token capture's collector side (`token_id_capture.enabled`). */
  tokenCapture?: TokenCaptureCollector;
}

/** How a run ended. */
export interface RunSummary {
  exitCode: number;
  paths: RolloutPaths;
  total: number;
  done: number;
  failed: number;
  /** Successes written by this run. */
  newlyDone: number;
  drained: boolean;
  stopped: boolean;
  /** Failures of this run by D21 category. */
  failuresByCategory: Record<string, number>;
  /** The first failure message of each category this run (the end-of-run summary says why). */
  failureExamples: Record<string, string>;
  aggregate?: AggregateEntry[];
  /** Success records of this run, sorted by (task, rollout), when `retain_results_in_memory`. */
  results: Row[];
}
