/**
 * What the viewer keeps of one rollout (or failure) row: the few fields the list filters and sorts on.
 * Pure and shared by the server and the page bundle, so both sides agree on what a row means.
 */

/** One row of a viewed file, as the list and the summary use it. */
export interface RowMeta {
  /** 1-based line number in its file. */
  line: number;
  /** 0 = the rollouts file, 1 = the failures sidecar beside it. */
  src: 0 | 1;
  /** `_ng_task_index`, when present. */
  task: number | null;
  /** `_ng_rollout_index`, when present. */
  rollout: number | null;
  /** The agent's name (`agent_ref.name`), or "" when the row names none. */
  agent: string;
  /** `reward`, or null for failures and rows without a numeric reward. */
  reward: number | null;
  /** D21 failure type (`_ng_failure_category`, else `_ng_failure_class`), null for successes. */
  failure: string | null;
  /** `response.usage.total_tokens` (or input + output), when present. */
  tokens: number | null;
  /** Seconds the rollout took, when the row records it. */
  latency: number | null;
}

/** Keys under which rows may carry their duration in seconds (gym and upstream variants). */
const LATENCY_KEYS = ["_ng_rollout_latency_s", "_ng_latency_s", "latency_s", "elapsed_s", "latency"] as const;

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function obj(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** The viewer's summary of a parsed row. */
export function rowMeta(row: Record<string, unknown>, line: number, src: 0 | 1): RowMeta {
  const agentRef = obj(row.agent_ref);
  const usage = obj(obj(row.response)?.usage);
  let tokens = num(usage?.total_tokens);
  if (tokens === null && usage) {
    const i = num(usage.input_tokens), o = num(usage.output_tokens);
    if (i !== null || o !== null) tokens = (i ?? 0) + (o ?? 0);
  }
  let latency: number | null = null;
  for (const k of LATENCY_KEYS) if ((latency = num(row[k])) !== null) break;
  const failureName = row._ng_failure_category ?? row._ng_failure_class;
  const failure = typeof failureName === "string" ? failureName : src === 1 ? "unknown" : null;
  return {
    line,
    src,
    task: num(row._ng_task_index),
    rollout: num(row._ng_rollout_index),
    agent: typeof agentRef?.name === "string" ? agentRef.name : "",
    reward: failure === null ? num(row.reward) : null,
    failure,
    tokens,
    latency,
  };
}

/** Text of a row that free-text search looks at: prompts, outputs, tool calls and their results. */
export function searchText(row: Record<string, unknown>): string {
  const parts: string[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8) return;
    if (typeof v === "string") parts.push(v);
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      for (const k of ["content", "text", "arguments", "output", "name", "summary", "input"]) if (k in o) walk(o[k], depth + 1);
    }
  };
  walk(obj(row.responses_create_params)?.input, 0);
  walk(obj(row.response)?.output, 0);
  for (const k of ["_ng_failure_message", "extracted_answer", "expected_answer"]) walk(row[k], 0);
  return parts.join("\n").toLowerCase();
}
