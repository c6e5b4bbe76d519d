/**
 * single_agent_turn_legacy (components.md §1.3h): the single_agent_turn episode behind the old
 * flat `/run` contract. A flat dataset row (or a native request) goes in; the flat verify row comes
 * out, with failures as `_ng_failure_*` fields, so legacy collectors and rows work unchanged.
 */
import type { RequestContext, Route, ServerApp } from "../runtime/http/http-types.ts";
import { PATHS } from "./episode-protocol.ts";
import { aggregateMetricsRoute, singleAgentTurnRunner, type SingleTurnOptions } from "./environment-single-turn.ts";
import { pyError } from "./py-error.ts";

type Obj = Record<string, unknown>;

/** Row keys that are bookkeeping, not task data. */
const NOT_TASK_DATA = new Set(["responses_create_params", "agent_ref", "task_source", "skills_ref"]);

/** Build the native episode request for a flat row (upstream's rules for task ids and rollout ids). */
export function nativeRequestFromRow(row: Obj, opts: SingleTurnOptions): Obj {
  const { config, instanceName } = opts;
  const taskSource = row.task_source ?? config.resourcesServer;
  if (typeof taskSource !== "string" || taskSource === "") throw pyError("ValueError", "task_source must be a non-empty string when provided");
  const bound = [config.resourcesServer, config.agentServer, instanceName];
  if (!bound.includes(taskSource)) throw pyError("ValueError", `Row task_source '${taskSource}' names none of this Environment Server's instances: ${JSON.stringify(bound)}`);
  const agentRef = row.agent_ref as Obj | undefined;
  if (agentRef !== undefined && agentRef !== null && (typeof agentRef !== "object" || agentRef.name !== config.agentServer)) {
    throw pyError("ValueError", `Row agent_ref '${String((agentRef as Obj)?.name ?? agentRef)}' does not match configured agent server '${config.agentServer}'`);
  }
  const idKey = ["task_id", "problem_id", "instance_id"].find((k) => row[k] !== undefined && row[k] !== null);
  const taskId = idKey ? String(row[idKey]) : String(row._ng_task_index);
  const attempt = row._ng_attempt_index ?? 0;
  if (typeof attempt !== "number" || !Number.isInteger(attempt) || attempt < 0) throw pyError("ValueError", `Invalid episode attempt: ${JSON.stringify(attempt)}`);
  const rolloutId = typeof row._ng_rollout_id === "string" && row._ng_rollout_id !== "" ? row._ng_rollout_id : `${String(row._ng_task_index)}-${String(row._ng_rollout_index)}`;
  const taskData: Obj = {};
  for (const [k, v] of Object.entries(row)) if (!NOT_TASK_DATA.has(k) && !k.startsWith("_ng_")) taskData[k] = v;
  return {
    episode_id: { rollout_id: rolloutId, attempt },
    task: { task_id: { taskset: taskSource, task_id: taskId }, task_input: { responses_create_params: row.responses_create_params, task_data: taskData } },
  };
}

/** Map the episode envelope to the flat legacy result. */
export function legacyResult(envelope: Obj, agentServer: string): Obj {
  const agentRef = { name: agentServer };
  const f = envelope.failure as Obj | null;
  if (f) {
    const out: Obj = {
      _ng_failure_class: f.failure_kind ?? "environment_server_failed",
      _ng_failure_kind: f.failure_kind ?? null,
      _ng_failure_terminal: f.terminal,
      _ng_failure_message: f.failure_reason,
      _ng_failure_stage: f.stage ?? null,
      agent_ref: agentRef,
    };
    if (f.partial_response !== undefined && f.partial_response !== null) out._ng_failure_partial_response = f.partial_response;
    return out;
  }
  const result = { ...((envelope.result as Obj | null) ?? {}) };
  if (result.ng_agent_observations === null || result.ng_agent_observations === undefined) delete result.ng_agent_observations;
  result.agent_ref = agentRef;
  return result;
}

/** Build a single_agent_turn_legacy environment server. */
export function singleAgentTurnLegacyApp(opts: SingleTurnOptions): ServerApp {
  const run = singleAgentTurnRunner(opts);
  const routes: Route[] = [
    {
      method: "POST",
      path: PATHS.run,
      handler: async (ctx: RequestContext) => {
        const row = (ctx.body ?? {}) as Obj;
        const native = row && typeof row === "object" && "episode_id" in row && "task" in row ? row : nativeRequestFromRow(row, opts);
        // The same context with the native body: a spread would build every lazy part (request, signal, client address).
        const inner: RequestContext = Object.create(ctx, { body: { value: native, enumerable: true } });
        return legacyResult(await run(inner), opts.config.agentServer);
      },
    },
    aggregateMetricsRoute(opts),
  ];
  return { className: opts.className, instanceName: opts.instanceName, routes, sessions: false };
}
