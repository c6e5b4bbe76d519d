/**
 * scicode_agent's metrics (upstream `compute_metrics` / `get_key_metrics`): the sub-step-weighted
 * `subtask_accuracy` over every rollout, and, with two or more repeats, the run-to-run sample
 * standard deviation of the two headline metrics (run i = repeat i of every problem, aligned by
 * `_ng_rollout_index`, as many runs as the fewest repeats).
 */
type Row = Record<string, unknown>;

const num = (v: unknown): number => (typeof v === "number" ? v : typeof v === "boolean" ? Number(v) : 0);

/** Python `statistics.stdev` (sample, n − 1). */
function sampleStdev(xs: number[]): number {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
}

function acrossRunStats(tasks: Row[][]): Record<string, number> {
  const nonEmpty = tasks.filter((t) => t.length > 0);
  const k = nonEmpty.length === 0 ? 0 : Math.min(...nonEmpty.map((t) => t.length));
  if (k < 2) return {};
  const rows = nonEmpty.filter((t) => t.length >= k).map((t) => [...t].sort((a, b) => num(a._ng_rollout_index) - num(b._ng_rollout_index)).slice(0, k));
  const problemRuns: number[] = [];
  const subtaskRuns: number[] = [];
  for (let i = 0; i < k; i++) {
    const acc = rows.filter((r) => r[i]!.problem_accuracy !== undefined && r[i]!.problem_accuracy !== null).map((r) => num(r[i]!.problem_accuracy));
    if (acc.length > 0) problemRuns.push(acc.reduce((a, b) => a + b, 0) / acc.length);
    const passed = rows.reduce((a, r) => a + num(r[i]!.num_steps_passed), 0);
    const total = rows.reduce((a, r) => a + num(r[i]!.num_steps_total), 0);
    if (total) subtaskRuns.push(passed / total);
  }
  const out: Record<string, number> = {};
  for (const [key, runs] of [["mean/problem_accuracy", problemRuns], ["subtask_accuracy", subtaskRuns]] as const) {
    if (runs.length < 2) continue;
    out[`${key}/std_dev_across_runs`] = runs.every((v) => v === runs[0]) ? 0.0 : sampleStdev(runs);
  }
  return out;
}

/** `subtask_accuracy` (total passed / total sub-steps, not a mean of ratios) plus the across-run spreads. */
export function scicodeMetrics(tasks: Row[][]): Record<string, number> {
  let passed = 0;
  let total = 0;
  for (const t of tasks) for (const r of t) (passed += num(r.num_steps_passed)), (total += num(r.num_steps_total));
  return { subtask_accuracy: total ? passed / total : 0.0, ...acrossRunStats(tasks) };
}

/** Headline metrics: every `mean/…` and `subtask_accuracy…` entry. */
export function scicodeKeyMetrics(agentMetrics: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(agentMetrics).filter(([k]) => k.startsWith("mean/") || k.startsWith("subtask_accuracy")));
}
