/**
 * Two more pieces of upstream's reward_profile used by servers' own `compute_metrics`:
 * the average within-task sample standard deviation, and pass@k metrics per subset of tasks.
 */
import { passMajorityMetrics, type ScoreFn, type VerifyResponse } from "./aggregate-metrics.ts";

/** `pass@1[avg-of-k]/<name>/avg_sample_std_dev` for k = 2…max (upstream `add_avg_sample_std_dev`). */
export function avgSampleStdDev(tasks: VerifyResponse[][], scoreFn: ScoreFn): Record<string, number> {
  const scores = tasks.map((t) => t.map((r) => Object.fromEntries(Object.entries(scoreFn(r)).map(([k, v]) => [k, Number(v)]))));
  const maxK = Math.max(0, ...tasks.map((t) => t.length));
  const names = [...new Set(scores.flatMap((t) => t.flatMap((s) => Object.keys(s))))];
  const out: Record<string, number> = {};
  for (let k = 2; k <= maxK; k++) {
    for (const name of names) {
      const sds: number[] = [];
      for (const t of scores) {
        const vals = t.slice(0, k).filter((s) => name in s).map((s) => s[name]!);
        if (vals.length < 2) continue;
        const m = vals.reduce((a, b) => a + b, 0) / vals.length;
        sds.push(Math.sqrt(vals.reduce((a, v) => a + (v - m) ** 2, 0) / (vals.length - 1)));
      }
      if (sds.length) out[`pass@1[avg-of-${k}]/${name}/avg_sample_std_dev`] = sds.reduce((a, b) => a + b, 0) / sds.length;
    }
  }
  return out;
}

/** Pass/majority metrics per value of `key` on each task's first rollout, keys prefixed `<value>/` (upstream `compute_subset_metrics`). */
export function subsetMetrics(tasks: VerifyResponse[][], key: string, scoreFn: ScoreFn, answerKey?: string): Record<string, unknown> {
  const groups = new Map<string, VerifyResponse[][]>();
  for (const t of tasks) {
    const v = t[0]?.[key];
    if (v === undefined || v === null || v === "" || v === 0 || v === false) continue; // Python truthiness
    const name = String(v);
    groups.set(name, [...(groups.get(name) ?? []), t]);
  }
  const out: Record<string, unknown> = {};
  for (const [name, group] of groups)
    for (const [k, v] of Object.entries(passMajorityMetrics(group, scoreFn, answerKey))) if (k !== "per_sample_aggregate") out[`${name}/${k}`] = v;
  return out;
}
