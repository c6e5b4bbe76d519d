/**
 * The rollout driver (runtime §11): materialize (or resume), dispatch `/run` with a bounded
 * window of resident tasks, journal every outcome before counting it (D22), drain for walltime
 * (D30), aggregate, and report. Where rollouts go is the small `RunTargets` interface, so the
 * same core serves `--no-serve` (head-server discovery) and serve mode. Each step of a run is a
 * small function below; the window itself is dispatch.ts, the closing report finish.ts.
 */
import { mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { RuntimeError } from "../errors.ts";
import { log } from "../log.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { lockOutput, removeStaleTemps } from "./output-lock.ts";
import { fdBudgetWarning } from "./capacity.ts";
import { maxInFlight, type RolloutConfig } from "./config.ts";
import { DEAD_AFTER_REFUSALS, Dispatcher } from "./dispatch.ts";
import { EXIT_DRAINED, WalltimeDrain } from "./drain.ts";
import { pairKey } from "./journal.ts";
import { Monitor } from "./monitor.ts";
import { traceStall } from "./stall-trace.ts";
import { rolloutPaths, type RolloutPaths } from "./paths.ts";
import { Progress } from "./progress.ts";
import { agentOf, type Row, verbatimLines } from "./record.ts";
import { dispatchOrder, openRun, type OpenedRun } from "./start.ts";
import { finishRun } from "./finish.ts";
import { RolloutGrouper } from "./aggregate.ts";
import { StatusPublisher } from "./status.ts";
import type { DriverDeps, RunSummary } from "./summary.ts";
import type { RunTarget, RunTargets } from "./targets.ts";

function targetOf(row: Row, targets: RunTargets): RunTarget {
  return typeof row._ng_environment_server === "string" ? targets.forServer(row._ng_environment_server) : targets.forAgent(agentOf(row));
}

/** Progress counters as the OTLP exporter reports them. */
function countsOf(progress: Progress) {
  return () => {
    const snap = progress.snapshot();
    return { done: progress.done, failed: progress.failed, in_flight: progress.inFlight, total: progress.total, mean_reward: snap.mean_reward as number | null };
  };
}

/** The resident size above which the driver forces a full collection (checked once a second). */
const GC_RSS_BYTES = 128 * 1024 * 1024;

/**
 * Without retained results the live heap is a few MB, but at tens of thousands of rollouts/s
 * the engine lets garbage (answers, lines) grow the heap to hundreds of MB before collecting.
 * A full collection of that small heap keeps memory flat (bench-scale million: RSS ~330 → ~95 MB,
 * same rollouts/s); it runs only once the process is past GC_RSS_BYTES, so a short run (most
 * runs: thousands of rollouts) pays for none.
 */
function collectGarbageEverySecond(): ReturnType<typeof setInterval> {
  const t = setInterval(() => {
    if (process.memoryUsage.rss() > GC_RSS_BYTES) Bun.gc(true);
  }, 1000);
  t.unref();
  return t;
}

/**
 * Feed the materialized rows, in dispatch order, through the window; admission ends on the stop
 * signal (or a dead destination) and when walltime says drain. True when it stopped to drain.
 */
async function admitAll(cfg: RolloutConfig, paths: RolloutPaths, run: OpenedRun, d: Dispatcher, drain: WalltimeDrain, targets: RunTargets): Promise<boolean> {
  const { journal, gated } = run;
  for await (const row of dispatchOrder(paths.materialized, journal, cfg.dispatchLongestFirst, gated)) {
    await d.slot();
    if (d.abortAll.signal.aborted) break;
    if (drain.shouldDrain()) return true;
    const key = pairKey(Number(row._ng_task_index), Number(row._ng_rollout_index ?? 0));
    if (gated(key)) continue;
    const attempts = journal?.attempts.get(key) ?? 0;
    if (attempts > 0) {
      row._ng_attempt_index = attempts;
      verbatimLines.delete(row);
    }
    d.launch(row, targetOf(row, targets));
  }
  return false;
}

/** Wait for the rollouts in flight; when draining, abandon them after the walltime grace. */
async function settle(cfg: RolloutConfig, d: Dispatcher, drain: WalltimeDrain, drained: boolean, progress: Progress): Promise<void> {
  if (!drained) return d.settle();
  progress.state = "draining";
  const left = drain.secondsLeft();
  log.warn(`walltime: ${Math.round(left)} s left (GYM_JOB_END_TIME) < p95 rollout ${drain.p95Seconds().toFixed(1)} s + margin ${cfg.drainMarginSeconds} s; no new rollouts, waiting for ${d.inFlight} in flight`);
  const t = setTimeout(() => d.abortAll.abort(), drain.graceMs());
  await d.settle();
  clearTimeout(t);
}

/** A dead destination stopped the run: a RuntimeError naming it (exit 1, E_DEAD_DESTINATION). */
function failIfDead(d: Dispatcher, progress: Progress): void {
  if (d.fatal) {
    progress.state = "failed";
    throw new RuntimeError(`${d.fatal.name}: ${d.fatal.message}`, { hint: "see the `_ng_token_capture` field of the masked rollouts for the reasons; raise or unset token_id_capture.max_mask_fraction to collect anyway", code: "E_TOKEN_CAPTURE_MASKED" });
  }
  const dead = d.dead;
  if (!dead) return;
  progress.state = "failed";
  const cats = Object.entries(d.failuresByCategory).map(([k, n]) => `${k}: ${n}`).join(", ");
  throw new RuntimeError(
    `the server '${dead.server}' at ${dead.url} refused the connection of ${DEAD_AFTER_REFUSALS} rollouts in a row: nothing is listening there, so the run stopped (${progress.done}/${progress.total} done; failed this run: ${cats || "none"}). Last error: ${dead.message}`,
    { hint: `start the servers (gym env start …) or check that head_server points at the running ones, then continue with --resume`, code: "E_DEAD_DESTINATION" },
  );
}

/** The summary of a run whose dispatch ended (before aggregation). */
function summarize(paths: RolloutPaths, progress: Progress, d: Dispatcher, drained: boolean, stopped: boolean): RunSummary {
  return {
    exitCode: 0,
    paths,
    total: progress.total,
    done: progress.done,
    failed: progress.failed,
    newlyDone: d.newlyDone,
    drained,
    stopped,
    failuresByCategory: d.failuresByCategory,
    failureExamples: d.failureExamples,
    results: d.results.sort((a, b) => Number(a._ng_task_index) - Number(b._ng_task_index) || Number(a._ng_rollout_index) - Number(b._ng_rollout_index)),
  };
}

/** A run that drained for walltime or was stopped: marker file, exit code, the resume line. */
function endEarly(summary: RunSummary, progress: Progress): RunSummary {
  const drained = summary.drained;
  progress.state = drained ? "drained" : "stopped";
  // `new_rows` tells the resumable prologue whether this job made progress (D37).
  if (drained) writeFileAtomic(summary.paths.drained, `${JSON.stringify({ drained_at: Date.now() / 1000, done: progress.done, total: progress.total, new_rows: summary.newlyDone })}\n`);
  summary.exitCode = drained ? EXIT_DRAINED : 130;
  process.stderr.write(`${drained ? "Drained for walltime" : "Stopped"}: ${progress.done}/${progress.total} rollouts done; resume with --resume (+resume_from_cache=true).\n`);
  return summary;
}

/** Run a whole collection: open (materialize or resume), admit, settle, then aggregate and report. */
export async function runRollouts(cfg: RolloutConfig, deps: DriverDeps): Promise<RunSummary> {
  const paths = rolloutPaths(cfg.output);
  mkdirSync(dirname(paths.output), { recursive: true });
  // D38: one writer per output for the whole run (the CLI may already hold it: the lock is re-entrant).
  const unlock = lockOutput(paths);
  removeStaleTemps(paths);
  if (cfg.observability && cfg.modelCallCaptureDir) mkdirSync(cfg.modelCallCaptureDir, { recursive: true });
  const maxAttempts = deps.maxAttempts ?? 3;
  const progress = new Progress();
  const drain = new WalltimeDrain(deps.jobEndTime, cfg.drainMarginSeconds);
  const status = new StatusPublisher(progress, paths.status, () => ({ output: paths.output }));
  status.start(cfg.statusPort);
  const monitor = new Monitor(progress, { tty: deps.tty ?? false, stallWarningSeconds: cfg.stallWarningSeconds, trace: (server, url) => traceStall(server, new URL(url).origin) });
  let gcTimer: ReturnType<typeof setInterval> | undefined;
  let opened = false;

  try {
    const run = await openRun(cfg, paths, progress, { targets: deps.targets, transform: deps.transform, maxAttempts });
    // Judged on the rollouts this run can really have in flight (5 rows never need 8192 sockets).
    const fdWarning = fdBudgetWarning(Math.min(maxInFlight(cfg), progress.total - progress.done - progress.failed));
    if (fdWarning) log.warn(fdWarning);
    opened = true;

    progress.state = "running";
    monitor.skipPassedMarks();
    monitor.start();
    if (!(deps.keepResults ?? cfg.retainResults)) gcTimer = collectGarbageEverySecond();
    const counts = countsOf(progress);
    deps.otlp?.begin(counts);
    const d = new Dispatcher(cfg, paths, progress, monitor, drain, deps, maxInFlight(cfg));
    // A fresh run's output holds only what this run writes: aggregate it as it goes (no re-read).
    if (run.journal === undefined && !cfg.disableAggregation) d.grouper = new RolloutGrouper();
    const onStop = () => d.abortAll.abort();
    deps.stop?.addEventListener("abort", onStop, { once: true });
    const drained = await admitAll(cfg, paths, run, d, drain, deps.targets);
    await settle(cfg, d, drain, drained, progress);
    deps.stop?.removeEventListener("abort", onStop);
    d.close();
    monitor.stop();
    await deps.otlp?.end(counts());
    failIfDead(d, progress);

    const summary = summarize(paths, progress, d, drained, deps.stop?.aborted === true);
    if (summary.drained || summary.stopped) return endEarly(summary, progress);
    await finishRun(cfg, paths, progress, summary, { targets: deps.targets, onAggregated: deps.onAggregated, latency: d.latency, maxAttempts, grouped: d.grouper });
    progress.state = "finished";
    return summary;
  } catch (e) {
    if (progress.state !== "failed") progress.state = "failed";
    throw e;
  } finally {
    clearInterval(gcTimer);
    monitor.stop();
    await status.stop();
    // A run that failed before it started (bad input, output guard) leaves no status file behind.
    if (!opened) rmSync(paths.status, { force: true });
    unlock();
  }
}
