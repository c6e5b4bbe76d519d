/** Run-level figures the viewer's Summary and Compare views show. Pure; bundled into the page too. */
import type { RowMeta } from "./row-meta.ts";

/** A distribution: a few quantiles and a 20-bin histogram. */
export interface Dist {
  n: number;
  min: number;
  max: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  /** Bin counts over [min, max]. */
  bins: number[];
}

/** What the Summary view shows. */
export interface RunSummary {
  rows: number;
  rewarded: number;
  meanReward: number | null;
  /** pass@k with a task passed by a rollout of reward ≥ 1, for k = 1 and k = the repeats per task. */
  passAtK: { k: number; value: number }[];
  perAgent: { agent: string; rows: number; meanReward: number | null }[];
  failures: { type: string; count: number }[];
  reward: Dist | null;
  tokens: Dist | null;
  latency: Dist | null;
}

/** Quantiles and a histogram of the finite values, or null when there are none. */
export function distribution(values: number[], nBins = 20): Dist | null {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const q = (p: number) => v[Math.min(v.length - 1, Math.floor(p * v.length))]!;
  const min = v[0]!, max = v[v.length - 1]!;
  const bins = new Array<number>(nBins).fill(0);
  const width = (max - min) / nBins;
  for (const x of v) bins[width === 0 ? 0 : Math.min(nBins - 1, Math.floor((x - min) / width))]!++;
  let sum = 0;
  for (const x of v) sum += x;
  return { n: v.length, min, max, mean: sum / v.length, p50: q(0.5), p90: q(0.9), p99: q(0.99), bins };
}

/** Unbiased pass@k over n samples with c correct (Chen et al. 2021). */
export function passAtK(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let p = 1;
  for (let i = n - c + 1; i <= n; i++) p *= 1 - k / i;
  return 1 - p;
}

/** The Summary view's figures for one file. */
export function summarize(metas: RowMeta[]): RunSummary {
  const rewards: number[] = [], tokens: number[] = [], latency: number[] = [];
  const agents = new Map<string, { rows: number; sum: number; n: number }>();
  const failures = new Map<string, number>();
  const tasks = new Map<number, { n: number; c: number }>();
  for (const m of metas) {
    const a = agents.get(m.agent) ?? { rows: 0, sum: 0, n: 0 };
    a.rows++;
    if (m.reward !== null) {
      rewards.push(m.reward);
      a.sum += m.reward;
      a.n++;
      if (m.task !== null) {
        const t = tasks.get(m.task) ?? { n: 0, c: 0 };
        t.n++;
        if (m.reward >= 1) t.c++;
        tasks.set(m.task, t);
      }
    }
    agents.set(m.agent, a);
    if (m.failure !== null) failures.set(m.failure, (failures.get(m.failure) ?? 0) + 1);
    if (m.tokens !== null) tokens.push(m.tokens);
    if (m.latency !== null) latency.push(m.latency);
  }
  const ks = new Set<number>([1]);
  let minN = Infinity;
  for (const t of tasks.values()) minN = Math.min(minN, t.n);
  if (Number.isFinite(minN) && minN > 1) ks.add(minN);
  const pass = [...ks].map((k) => {
    let s = 0;
    for (const t of tasks.values()) s += passAtK(t.n, t.c, Math.min(k, t.n));
    return { k, value: tasks.size ? s / tasks.size : 0 };
  });
  const sum = rewards.reduce((s, x) => s + x, 0);
  return {
    rows: metas.length,
    rewarded: rewards.length,
    meanReward: rewards.length ? sum / rewards.length : null,
    passAtK: tasks.size ? pass : [],
    perAgent: [...agents].map(([agent, a]) => ({ agent, rows: a.rows, meanReward: a.n ? a.sum / a.n : null })),
    failures: [...failures].map(([type, count]) => ({ type, count })).sort((x, y) => y.count - x.count),
    reward: distribution(rewards, 10),
    tokens: distribution(tokens),
    latency: distribution(latency),
  };
}

/** One task of a comparison between run A and run B. */
export interface TaskDelta {
  task: number;
  meanA: number | null;
  meanB: number | null;
  /** Passed (mean reward ≥ 0.5) in one run and not in the other. */
  flipped: boolean;
}

/** Per-task mean rewards of two runs, tasks that changed most first. */
export function compareRuns(a: RowMeta[], b: RowMeta[]): TaskDelta[] {
  const means = (metas: RowMeta[]) => {
    const m = new Map<number, { s: number; n: number }>();
    for (const r of metas) {
      if (r.task === null || r.reward === null) continue;
      const t = m.get(r.task) ?? { s: 0, n: 0 };
      t.s += r.reward;
      t.n++;
      m.set(r.task, t);
    }
    return new Map([...m].map(([k, v]) => [k, v.s / v.n]));
  };
  const ma = means(a), mb = means(b);
  const tasks = [...new Set([...ma.keys(), ...mb.keys()])];
  const out = tasks.map((task) => {
    const meanA = ma.get(task) ?? null, meanB = mb.get(task) ?? null;
    const flipped = meanA !== null && meanB !== null && meanA >= 0.5 !== meanB >= 0.5;
    return { task, meanA, meanB, flipped };
  });
  const d = (t: TaskDelta) => (t.meanA === null || t.meanB === null ? -1 : Math.abs(t.meanB - t.meanA));
  return out.sort((x, y) => Number(y.flipped) - Number(x.flipped) || d(y) - d(x) || x.task - y.task);
}
