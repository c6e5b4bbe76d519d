/**
 * The default `/aggregate_metrics` computation (runtime §12) and the pass@k / majority helper,
 * as pure functions over verify responses. Resources servers answer `/aggregate_metrics` with
 * it; the driver uses it (through rollout/metrics.ts) when an environment server has none of
 * its own, and `gym eval profile` / `aggregate` reuse it. It lives in verify/ because both
 * servers/ and rollout/ need it and servers must not depend on rollout (DESIGN.md flow).
 */
import { ConfigError } from "../errors.ts";

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

/** A server's own metric hooks (upstream `compute_metrics` / `get_key_metrics`). */
export interface MetricHooks {
  /** Metrics over every rollout grouped by task, merged into agent_metrics (`per_task_metrics` go to the groups). */
  computeMetrics?(tasks: VerifyResponse[][]): Record<string, unknown>;
  /** Headline metrics from agent_metrics (default: every `mean/…`). */
  keyMetrics?(agentMetrics: Record<string, unknown>): Record<string, unknown>;
}

/** The aggregate metrics of runtime §12, with a server's `compute_metrics` / `get_key_metrics` hooks when given. */
export function computeAggregateMetrics(entries: VerifyResponse[], hooks: MetricHooks = {}): AggregateMetrics {
  const base = defaultAggregateMetrics(entries);
  if (entries.length === 0 || (!hooks.computeMetrics && !hooks.keyMetrics)) return base;
  const agent: Record<string, unknown> = { ...base.agent_metrics };
  if (hooks.computeMetrics) {
    const byTask = new Map<number, VerifyResponse[]>();
    for (const e of entries) {
      const t = typeof e._ng_task_index === "number" ? e._ng_task_index : 0;
      const list = byTask.get(t) ?? [];
      list.push(e);
      byTask.set(t, list);
    }
    const custom = { ...hooks.computeMetrics([...byTask.keys()].sort((a, b) => a - b).map((t) => byTask.get(t)!)) };
    const perTask = custom.per_task_metrics as Record<string, unknown>[] | undefined;
    delete custom.per_task_metrics;
    if (Array.isArray(perTask)) {
      const byIdx = new Map(perTask.map((m) => [m._ng_task_index, m]));
      for (const g of base.group_level_metrics) {
        const m = byIdx.get(g._ng_task_index);
        if (m) for (const [k, v] of Object.entries(m)) if (k !== "_ng_task_index") g[k] = v;
      }
    }
    Object.assign(agent, custom);
  }
  const key = hooks.keyMetrics ? hooks.keyMetrics(agent) : keyMetrics(agent);
  return { group_level_metrics: base.group_level_metrics, agent_metrics: agent as Record<string, number>, key_metrics: key as Record<string, number> };
}

/** Upstream `highest_k_metrics`: the entries of `pattern` (with `{k}`) at the highest k, stat suffixes skipped. */
export function highestKMetrics(agentMetrics: Record<string, unknown>, pattern: string, opts: { scoreNames?: string[]; excludeNames?: string[] } = {}): Record<string, unknown> {
  const esc = pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace("\\{k\\}", "(\\d+)");
  const re = new RegExp(`^${esc}/(.+)$`);
  const hits: [number, string][] = [];
  for (const key of Object.keys(agentMetrics)) {
    const m = re.exec(key);
    if (!m) continue;
    const name = m[2]!;
    if (["std_dev_across_runs", "std_err_across_runs", "avg_sample_std_dev"].some((s) => name.endsWith(s))) continue;
    if (opts.scoreNames && !opts.scoreNames.includes(name)) continue;
    if (opts.excludeNames?.includes(name)) continue;
    hits.push([Number(m[1]), key]);
  }
  if (hits.length === 0) return {};
  const maxK = Math.max(...hits.map(([k]) => k));
  const out: Record<string, unknown> = {};
  for (const [k, key] of hits) if (k === maxK) out[key] = agentMetrics[key];
  return out;
}

function defaultAggregateMetrics(entries: VerifyResponse[]): AggregateMetrics {
  if (entries.length === 0) return { group_level_metrics: [], agent_metrics: {}, key_metrics: {} };
  const byTask = new Map<number, { rollout: number; numeric: Record<string, number> }[]>();
  const seen = new Set<string>();
  for (const e of entries) {
    const task = typeof e._ng_task_index === "number" ? e._ng_task_index : 0;
    const rollout = typeof e._ng_rollout_index === "number" ? e._ng_rollout_index : 0;
    const key = `${task}:${rollout}`;
    if (seen.has(key)) {
      throw new ConfigError(`Duplicate verify response row for rollout key (${task}, ${rollout})`, {
        hint: "each (task, rollout) pair may appear once: shards given to `gym eval aggregate` must not overlap (check the -i globs)",
      });
    }
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

/** Scores of one rollout by name (booleans count as 0/1). */
export type ScoreFn = (r: VerifyResponse) => Record<string, number | boolean>;

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/**
 * `compute_pass_majority_metrics` (runtime §12): over tasks (each a list of rollouts) and every
 * score name, `pass@k` (unbiased for binary scores, max of the first k otherwise),
 * `pass@1[avg-of-k]`, `majority@k` and `no_answer` when an answer key is given,
 * `per_sample_aggregate`, and the across-run spread. Values are percentages.
 */
export function passMajorityMetrics(tasks: VerifyResponse[][], scoreFn: ScoreFn = (r) => ({ accuracy: Number(r.reward ?? 0) }), answerKey?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (tasks.length === 0) return out;
  const maxK = Math.max(...tasks.map((t) => t.length));
  const scores: Record<string, number>[][] = [];
  const answers: unknown[][] = [];
  for (const rollouts of tasks) {
    const ts: Record<string, number>[] = [];
    const ta: unknown[] = [];
    for (const r of rollouts) {
      const s: Record<string, number> = {};
      for (const [k, v] of Object.entries(scoreFn(r))) s[k] = typeof v === "boolean" ? Number(v) : v;
      if (answerKey !== undefined) {
        const a = r[answerKey] ?? null;
        ta.push(a);
        s.no_answer = a === null ? 1 : 0;
      }
      ts.push(s);
    }
    scores.push(ts);
    answers.push(ta);
  }
  const names = [...new Set(scores.flatMap((t) => t.flatMap((s) => Object.keys(s))))].sort();
  for (let k = 1; k <= maxK; k++) {
    for (const name of names) {
      const pass: number[] = [];
      const avg: number[] = [];
      const maj: number[] = [];
      scores.forEach((ts, i) => {
        const vals = ts.filter((s) => name in s).map((s) => s[name]!);
        if (vals.length > 0 && k <= vals.length) {
          if (vals.every((v) => v === 0 || v === 1)) pass.push(passAtK(vals.length, vals.filter((v) => v !== 0).length, k));
          else pass.push(Math.max(...vals.slice(0, k)));
        }
        const firstK = ts.slice(0, k).filter((s) => name in s).map((s) => s[name]!);
        if (firstK.length > 0) avg.push(mean(firstK));
        if (answerKey !== undefined) {
          const votes = new Map<string, { n: number; score: number }>();
          ts.slice(0, k).forEach((s, j) => {
            const a = answers[i]![j];
            if (a === null || !(name in s)) return;
            // A vote is the (answer, score) pair, as upstream counts them.
            const key = JSON.stringify([a, s[name]]);
            const v = votes.get(key) ?? { n: 0, score: s[name]! };
            v.n++;
            votes.set(key, v);
          });
          if (votes.size === 0) maj.push(0);
          else {
            const top = Math.max(...[...votes.values()].map((v) => v.n));
            const tied = [...votes.values()].filter((v) => v.n === top);
            maj.push(mean(tied.map((v) => v.score)));
          }
        }
      });
      if (pass.length > 0) out[`pass@${k}/${name}`] = 100 * mean(pass);
      if (avg.length > 0) out[`pass@1[avg-of-${k}]/${name}`] = 100 * mean(avg);
      if (maj.length > 0) out[`majority@${k}/${name}`] = 100 * mean(maj);
    }
  }
  const perSample: Record<string, number[]> = {};
  for (let run = 0; run < maxK; run++) {
    for (const name of names) {
      const vals = scores.filter((ts) => run < ts.length && name in ts[run]!).map((ts) => ts[run]![name]!);
      if (vals.length > 0) (perSample[name] ??= []).push(100 * mean(vals));
    }
  }
  out.per_sample_aggregate = perSample;
  for (let k = 2; k <= maxK; k++) {
    for (const name of names) {
      const runs = (perSample[name] ?? []).slice(0, k);
      if (runs.length < 2) continue;
      const m = mean(runs);
      const sd = Math.sqrt(runs.reduce((a, x) => a + (x - m) ** 2, 0) / (runs.length - 1));
      out[`pass@1[avg-of-${k}]/${name}/std_dev_across_runs`] = sd;
      out[`pass@1[avg-of-${k}]/${name}/std_err_across_runs`] = sd / Math.sqrt(runs.length);
    }
  }
  return out;
}
