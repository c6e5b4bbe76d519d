/**
 * One rollout's wire shapes: the `/run` request body for a materialized row (flat, or the
 * native episode envelope of runtime §10.2) and the routing of its outcome to the main output,
 * the failures sidecar as a typed record (D21, §11.4–§11.6), or nowhere (`_ng_no_persist`).
 */
import { maskUrlSecrets } from "../util/url-secrets.ts";
import { failureOrigin, INVALID_MODEL_RESPONSE } from "../servers/failure-origin.ts";
import type { PostOutcome } from "./http.ts";
import type { RunTarget } from "./targets.ts";

/** A materialized input row (runtime §11.3). */
export type Row = Record<string, unknown>;

/** D21 failure types. */
export type FailureCategory = "infra" | "timeout" | "model" | "verifier" | "data";

/**
 * Where a finished rollout goes. An output record may come with `line`: its JSON line already
 * made from the answer's text (see splicedLine), valid while the record is not changed.
 */
export type Routed = { dest: "output"; record: Row; line?: string } | { dest: "failures"; record: Row } | { dest: "none" };

/** The agent label of a row (its `agent_ref.name`, else the environment server it is routed to). */
export function agentOf(row: Row): string {
  return (row.agent_ref as { name?: string } | undefined)?.name ?? (typeof row._ng_environment_server === "string" ? row._ng_environment_server : "");
}

/** Capture id of a row (runtime §14): `_ng_rollout_id` or `t-r`, plus `-aN` for attempts > 0. */
export function rolloutIdOf(row: Row): string {
  const base = typeof row._ng_rollout_id === "string" ? row._ng_rollout_id : `${row._ng_task_index}-${row._ng_rollout_index}`;
  const attempt = Number(row._ng_attempt_index ?? 0);
  return attempt > 0 ? `${base}-a${attempt}` : base;
}

const STAMP_KEYS = ["_ng_attempt_index", "_ng_rollout_id", "skills_ref", "task_source"] as const;

function stamps(row: Row, target: RunTarget): Row {
  const out: Row = { _ng_task_index: row._ng_task_index, _ng_rollout_index: row._ng_rollout_index };
  if (row.agent_ref !== undefined) out.agent_ref = row.agent_ref;
  for (const k of STAMP_KEYS) if (row[k] !== undefined) out[k] = row[k];
  out._ng_environment_server = target.server;
  out._ng_result_type = target.implementation;
  return out;
}

const NON_TASK_KEYS = new Set(["responses_create_params", "agent_ref", "task_id", "task_input"]);

/**
 * The JSON line a row was read from, when that line is exactly `JSON.stringify(row)` (a
 * materialized file this run wrote, and the row not changed since): `/run` sends it as is
 * instead of serialising the row again. Whoever changes such a row deletes its entry.
 */
export const verbatimLines = new WeakMap<Row, string>();

/** The `/run` body for a row: the row itself, or the native episode request for native servers. */
export function runRequestBody(row: Row, target: RunTarget): string {
  if (!target.native) return verbatimLines.get(row) ?? JSON.stringify(row);
  const rolloutId = typeof row._ng_rollout_id === "string" ? row._ng_rollout_id : `${row._ng_task_index}-${row._ng_rollout_index}`;
  const agent = (row.agent_ref as { name?: string } | undefined)?.name ?? target.server;
  const taskId = row.task_id && typeof row.task_id === "object" ? row.task_id : { taskset: agent, task_id: String(row._ng_task_index) };
  let taskInput = row.task_input;
  if (!taskInput || typeof taskInput !== "object") {
    const taskData: Row = {};
    for (const [k, v] of Object.entries(row)) if (!NON_TASK_KEYS.has(k) && !k.startsWith("_ng_")) taskData[k] = v;
    taskInput = { responses_create_params: row.responses_create_params ?? {}, task_data: taskData };
  }
  return JSON.stringify({ episode_id: { rollout_id: rolloutId, attempt: Number(row._ng_attempt_index ?? 0) }, task: { task_id: taskId, task_input: taskInput } });
}

/**
 * Map an upstream failure class / kind / stage to the D21 type (runtime §11.4 table). `body` is
 * the raw answer of a failed `/run`: when its innermost failing hop is a model server (the
 * `<Class>___<instance>` token upstream 500 bodies carry, servers/failure-origin.ts), a flat
 * row's `agent_run_error` is a `model` failure, like a native episode's agent-stage failure
 * (`timeout` when that model call ran out of time); a resources server's own `/verify`
 * failure is `verifier`.
 */
export function failureCategory(f: { cls?: string; kind?: string; stage?: string; status?: number; message?: string; body?: string }): FailureCategory {
  const msg = f.message ?? "";
  if (f.kind === "judge_failed" || f.cls === "judge_failed") return "verifier";
  if (f.cls === "timeout_exceeded" || f.kind === "timeout_exceeded" || /^Episode (admission )?timed out/.test(msg)) return "timeout";
  if (f.cls && ["skipped", "reference_missing", "eval_missing"].includes(f.cls)) return "data";
  if (f.cls === "agent_run_error") {
    if (f.status === 422) return "data";
    return f.body === undefined ? "infra" : (originCategory(f.body) ?? "infra");
  }
  if (f.cls === "environment_server_failed") {
    // The agent's turn is the model's: a model call that ran out of time is a timeout, like on flat rows.
    if (f.stage === "agent") return failureOrigin(msg)?.timedOut ? "timeout" : "model";
    if (f.stage === "verification") return "verifier";
    if (f.stage === "admission") return "timeout";
    return "infra";
  }
  return "infra";
}

/**
 * The type a failed body's origin gives: a model server → `model` (`timeout` when its call ran
 * out of time), simple_agent's invalid-model-answer error → `model`, a resources server's own
 * `/verify` failure → `verifier`; undefined otherwise.
 */
function originCategory(body: string): FailureCategory | undefined {
  const o = failureOrigin(body);
  if (o?.kind === "model") return o.timedOut ? "timeout" : "model";
  if (o?.kind === "resources" && o.own) return "verifier";
  if (body.includes(INVALID_MODEL_RESPONSE)) return "model";
  // A hop between gym's servers ran out of request_timeout_seconds. With one timeout on every hop the
  // outermost deadline fires first, so a hung model endpoint often surfaces this way, not as the
  // model server's own timeout: either way a deadline fired.
  return HOP_TIMEOUT.test(body) ? "timeout" : undefined;
}

/** The relayed error of a gym hop whose deadline fired (HttpClient's RequestFailedError message). */
const HOP_TIMEOUT = /TimeoutError\(.*timed out after [0-9.]+s \(request_timeout_seconds\)/;

function truncate(s: string | undefined, n = 2000): string | undefined {
  return s === undefined ? undefined : s.length > n ? s.slice(0, n) : s;
}

function failure(row: Row, target: RunTarget, fields: Row, elapsedMs: number): Routed {
  const record: Row = { ...stamps(row, target), ...fields, elapsed_seconds: Math.round(elapsedMs) / 1000 };
  for (const k of Object.keys(record)) {
    if (record[k] === undefined) delete record[k];
    // D39: messages and bodies quote URLs; credentials in them stay out of the failures file.
    else if (k.startsWith("_ng_failure_") && typeof record[k] === "string") record[k] = maskUrlSecrets(record[k] as string);
  }
  return { dest: "failures", record };
}

function parseObject(text: string): Row | undefined {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Row) : undefined;
  } catch {
    return undefined;
  }
}

/** Route the outcome of one `/run` call. */
export function routeOutcome(row: Row, target: RunTarget, outcome: PostOutcome): Routed {
  if (outcome.kind === "aborted") return { dest: "none" };
  if (outcome.kind === "timeout") {
    return failure(row, target, { _ng_failure_class: "agent_request_failed", _ng_failure_type: "TimeoutError", _ng_failure_message: outcome.message, _ng_failure_category: "timeout" }, outcome.elapsedMs);
  }
  if (outcome.kind === "unreachable") {
    return failure(
      row,
      target,
      {
        _ng_failure_class: "agent_request_failed",
        _ng_failure_type: outcome.lastStatus === undefined ? "ClientConnectorError" : "ClientResponseError",
        _ng_failure_message: outcome.message,
        _ng_failure_http_status: outcome.lastStatus,
        _ng_failure_response_body: truncate(outcome.lastText),
        _ng_failure_category: "infra",
      },
      outcome.elapsedMs,
    );
  }
  const { status, text, elapsedMs } = outcome;
  if (status < 200 || status >= 300) {
    return failure(
      row,
      target,
      {
        _ng_failure_class: "agent_run_error",
        _ng_failure_type: "ClientResponseError",
        _ng_failure_message: `${status}, url='${target.runUrl}'`,
        _ng_failure_http_status: status,
        _ng_failure_response_body: truncate(text),
        _ng_failure_category: failureCategory({ cls: "agent_run_error", status, body: text }),
      },
      elapsedMs,
    );
  }
  const body = parseObject(text);
  if (!body) {
    return failure(
      row,
      target,
      { _ng_failure_class: "agent_run_error", _ng_failure_type: "JSONDecodeError", _ng_failure_message: `/run answered ${status} with a body that is not a JSON object`, _ng_failure_http_status: status, _ng_failure_response_body: truncate(text), _ng_failure_category: "infra" },
      elapsedMs,
    );
  }
  // Native episode envelope (§10.2): exactly one of result / failure.
  if ("episode_id" in body && ("result" in body || "failure" in body)) {
    const taskId = (body.task_id as Row | undefined) ?? undefined;
    const f = body.failure as Row | null | undefined;
    if (f && typeof f === "object") {
      const message = String(f.failure_reason ?? f.message ?? "");
      const stage = typeof f.stage === "string" ? f.stage : undefined;
      const kind = typeof f.failure_kind === "string" ? f.failure_kind : undefined;
      return failure(
        row,
        target,
        {
          _ng_task_id: taskId,
          _ng_failure_class: "environment_server_failed",
          _ng_failure_message: truncate(message),
          _ng_failure_terminal: f.terminal === true ? true : undefined,
          _ng_failure_stage: stage,
          _ng_failure_kind: kind,
          _ng_failure_partial_response: f.partial_response,
          _ng_failure_category: failureCategory({ cls: "environment_server_failed", stage, kind, message }),
        },
        elapsedMs,
      );
    }
    const result = (body.result as Row | null | undefined) ?? {};
    return { dest: "output", record: { ...result, _ng_task_id: taskId, ...stamps(row, target) } };
  }
  if (body._ng_no_persist) return { dest: "none" };
  if (typeof body._ng_failure_class === "string") {
    const cls = body._ng_failure_class;
    const rec: Row = { ...body, ...stamps(row, target) };
    rec._ng_failure_category = failureCategory({
      cls,
      kind: typeof body._ng_failure_kind === "string" ? body._ng_failure_kind : undefined,
      stage: typeof body._ng_failure_stage === "string" ? body._ng_failure_stage : undefined,
      status: typeof body._ng_failure_http_status === "number" ? body._ng_failure_http_status : undefined,
      message: typeof body._ng_failure_message === "string" ? body._ng_failure_message : undefined,
    });
    // A sidecar row never carries the trajectory payloads (they can be megabytes).
    delete rec.ng_trajectory;
    rec.elapsed_seconds = Math.round(elapsedMs) / 1000;
    return { dest: "failures", record: rec };
  }
  const stamped = stamps(row, target);
  return { dest: "output", record: { ...body, ...stamped }, line: splicedLine(text, body, stamped) };
}

/**
 * The output line `{...body, ...stamped}` made by appending the stamps to the answer's own text
 * instead of serialising the whole record again (the driver's largest cost after parsing). Only
 * when that is exactly equivalent: the text is one line holding a non-empty object, and no stamp
 * key is in the body (a spread would overwrite it in place). The text keeps the server's number
 * spelling (`1.0`, integers beyond 2^53), as upstream's Python writer would.
 */
function splicedLine(text: string, body: Row, stamped: Row): string | undefined {
  for (const k in stamped) if (k in body) return undefined;
  if (text.includes("\n") || text.includes("\r")) return undefined;
  const end = text.lastIndexOf("}");
  const start = text.indexOf("{");
  if (start < 0 || end <= start || text.slice(start + 1, end).trim() === "") return undefined;
  return `${text.slice(start, end).trimEnd()},${JSON.stringify(stamped).slice(1)}`;
}
