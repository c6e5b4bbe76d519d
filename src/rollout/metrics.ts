/**
 * The default `/aggregate_metrics` computation (runtime §12) and the pass@k / majority helper,
 * as pure functions over verify responses. The driver uses it when an environment server has
 * no `/aggregate_metrics` of its own; `gym eval profile` and `aggregate` reuse it.
 */

/** A verify response (a rollout record minus the heavy payloads). */
export type VerifyResponse = Record<string, unknown>;

/** The `/aggregate_metrics` answer. */
export interface AggregateMetrics {
  group_level_metrics: Record<string, unknown>[];
  agent_metrics: Record<string, number>;
  key_metrics: Record<string, number>;
}

const STATS = ["mean", "max", "min", "median", "std"] as const;

/** Numeric view of one entry (§12 step 1): numbers, bools as 0/1, `response.usage` numbers on top. */
export function numericFields(entry: VerifyResponse): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(entry)) {
    if (k.startsWith("_ng_")) continue;
    if (typeof v === "number" && Number.isFinite(v)) out[k] = v;
    else if (typeof v === "boolean") out[k] = v ? 1 : 0;
  }
  const usage = (entry.response as { usage?: Record<string, unknown> } | undefined)?.usage;
  if (usage && typeof usage === "object") {
    for (const [k, v] of Object.entries(usage)) if (typeof v === "number" && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

function stats(values: number[]): Record<(typeof STATS)[number], number> {
  const n = values.length;
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const median = n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  const std = n > 1 ? Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : Number.NaN;
  return { mean, max: sorted[n - 1]!, min: sorted[0]!, median, std };
}

/** `{stat}/{field}` over rows, with the §12 NaN rule for std; null/NaN values dropped. */
function columnStats(rows: Record<string, number>[]): Record<string, number> {
  const cols = new Map<string, number[]>();
  for (const r of rows) {
    for (const [k, v] of Object.entries(r)) {
      const col = cols.get(k);
      if (col) col.push(v);
      else cols.set(k, [v]);
    }
  }
  const out: Record<string, number> = {};
  const perCol = [...cols].map(([k, vs]) => [k, vs, stats(vs)] as const);
  const allStdNaN = perCol.length > 0 && perCol.every(([, , s]) => Number.isNaN(s.std));
  for (const [k, vs, s] of perCol) {
    for (const stat of STATS) {
      let v = s[stat];
      if (stat === "std" && Number.isNaN(v) && allStdNaN && vs.length === rows.length) v = 0;
      if (!Number.isNaN(v)) out[`${stat}/${k}`] = v;
    }
  }
  return out;
}

/** The default aggregate metrics of runtime §12 (without a server `compute_metrics` hook). */
export function computeAggregateMetrics(entries: VerifyResponse[]): AggregateMetrics {
  if (entries.length === 0) return { group_level_metrics: [], agent_metrics: {}, key_metrics: {} };
  const byTask = new Map<number, { rollout: number; numeric: Record<string, number> }[]>();
  const seen = new Set<string>();
  for (const e of entries) {
    const task = typeof e._ng_task_index === "number" ? e._ng_task_index : 0;
    const rollout = typeof e._ng_rollout_index === "number" ? e._ng_rollout_index : 0;
    const key = `${task}:${rollout}`;
    if (seen.has(key)) throw new Error(`Duplicate verify response row for rollout key (${task}, ${rollout})`);
    seen.add(key);
    const list = byTask.get(task) ?? [];
    list.push({ rollout, numeric: numericFields(e) });
    byTask.set(task, list);
  }
  const group_level_metrics: Record<string, unknown>[] = [];
  for (const task of [...byTask.keys()].sort((a, b) => a - b)) {
    const list = byTask.get(task)!.sort((a, b) => a.rollout - b.rollout);
    const n = list.length;
    group_level_metrics.push({
      ...columnStats(list.map((l) => l.numeric)),
      _ng_task_index: task,
      sample: { agent_ref: { name: "agent" } },
      num_rollouts: n,
      expected_num_rollouts: n,
      missing_num_rollouts: 0,
      reward_profile_completion_pct: 100.0,
      rollout_infos: list.map((l) => ({ rollout_id: `${task}:${l.rollout}`, _ng_task_index: task, _ng_rollout_index: l.rollout, ...l.numeric })),
    });
  }
  const agent_metrics = columnStats([...byTask.values()].flat().map((l) => l.numeric));
  return { group_level_metrics, agent_metrics, key_metrics: keyMetrics(agent_metrics) };
}

/** Default `get_key_metrics`: every `mean/…` entry. */
export function keyMetrics(agentMetrics: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(agentMetrics)) if (k.startsWith("mean/") && typeof v === "number") out[k] = v;
  return out;
}

function comb(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** Unbiased pass@k for one task with `c` correct of `n` (binary scores). */
export function passAtK(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  return 1 - comb(n - c, k) / comb(n, k);
}

/**
 * `compute_pass_majority_metrics` (runtime §12): pass@k, pass@1[avg-of-k] and, with an answer
 * key, majority@k over tasks (each a list of rollouts), as percentages.
 */
export function passMajorityMetrics(
  tasks: VerifyResponse[][],
  scoreFn: (r: VerifyResponse) => number,
  name = "accuracy",
  answerKey?: string,
): Record<string, number> {
  const out: Record<string, number> = {};
  if (tasks.length === 0) return out;
  const kMax = Math.min(...tasks.map((t) => t.length));
  const scores = tasks.map((t) => t.map(scoreFn));
  const binary = scores.every((s) => s.every((v) => v === 0 || v === 1));
  for (let k = 1; k <= kMax; k++) {
    let pass = 0;
    let avg = 0;
    let maj = 0;
    for (let i = 0; i < tasks.length; i++) {
      const s = scores[i]!;
      pass += binary ? passAtK(s.length, s.filter((v) => v === 1).length, k) : Math.max(...s.slice(0, k));
      avg += s.slice(0, k).reduce((a, b) => a + b, 0) / k;
      if (answerKey) {
        const votes = new Map<string, number[]>();
        for (const r of tasks[i]!.slice(0, k)) {
          const a = r[answerKey];
          if (a === undefined || a === null) continue;
          const key = JSON.stringify(a);
          votes.set(key, [...(votes.get(key) ?? []), scoreFn(r)]);
        }
        const top = Math.max(0, ...[...votes.values()].map((v) => v.length));
        const winners = [...votes.values()].filter((v) => v.length === top && top > 0);
        // Ties are averaged over the tied answers.
        if (winners.length > 0) maj += winners.reduce((a, v) => a + v[0]!, 0) / winners.length;
      }
    }
    out[`pass@${k}/${name}`] = (100 * pass) / tasks.length;
    out[`pass@1[avg-of-${k}]/${name}`] = (100 * avg) / tasks.length;
    if (answerKey) out[`majority@${k}/${name}`] = (100 * maj) / tasks.length;
  }
  return out;
}
