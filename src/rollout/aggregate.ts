/**
 * The aggregation step (runtime §11.9): group the persisted rollouts by environment server,
 * POST each group to that server's `/aggregate_metrics`, and write `<stem>_aggregate_metrics.json`.
 * A server without the route (or not reachable, e.g. `gym eval aggregate` after the servers are
 * gone) is aggregated locally with the default computation of §12, with a warning.
 */
import { log } from "../log.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { postJson } from "./http.ts";
import { readJsonl } from "../util/jsonl.ts";
import { computeAggregateMetrics, keyMetrics, type AggregateMetrics, type VerifyResponse } from "./metrics.ts";

/** Payload keys removed before `/aggregate_metrics` (§11.9 step 2). */
const HEAVY_KEYS = ["response", "responses_create_params", "ng_agent_observations", "ng_model_call_capture", "ng_trajectory"];

/** One entry of the aggregate-metrics file. */
export interface AggregateEntry extends AggregateMetrics {
  agent_ref: { name: string };
  _ng_environment_server?: string;
}

/** Reduce a rollout record to its verify response for aggregation. */
export function toVerifyResponse(record: Record<string, unknown>): VerifyResponse {
  const out: VerifyResponse = {};
  // Undefined values are skipped: a record read back from its JSON line has no such keys.
  for (const k in record) if (!HEAVY_KEYS.includes(k) && record[k] !== undefined) out[k] = record[k];
  const resp = record.response as Record<string, unknown> | undefined;
  if (resp && typeof resp === "object") {
    const small: Record<string, unknown> = {};
    if (resp.usage !== undefined) small.usage = resp.usage;
    if (resp.incomplete_details !== undefined) small.incomplete_details = resp.incomplete_details;
    if (Object.keys(small).length > 0) out.response = small;
  }
  return out;
}

/** A group of rollouts that share an environment server (or agent, for records without the stamp). */
export interface RolloutGroup {
  key: string;
  agent: string;
  server: string | undefined;
  entries: VerifyResponse[];
}

/**
 * Groups rollout records by environment server (or agent) as they come, keeping only their reduced
 * entries: fed from files (`groupRollouts`), or by the driver as it writes each record, so a fresh
 * run aggregates without reading and parsing its whole output again.
 */
export class RolloutGrouper {
  private readonly groups = new Map<string, RolloutGroup>();

  /** Add one record (in output-file order). */
  add(record: Record<string, unknown>): void {
    const agent = (record.agent_ref as { name?: string } | undefined)?.name ?? "agent";
    const server = typeof record._ng_environment_server === "string" ? record._ng_environment_server : undefined;
    const key = server ?? agent;
    let g = this.groups.get(key);
    if (!g) this.groups.set(key, (g = { key, agent, server, entries: [] }));
    g.entries.push(toVerifyResponse(record));
  }

  /** The groups, in order of first appearance. */
  result(): RolloutGroup[] {
    return [...this.groups.values()];
  }
}

/** Read rollout files and group their records (streaming; only the reduced entries stay in memory). */
export async function groupRollouts(files: string[]): Promise<RolloutGroup[]> {
  const grouper = new RolloutGrouper();
  for (const f of files) for await (const { value } of readJsonl(f)) grouper.add(value);
  return grouper.result();
}

/** Where to POST a group's `/aggregate_metrics`, if anywhere. */
export type AggregateUrlFor = (group: RolloutGroup) => string | undefined;

async function metricsFor(group: RolloutGroup, baseUrl: string | undefined): Promise<AggregateMetrics> {
  if (baseUrl) {
    const url = `${baseUrl}/aggregate_metrics`;
    const out = await postJson(url, JSON.stringify({ verify_responses: group.entries }), { timeoutMs: 600_000, retryBudgetMs: 30_000 });
    if (out.kind === "response" && out.status >= 200 && out.status < 300) {
      try {
        const m = JSON.parse(out.text) as AggregateMetrics;
        if (m && typeof m === "object" && m.agent_metrics) return m;
      } catch {
        /* fall through to the local computation */
      }
    }
    const why = out.kind === "response" ? `HTTP ${out.status}` : out.kind === "aborted" ? "aborted" : out.message;
    log.warn(`POST ${url} did not give aggregate metrics (${why}); computing the default metrics locally`);
  }
  return computeAggregateMetrics(group.entries);
}

/** Aggregate every group, print key metrics, write the file; returns entries and the flat export dict. */
export async function aggregate(groups: RolloutGroup[], dest: string, urlFor: AggregateUrlFor): Promise<{ entries: AggregateEntry[]; flat: Record<string, unknown> }> {
  const entries: AggregateEntry[] = [];
  const flat: Record<string, unknown> = {};
  for (const g of groups) {
    const m = await metricsFor(g, urlFor(g));
    const key_metrics = m.key_metrics ?? keyMetrics(m.agent_metrics);
    const entry: AggregateEntry = { agent_ref: { name: g.agent }, ...(g.server ? { _ng_environment_server: g.server } : {}), agent_metrics: m.agent_metrics, key_metrics, group_level_metrics: m.group_level_metrics };
    entries.push(entry);
    process.stderr.write(`Key metrics for ${g.agent}:\n${JSON.stringify(key_metrics, null, 2)}\n`);
    for (const [k, v] of Object.entries(m.agent_metrics ?? {})) if (v === null || typeof v !== "object") flat[`${g.agent}/${k}`] = v;
    for (const [k, v] of Object.entries(key_metrics)) flat[`key_metrics/${g.agent}/${k}`] = v;
  }
  writeFileAtomic(dest, `${JSON.stringify(entries, null, 2)}\n`);
  return { entries, flat };
}
