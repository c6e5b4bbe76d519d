/**
 * The rollout window (runtime §11.5): at most `limit` rollouts in flight, each `/run` answer routed
 * to the output or failures journal and written before it is counted (D22). Hot path: one
 * `runOne` per rollout of every run.
 */
import { log } from "../log.ts";
import type { RolloutGrouper } from "./aggregate.ts";
import { clearCapture, foldCapture } from "./capture.ts";
import type { RolloutConfig } from "./config.ts";
import type { WalltimeDrain } from "./drain.ts";
import { postJson } from "./http.ts";
import { JsonlAppender } from "./jsonl.ts";
import type { Monitor } from "./monitor.ts";
import type { RolloutPaths } from "./paths.ts";
import { LatencySample, type Progress } from "./progress.ts";
import { agentOf, rolloutIdOf, routeOutcome, runRequestBody, type Row } from "./record.ts";
import type { DriverDeps } from "./summary.ts";
import type { RunTarget } from "./targets.ts";

/** Rollouts in a row whose connection one destination refused before the run stops (a dead destination). */
export const DEAD_AFTER_REFUSALS = 3;

/** A destination that refused DEAD_AFTER_REFUSALS rollouts in a row: nothing listens there. */
export interface DeadDestination {
  server: string;
  url: string;
  /** The last refusal's error. */
  message: string;
}

/** Launches rollouts within the window and journals their outcomes. */
export class Dispatcher {
  /** Failures of this run by D21 category. */
  readonly failuresByCategory: Record<string, number> = {};
  /** The first failure message of each category this run. */
  readonly failureExamples: Record<string, string> = {};
  /** Latency of this run's successes (the closing latency line). */
  readonly latency = new LatencySample();
  /** Success records kept for `RunSummary.results`. */
  readonly results: Row[] = [];
  /** Aborts every in-flight `/run` (stop signal, a dead destination, the end of the walltime grace). */
  readonly abortAll = new AbortController();
  /** Successes written by this run. */
  newlyDone = 0;
  /** Set once a destination refused DEAD_AFTER_REFUSALS rollouts in a row (the run then stops). */
  dead: DeadDestination | undefined;
  /** Set when the run must stop with this error (token_id_capture.max_mask_fraction exceeded). */
  fatal: Error | undefined;
  /** Collects every output record for aggregation as it is written (a fresh run: the output holds nothing else). */
  grouper: RolloutGrouper | undefined;
  // Refused connections in a row per destination: nothing listens there, so stop instead of
  // spending every remaining row's retry budget on it (issue: --no-serve with a dead server).
  private readonly refusedInARow = new Map<string, number>();
  private readonly out: JsonlAppender;
  private readonly fails: JsonlAppender;
  private readonly running = new Set<Promise<void>>();
  private waiters: (() => void)[] = [];
  private readonly keepResults: boolean;
  private readonly captureDir: string | undefined;

  constructor(
    private readonly cfg: RolloutConfig,
    paths: RolloutPaths,
    private readonly progress: Progress,
    private readonly monitor: Monitor,
    private readonly drain: WalltimeDrain,
    private readonly deps: DriverDeps,
    private readonly limit: number,
  ) {
    this.out = new JsonlAppender(paths.output);
    this.fails = new JsonlAppender(paths.failures);
    this.keepResults = deps.keepResults ?? cfg.retainResults;
    this.captureDir = cfg.observability ? cfg.modelCallCaptureDir : undefined;
  }

  /** Rollouts in flight now. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Resolves when the window has room for one more rollout. */
  slot(): Promise<void> {
    return this.running.size < this.limit ? Promise.resolve() : new Promise<void>((r) => this.waiters.push(r));
  }

  /** Start one rollout; its outcome is journaled and counted when it ends. */
  launch(row: Row, target: RunTarget): void {
    this.progress.inFlight++;
    const p = this.runOne(row, target)
      .catch((e) => log.error(`rollout ${rolloutIdOf(row)}: ${(e as Error).stack ?? e}`))
      .finally(() => {
        this.progress.inFlight--;
        this.running.delete(p);
        const w = this.waiters;
        this.waiters = [];
        for (const f of w) f();
      });
    this.running.add(p);
  }

  /** Resolves when every launched rollout has ended. */
  async settle(): Promise<void> {
    await Promise.all([...this.running]);
  }

  /** Close both journals (after `settle`). */
  close(): void {
    this.out.close();
    this.fails.close();
  }

  private async runOne(row: Row, target: RunTarget): Promise<void> {
    const id = rolloutIdOf(row);
    const captureDir = this.captureDir;
    if (captureDir) clearCapture(captureDir, id);
    const tokens = this.deps.tokenCapture?.participates(agentOf(row)) ? this.deps.tokenCapture : undefined;
    if (tokens) await tokens.clear(id);
    const flight = { id, server: target.server, url: target.runUrl, startedAt: performance.now() };
    this.monitor.inFlight.set(id, flight);
    const outcome = await postJson(target.runUrl, runRequestBody(row, target), {
      timeoutMs: this.cfg.runTimeoutMs,
      retryBudgetMs: this.cfg.retryBudgetMs,
      signal: this.abortAll.signal,
      debug: this.cfg.requestDebug,
      // Flat rows carry no rollout id in the body: the header lets legacy_agent → agent → model
      // servers file their capture lines under this rollout (runtime §14).
      headers: captureDir || tokens ? { "x-nemo-gym-rollout-id": id } : undefined,
    });
    this.monitor.inFlight.delete(id);
    this.deps.otlp?.observe(performance.now() - flight.startedAt);
    if (outcome.kind === "unreachable" && outcome.refused === true) this.refused(target, outcome.message);
    else if (outcome.kind === "response") this.refusedInARow.delete(target.runUrl);
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
    let built: Awaited<ReturnType<NonNullable<typeof tokens>["finalize"]>>;
    if (routed.dest === "output" && tokens) {
      built = await tokens.finalize(routed.record, id);
      if (built) {
        routed.line = undefined;
        try {
          tokens.count(built);
        } catch (e) {
          // max_mask_fraction exceeded: this record is still written, then the run stops.
          this.fatal ??= e as Error;
          this.abortAll.abort();
        }
      }
    }
    if (routed.dest === "output") {
      const elapsedMs = performance.now() - flight.startedAt;
      // Grouped for aggregation in the order the lines are queued, which is the file's order.
      this.grouper?.add(routed.record);
      // Written with the other results of this event-loop turn (one write for all), and counted
      // only once it is in the kernel.
      await this.out.appendSoon(routed.record, routed.line);
      if (tokens && built) {
        // The snapshot is retired only once the record survives a crash (upstream fsyncs first too).
        await this.out.sync();
        await tokens.retire(id, built);
      }
      this.newlyDone++;
      this.drain.record(elapsedMs);
      this.latency.record(elapsedMs);
      this.progress.finish(agent, true, routed.record);
      if (this.keepResults) this.results.push(routed.record);
      this.deps.onResult?.(routed.record);
    } else if (routed.dest === "failures") {
      this.fails.append(routed.record);
      const cat = String(routed.record._ng_failure_category ?? "infra");
      this.failuresByCategory[cat] = (this.failuresByCategory[cat] ?? 0) + 1;
      // judge_failed rows carry their reason as _ng_failure_judge_error (the verifier answered 200).
      const reason = String(routed.record._ng_failure_message ?? routed.record._ng_failure_judge_error ?? "").slice(0, 300);
      this.failureExamples[cat] ??= reason;
      this.progress.finish(agent, false);
      if (this.newlyDone + this.fails.count <= 5 || this.fails.count % 100 === 0) {
        log.warn(`🚨 [rollout_collection] rollout dropped from the score: row=${id} class=${routed.record._ng_failure_class} category=${cat} error=${reason}`);
      }
    }
    this.monitor.onFinished();
  }

  /** Count a refused connection; the DEAD_AFTER_REFUSALS-th in a row marks the destination dead and stops the run. */
  private refused(target: RunTarget, message: string): void {
    const n = (this.refusedInARow.get(target.runUrl) ?? 0) + 1;
    this.refusedInARow.set(target.runUrl, n);
    if (n >= DEAD_AFTER_REFUSALS && !this.dead) {
      this.dead = { server: target.server, url: target.runUrl, message };
      this.abortAll.abort();
    }
  }
}
