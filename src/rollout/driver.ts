/**
 * The rollout driver (runtime §11): materialize (or resume), dispatch `/run` with a bounded
 * window of resident tasks, journal every outcome before counting it (D22), drain for walltime
 * (D30), aggregate, and report. Where rollouts go is the small `RunTargets` interface, so the
 * same core serves `--no-serve` (head-server discovery) and serve mode.
 */
import { mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { RuntimeError } from "../errors.ts";
import { log } from "../log.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { lockOutput, removeStaleTemps } from "./output-lock.ts";
import type { AggregateEntry } from "./aggregate.ts";
import { fdBudgetWarning } from "./capacity.ts";
import { clearCapture, foldCapture } from "./capture.ts";
import { maxInFlight, type RolloutConfig } from "./config.ts";
import { EXIT_DRAINED, WalltimeDrain } from "./drain.ts";
import { postJson } from "./http.ts";
import { pairKey } from "./journal.ts";
import { JsonlAppender } from "./jsonl.ts";
import type { MaterializeOptions } from "./materialize.ts";
import { Monitor } from "./monitor.ts";
import { traceStall } from "./stall-trace.ts";
import type { OtlpMetrics } from "./otlp.ts";
import { rolloutPaths, type RolloutPaths } from "./paths.ts";
import { LatencySample, Progress } from "./progress.ts";
import { agentOf, rolloutIdOf, routeOutcome, runRequestBody, type Row, verbatimLines } from "./record.ts";
import { dispatchOrder, openRun } from "./start.ts";
import { finishRun } from "./finish.ts";
import { StatusPublisher } from "./status.ts";
import type { RunTarget, RunTargets } from "./targets.ts";

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


/** Rollouts in a row whose connection one destination refused before the run stops (a dead destination). */
export const DEAD_AFTER_REFUSALS = 3;

function targetOf(row: Row, targets: RunTargets): RunTarget {
  return typeof row._ng_environment_server === "string" ? targets.forServer(row._ng_environment_server) : targets.forAgent(agentOf(row));
}

/** Run a whole collection. */
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
    const { journal, gated } = await openRun(cfg, paths, progress, { targets: deps.targets, transform: deps.transform, maxAttempts });
    // Judged on the rollouts this run can really have in flight (5 rows never need 8192 sockets).
    const fdWarning = fdBudgetWarning(Math.min(maxInFlight(cfg), progress.total - progress.done - progress.failed));
    if (fdWarning) log.warn(fdWarning);

    opened = true;
    // ---- dispatch ----
    progress.state = "running";
    monitor.skipPassedMarks();
    monitor.start();
    // Without retained results the live heap is a few MB, but at tens of thousands of rollouts/s
    // the engine lets garbage (answers, lines) grow the heap to hundreds of MB before collecting.
    // A full collection of that small heap each second costs milliseconds and keeps memory flat
    // (bench-scale million: RSS ~330 → ~95 MB, same rollouts/s).
    if (!(deps.keepResults ?? cfg.retainResults)) {
      gcTimer = setInterval(() => Bun.gc(true), 1000);
      gcTimer.unref();
    }
    const counts = () => {
      const snap = progress.snapshot();
      return { done: progress.done, failed: progress.failed, in_flight: progress.inFlight, total: progress.total, mean_reward: snap.mean_reward as number | null };
    };
    deps.otlp?.begin(counts);
    const out = new JsonlAppender(paths.output);
    const fails = new JsonlAppender(paths.failures);
    const limit = maxInFlight(cfg);
    const abortAll = new AbortController();
    const onStop = () => abortAll.abort();
    deps.stop?.addEventListener("abort", onStop, { once: true });
    const failuresByCategory: Record<string, number> = {};
    const failureExamples: Record<string, string> = {};
    // Refused connections in a row per destination: nothing listens there, so stop instead of
    // spending every remaining row's retry budget on it (issue: --no-serve with a dead server).
    const refusedInARow = new Map<string, number>();
    let dead: { server: string; url: string; message: string } | undefined;
    const latency = new LatencySample();
    const results: Row[] = [];
    let newlyDone = 0;
    let drained = false;
    let waiters: (() => void)[] = [];
    const running = new Set<Promise<void>>();

    const runOne = async (row: Row, target: RunTarget): Promise<void> => {
      const id = rolloutIdOf(row);
      const captureDir = cfg.observability ? cfg.modelCallCaptureDir : undefined;
      if (captureDir) clearCapture(captureDir, id);
      const flight = { id, server: target.server, url: target.runUrl, startedAt: performance.now() };
      monitor.inFlight.set(id, flight);
      const outcome = await postJson(target.runUrl, runRequestBody(row, target), {
        timeoutMs: cfg.runTimeoutMs,
        retryBudgetMs: cfg.retryBudgetMs,
        signal: abortAll.signal,
        debug: cfg.requestDebug,
        // Flat rows carry no rollout id in the body: the header lets legacy_agent → agent → model
        // servers file their capture lines under this rollout (runtime §14).
        headers: captureDir ? { "x-nemo-gym-rollout-id": id } : undefined,
      });
      monitor.inFlight.delete(id);
      deps.otlp?.observe(performance.now() - flight.startedAt);
      if (outcome.kind === "unreachable" && outcome.refused === true) {
        const n = (refusedInARow.get(target.runUrl) ?? 0) + 1;
        refusedInARow.set(target.runUrl, n);
        if (n >= DEAD_AFTER_REFUSALS && !dead) {
          dead = { server: target.server, url: target.runUrl, message: outcome.message };
          abortAll.abort();
        }
      } else if (outcome.kind === "response") refusedInARow.delete(target.runUrl);
      const routed = routeOutcome(row, target, outcome);
      const agent = agentOf(row);
      // D22: the line is written before anything counts it.
      if (routed.dest === "output" && captureDir) {
        const folded = foldCapture(captureDir, id, routed.record);
        if (folded) {
          Object.assign(routed.record, folded);
          routed.line = undefined;
          const bad = folded.ng_model_call_capture.token_sequence_violations as number[] | undefined;
          if (bad) log.warn(`rollout ${id}: token ids are not monotonic across model calls (call ${bad.join(", ")} does not extend the previous prompt + generation)`);
        }
      }
      if (routed.dest === "output") {
        const elapsedMs = performance.now() - flight.startedAt;
        // Written with the other results of this event-loop turn (one write for all), and counted
        // only once it is in the kernel.
        await out.appendSoon(routed.record, routed.line);
        newlyDone++;
        drain.record(elapsedMs);
        latency.record(elapsedMs);
        progress.finish(agent, true, routed.record);
        if (deps.keepResults ?? cfg.retainResults) results.push(routed.record);
        deps.onResult?.(routed.record);
      } else if (routed.dest === "failures") {
        fails.append(routed.record);
        const cat = String(routed.record._ng_failure_category ?? "infra");
        failuresByCategory[cat] = (failuresByCategory[cat] ?? 0) + 1;
        failureExamples[cat] ??= String(routed.record._ng_failure_message ?? "").slice(0, 300);
        progress.finish(agent, false);
        if (newlyDone + fails.count <= 5 || fails.count % 100 === 0) {
          log.warn(`🚨 [rollout_collection] rollout dropped from the score: row=${id} class=${routed.record._ng_failure_class} category=${cat} error=${String(routed.record._ng_failure_message ?? "").slice(0, 300)}`);
        }
      }
      monitor.onFinished();
    };

    const launch = (row: Row, target: RunTarget) => {
      progress.inFlight++;
      const p = runOne(row, target)
        .catch((e) => log.error(`rollout ${rolloutIdOf(row)}: ${(e as Error).stack ?? e}`))
        .finally(() => {
          progress.inFlight--;
          running.delete(p);
          const w = waiters;
          waiters = [];
          for (const f of w) f();
        });
      running.add(p);
    };

    const slot = () => (running.size < limit ? Promise.resolve() : new Promise<void>((r) => waiters.push(r)));

    for await (const row of dispatchOrder(paths.materialized, journal, cfg.dispatchLongestFirst, gated)) {
      await slot();
      if (abortAll.signal.aborted) break;
      if (drain.shouldDrain()) {
        drained = true;
        break;
      }
      const key = pairKey(Number(row._ng_task_index), Number(row._ng_rollout_index ?? 0));
      if (gated(key)) continue;
      const attempts = journal?.attempts.get(key) ?? 0;
      if (attempts > 0) {
        row._ng_attempt_index = attempts;
        verbatimLines.delete(row);
      }
      launch(row, targetOf(row, deps.targets));
    }
    if (drained) {
      progress.state = "draining";
      const left = drain.secondsLeft();
      log.warn(`walltime: ${Math.round(left)} s left (GYM_JOB_END_TIME) < p95 rollout ${drain.p95Seconds().toFixed(1)} s + margin ${cfg.drainMarginSeconds} s; no new rollouts, waiting for ${running.size} in flight`);
      const t = setTimeout(() => abortAll.abort(), drain.graceMs());
      await Promise.all([...running]);
      clearTimeout(t);
    } else {
      await Promise.all([...running]);
    }
    deps.stop?.removeEventListener("abort", onStop);
    out.close();
    fails.close();
    monitor.stop();
    await deps.otlp?.end(counts());
    if (dead) {
      progress.state = "failed";
      const cats = Object.entries(failuresByCategory).map(([k, n]) => `${k}: ${n}`).join(", ");
      throw new RuntimeError(
        `the server '${dead.server}' at ${dead.url} refused the connection of ${DEAD_AFTER_REFUSALS} rollouts in a row: nothing is listening there, so the run stopped (${progress.done}/${progress.total} done; failed this run: ${cats || "none"}). Last error: ${dead.message}`,
        { hint: `start the servers (gym env start …) or check that head_server points at the running ones, then continue with --resume`, code: "E_DEAD_DESTINATION" },
      );
    }
    const stopped = deps.stop?.aborted === true;

    const summary: RunSummary = {
      exitCode: 0,
      paths,
      total: progress.total,
      done: progress.done,
      failed: progress.failed,
      newlyDone,
      drained,
      stopped,
      failuresByCategory,
      failureExamples,
      results: results.sort((a, b) => Number(a._ng_task_index) - Number(b._ng_task_index) || Number(a._ng_rollout_index) - Number(b._ng_rollout_index)),
    };
    if (drained || stopped) {
      progress.state = drained ? "drained" : "stopped";
      // `new_rows` tells the resumable prologue whether this job made progress (D37).
      if (drained) writeFileAtomic(paths.drained, `${JSON.stringify({ drained_at: Date.now() / 1000, done: progress.done, total: progress.total, new_rows: newlyDone })}\n`);
      summary.exitCode = drained ? EXIT_DRAINED : 130;
      process.stderr.write(`${drained ? "Drained for walltime" : "Stopped"}: ${progress.done}/${progress.total} rollouts done; resume with --resume (+resume_from_cache=true).\n`);
      return summary;
    }

    await finishRun(cfg, paths, progress, summary, { targets: deps.targets, onAggregated: deps.onAggregated, latency, maxAttempts });
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
