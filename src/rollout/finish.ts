/**
 * The end of a completed collection (runtime §11.8, §11.9): aggregation per environment server,
 * the closing summary and latency lines, and the run-level checks — nothing succeeded, or
 * `require_complete` with pairs missing — that turn into a failed run with a summary by type.
 */
import { dirname } from "node:path";
import { RuntimeError } from "../errors.ts";
import { aggregate, groupRollouts, type AggregateEntry, type RolloutGrouper } from "./aggregate.ts";
import type { RolloutConfig } from "./config.ts";
import type { RunSummary } from "./summary.ts";
import type { RolloutPaths } from "./paths.ts";
import type { LatencySample, Progress } from "./progress.ts";
import type { RunTargets } from "./targets.ts";

/** Aggregate, report, and fail the run when the checks say so. */
export async function finishRun(
  cfg: RolloutConfig,
  paths: RolloutPaths,
  progress: Progress,
  summary: RunSummary,
  deps: {
    targets: RunTargets;
    onAggregated?: (entries: AggregateEntry[], flat: Record<string, unknown>) => Promise<void> | void;
    latency: LatencySample;
    maxAttempts: number;
    /** This run's records as grouped while they were written, when the output holds nothing else (a fresh run). */
    grouped?: RolloutGrouper;
  },
): Promise<void> {
  if (!cfg.disableAggregation) {
    progress.state = "aggregating";
    const groups = deps.grouped ? deps.grouped.result() : await groupRollouts([paths.output]);
    const { entries, flat } = await aggregate(groups, paths.aggregate, (g) => {
      try {
        return g.server ? deps.targets.forServer(g.server).baseUrl : deps.targets.forAgent(g.agent).baseUrl;
      } catch {
        return undefined;
      }
    });
    summary.aggregate = entries;
    await deps.onAggregated?.(entries, flat);
  }
  process.stderr.write(
    [
      "Finished rollout collection! View results at:",
      `Fully materialized inputs: ${paths.materialized}`,
      `Rollouts: ${paths.output}`,
      `Failures: ${paths.failures}`,
      ...(cfg.disableAggregation ? [] : [`Aggregate metrics: ${paths.aggregate}`]),
      "",
    ].join("\n"),
  );
  if (deps.latency.count > 0) process.stderr.write(`${deps.latency.summary()}\n`);
  const cats = Object.entries(summary.failuresByCategory).map(([k, n]) => `${k}: ${n}`).join(", ");
  // How many rollouts failed this run and why (one example message per D21 type), even when the run succeeds.
  if (cats) {
    const why = Object.entries(summary.failureExamples ?? {}).map(([k, m]) => `  ${k}: ${m}`);
    process.stderr.write(`Failed rollouts this run: ${cats} (typed records in ${paths.failures}); first error of each type:\n${why.join("\n")}\n`);
  }
  if (progress.done === 0 && progress.total > 0) {
    progress.state = "failed";
    throw new RuntimeError(`None of the ${progress.total} dispatched rollouts produced a result (failures: ${cats || "none recorded"})`, {
      hint: `see ${paths.failures} for the typed failure records`,
    });
  }
  if (cfg.requireComplete && progress.done < progress.total) {
    progress.state = "failed";
    throw new RuntimeError(`EVAL FAILED: ${progress.done}/${progress.total} samples completed. Partial artifacts retained at ${dirname(paths.output)}`, {
      hint: `failures this run by type: ${cats || "none"}; rerun with --resume to retry (attempts per rollout: NEMO_GYM_MAX_ROLLOUT_ATTEMPTS=${deps.maxAttempts})`,
    });
  }
}
