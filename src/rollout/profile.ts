/**
 * `gym eval profile` (upstream `ng_reward_profile`): per-task reward statistics joined with the
 * task's input row, and per-agent statistics, from a run's materialized inputs and rollouts.
 * Writes `<rollouts stem>_reward_profiling.jsonl` and `<rollouts stem>_agent_metrics.json`.
 */
import { writeFileSync } from "node:fs";
import { RuntimeError } from "../errors.ts";
import { pairKey } from "./journal.ts";
import { readJsonl } from "../util/jsonl.ts";
import { computeAggregateMetrics } from "./metrics.ts";
import { outputStem } from "./paths.ts";

/** What the profile wrote. */
export interface ProfileResult {
  profilingPath: string;
  agentMetricsPath: string;
  groups: Record<string, unknown>[];
  agents: Record<string, unknown>[];
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** Build the reward profile; missing rollouts are an error unless `allowPartial`. */
export async function rewardProfile(materializedPath: string, rolloutsPath: string, allowPartial = false): Promise<ProfileResult> {
  const results = new Map<number, Record<string, unknown>>();
  for await (const { value, lineNo } of readJsonl(rolloutsPath)) {
    results.set(pairKey(Number(value._ng_task_index ?? 0), Number(value._ng_rollout_index ?? 0), { file: rolloutsPath, line: lineNo }), value);
  }
  const firstRow = new Map<number, Record<string, unknown>>();
  const byAgent = new Map<string, Record<string, unknown>[]>();
  const byTask = new Map<number, Record<string, unknown>[]>();
  let missing = 0;
  let expected = 0;
  for await (const { value: row, lineNo } of readJsonl(materializedPath)) {
    expected++;
    const t = Number(row._ng_task_index ?? 0);
    const r = Number(row._ng_rollout_index ?? 0);
    const result = results.get(pairKey(t, r, { file: materializedPath, line: lineNo }));
    if (!result) {
      missing++;
      continue;
    }
    if (!firstRow.has(t)) {
      const { _ng_task_index: _t, _ng_rollout_index: _r, ...sample } = row;
      firstRow.set(t, sample);
    }
    const agent = (row.agent_ref as { name?: string } | undefined)?.name ?? "agent";
    const entry = { ...result, _ng_task_index: t, _ng_rollout_index: r };
    push(byAgent, agent, entry);
    push(byTask, t, entry);
  }
  if (missing > 0 && !allowPartial) {
    throw new RuntimeError(`${missing} of ${expected} materialized rollouts have no result in ${rolloutsPath}`, {
      hint: "finish the run (gym eval run --resume) or pass +allow_partial_rollouts=true",
    });
  }
  const all = [...byTask.values()].flat();
  const groups = computeAggregateMetrics(all).group_level_metrics.map((g) => {
    const { _ng_task_index: t, sample: _s, num_rollouts: _n, expected_num_rollouts: _e, missing_num_rollouts: _m, reward_profile_completion_pct: _p, rollout_infos: _i, ...stats } = g;
    return { ...stats, sample: firstRow.get(Number(t)) };
  });
  const agents = [...byAgent].map(([name, entries]) => ({ ...computeAggregateMetrics(entries).agent_metrics, agent_ref: { name } }));
  const stem = outputStem(rolloutsPath);
  const profilingPath = `${stem}_reward_profiling.jsonl`;
  const agentMetricsPath = `${stem}_agent_metrics.json`;
  writeFileSync(profilingPath, groups.map((g) => JSON.stringify(g)).join("\n") + (groups.length ? "\n" : ""));
  writeFileSync(agentMetricsPath, JSON.stringify(agents));
  return { profilingPath, agentMetricsPath, groups, agents };
}
