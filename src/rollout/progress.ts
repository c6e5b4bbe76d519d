/**
 * Counters of a collection run and the ways they are shown: a live bar on a TTY, the
 * upstream percentage block otherwise (runtime §11.8), and the status snapshot that
 * `<output>.status.json` and `GET /status` serve (D32: `{done, failed, in_flight, total}`).
 */

/** Running totals of one collection. */
export class Progress {
  /** Materialized rows. */
  total = 0;
  /** Successful pairs, earlier runs included. */
  done = 0;
  /** Pairs that failed in this run, plus those an earlier run made final (terminal, attempts used up). */
  failed = 0;
  inFlight = 0;
  /** Successes found in the journal at start (resume). */
  fromCache = 0;
  rewardSum = 0;
  rewardCount = 0;
  readonly startedAt = performance.now();
  readonly startedAtEpoch = Date.now() / 1000;
  state: "materializing" | "running" | "draining" | "aggregating" | "finished" | "drained" | "stopped" | "failed" = "materializing";
  /** Rows per agent (total) and finished per agent (done or failed). */
  readonly agentTotal = new Map<string, number>();
  readonly agentFinished = new Map<string, number>();
  readonly agentFound = new Map<string, number>();
  /** Per agent: sum and count of each numeric top-level field ([NEWER] per-metric averages). */
  readonly agentMetrics = new Map<string, Map<string, [number, number]>>();
  private finishedThisRun = 0;

  /** Record a finished rollout (success or failure) of this run. */
  finish(agent: string, ok: boolean, record?: Record<string, unknown>): void {
    this.finishedThisRun++;
    this.agentFinished.set(agent, (this.agentFinished.get(agent) ?? 0) + 1);
    if (!ok) {
      this.failed++;
      return;
    }
    this.done++;
    this.agentFound.set(agent, (this.agentFound.get(agent) ?? 0) + 1);
    if (!record) return;
    if (typeof record.reward === "number") {
      this.rewardSum += record.reward;
      this.rewardCount++;
    }
    let m = this.agentMetrics.get(agent);
    if (!m) this.agentMetrics.set(agent, (m = new Map()));
    // for-in over the (plain, JSON-built) record: Object.entries allocated a pair per key per rollout.
    for (const k in record) {
      if (k.charCodeAt(0) === 95 /* _ */) continue;
      const v = record[k];
      const n = typeof v === "number" ? v : typeof v === "boolean" ? Number(v) : undefined;
      if (n === undefined || !Number.isFinite(n)) continue;
      const cur = m.get(k) ?? [0, 0];
      cur[0] += n;
      cur[1]++;
      m.set(k, cur);
    }
  }

  /** Rollouts finished per second in this run. */
  rate(): number {
    const s = (performance.now() - this.startedAt) / 1000;
    return s > 0 ? this.finishedThisRun / s : 0;
  }

  /** Seconds until the remaining rollouts finish at the current rate (undefined when unknown). */
  etaSeconds(): number | undefined {
    const left = this.total - this.done - this.failed;
    const r = this.rate();
    return r > 0 ? left / r : undefined;
  }

  /** The status document (D32 keys first). */
  snapshot(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      done: this.done,
      failed: this.failed,
      in_flight: this.inFlight,
      total: this.total,
      state: this.state,
      from_cache: this.fromCache,
      rollouts_per_second: Math.round(this.rate() * 100) / 100,
      eta_seconds: this.etaSeconds() === undefined ? null : Math.round(this.etaSeconds()!),
      mean_reward: this.rewardCount > 0 ? this.rewardSum / this.rewardCount : null,
      started_at: this.startedAtEpoch,
      updated_at: Date.now() / 1000,
      pid: process.pid,
      ...extra,
    };
  }
}

/** `H:MM:SS`. */
export function hms(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

/** One line of the live bar. */
export function barLine(p: Progress, width = 24): string {
  const finished = p.done + p.failed;
  const frac = p.total > 0 ? finished / p.total : 0;
  const fill = Math.round(frac * width);
  const eta = p.etaSeconds();
  const mean = p.rewardCount > 0 ? (p.rewardSum / p.rewardCount).toFixed(3) : "–";
  return (
    `Collecting rollouts |${"█".repeat(fill)}${"░".repeat(width - fill)}| ${finished}/${p.total} ` +
    `done ${p.done} · failed ${p.failed} · in flight ${p.inFlight} · ${p.rate().toFixed(1)}/s · ETA ${eta === undefined ? "?" : hms(eta)} · mean reward ${mean}`
  );
}

/** The upstream percentage block (runtime §11.8). */
export function percentBlock(p: Progress): string {
  const finished = p.done + p.failed;
  const elapsed = (performance.now() - p.startedAt) / 1000;
  const pct = p.total > 0 ? (100 * finished) / p.total : 100;
  const perMin = elapsed > 0 ? (p.rate() * 60).toFixed(2) : "0.00";
  const lines = [`Finished ${finished} / ${p.total} rollouts (${Number(pct.toFixed(1))}%) in ${hms(elapsed)} (${perMin} rollouts/min). Examples left:`];
  let i = 1;
  for (const [agent, total] of p.agentTotal) lines.push(`${i++}. ${agent}: ${total - (p.agentFinished.get(agent) ?? 0)}`);
  for (const [agent, total] of p.agentTotal) {
    const found = p.agentFound.get(agent) ?? 0;
    lines.push(`Found ${found} / ${total} (${total > 0 ? ((100 * found) / total).toFixed(2) : "0.00"}%) rollouts for \`${agent}\`.`);
    const m = p.agentMetrics.get(agent);
    if (m && m.size > 0) {
      const avg: Record<string, number> = {};
      for (const [k, [sum, n]] of m) avg[k] = sum / n;
      lines.push(JSON.stringify(avg, null, 2));
    }
  }
  return lines.join("\n");
}

/** Percent marks at which the block is printed: 1…99, 99.5, 100. */
export const PERCENT_MARKS: number[] = [...Array.from({ length: 99 }, (_, i) => i + 1), 99.5, 100];

/** A bounded uniform sample of rollout durations (reservoir), for the end-of-run latency summary. */
export class LatencySample {
  private sample: number[] = [];
  count = 0;
  max = 0;

  constructor(private readonly size = 10_000) {}

  /** Add one duration (ms). */
  record(ms: number): void {
    this.count++;
    if (ms > this.max) this.max = ms;
    if (this.sample.length < this.size) this.sample.push(ms);
    else {
      const j = Math.floor(Math.random() * this.count);
      if (j < this.size) this.sample[j] = ms;
    }
  }

  /** Quantile q (0..1) of the sample, ms. */
  quantile(q: number): number {
    const s = [...this.sample].sort((a, b) => a - b);
    return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  }

  /** `Rollout latency: median …, p90 …, p99 …, max …` ([NEWER] summary). */
  summary(): string {
    const f = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    return `Rollout latency (${this.count} successful this run): median ${f(this.quantile(0.5))}, p90 ${f(this.quantile(0.9))}, p99 ${f(this.quantile(0.99))}, max ${f(this.max)}`;
  }
}
