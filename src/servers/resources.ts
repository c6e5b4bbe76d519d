/**
 * The resources server kind (runtime.md §7): `/seed_session` (legacy row or native body),
 * `/verify` (echo + reward), `/aggregate_metrics`, `/reverify_mode`, `/close_session`, and the
 * component's tool routes, with per-rollout state keyed by the session cookie's id.
 */
import type { TObject, TSchema } from "typebox";
import Type from "typebox";
import { HttpError, type RequestContext, type Route, type ServerApp } from "../runtime/http/http-types.ts";
import { computeAggregateMetrics, type MetricHooks } from "../verify/aggregate-metrics.ts";
import { JudgeError } from "../verify/judge/judge-error.ts";
import { CloseSessionRequest, isNativeSeed, NativeSeedRequest, PATHS } from "./episode-protocol.ts";
import { nameFailure } from "./failure-origin.ts";
import { RESPONSE_CREATE_KEYS } from "./openai-schemas.ts";
import { bodyValidator } from "./validation.ts";

type Obj = Record<string, unknown>;

/** Names a tool may not take: they are the server's own routes (§7). */
export const RESERVED_TOOL_NAMES = new Set(["verify", "seed_session", "aggregate_metrics", "mcp", "close_session", "reverify_mode"]);

/** What a resources handler gets: the request plus this rollout's session id. */
export interface ResourcesCall {
  /** Session id (the cookie's, stable across the rollout's calls). */
  sessionId: string;
  ctx: RequestContext;
}

/** One tool route. */
export interface ToolSpec {
  /** Body schema (an arguments object, so the parsed args are a record); pydantic-like 422 when it fails. */
  schema?: TObject;
  handler(args: Obj, call: ResourcesCall): unknown | Promise<unknown>;
}

/** What a resources component supplies. */
export interface ResourcesSpec {
  className: string;
  instanceName: string;
  tools?: Record<string, ToolSpec>;
  /** Declared extra fields of the verify request (beyond responses_create_params/response). */
  verifySchema?: Record<string, TSchema>;
  /** Grade one rollout: `{reward, …extra response fields}`. */
  verify(body: Obj, call: ResourcesCall): Promise<Obj> | Obj;
  /** Declared fields of the legacy seed body (the whole row is sent; others ignored). */
  seedSchema?: Record<string, TSchema>;
  /** Seed per-session state from the task fields (legacy row, or native `task_data`). */
  seed?(data: Obj, call: ResourcesCall): unknown | Promise<unknown>;
  /** Drop a session's state. */
  closeSession?(sessionId: string): void;
  /** Upstream `compute_metrics(tasks)`: merged into `/aggregate_metrics`' agent_metrics. */
  computeMetrics?: MetricHooks["computeMetrics"];
  /** Upstream `get_key_metrics(agent_metrics)`; default every `mean/…`. */
  keyMetrics?: MetricHooks["keyMetrics"];
  /** `/reverify_mode` answer. */
  reverifyMode?: "stateless" | "unsupported" | "unknown";
}

/** A judge call failed (transport or unusable answer): `/verify` answers 200 with a judge_failed marker, not a 500 (§7.1). */
export { JudgeError };

/** Per-session state, keyed by session id (the cookie carries only the id, §6.1). */
export class SessionStore<T> {
  private readonly map = new Map<string, T>();
  /** The state of a session, created with `init` when missing. */
  get(sessionId: string, init: () => T): T {
    let v = this.map.get(sessionId);
    if (v === undefined) {
      v = init();
      this.map.set(sessionId, v);
    }
    return v;
  }
  /** The state of a session if seeded. */
  peek(sessionId: string): T | undefined {
    return this.map.get(sessionId);
  }
  /** Replace a session's state. */
  set(sessionId: string, v: T): void {
    this.map.set(sessionId, v);
  }
  /** Forget a session. */
  delete(sessionId: string): void {
    this.map.delete(sessionId);
  }
}

/** Responses create params with every optional field present (pydantic full dump, §7.1). */
export function fullCreateParams(rcp: Obj): Obj {
  const out: Obj = {};
  for (const k of RESPONSE_CREATE_KEYS) out[k] = k in rcp ? rcp[k] : null;
  if (!("parallel_tool_calls" in rcp)) out.parallel_tool_calls = true;
  if (!("tool_choice" in rcp)) out.tool_choice = "auto";
  if (!("tools" in rcp)) out.tools = [];
  delete out.stream;
  return out;
}

/** Optional fields of upstream's `NeMoGymResponse` (OpenAI `Response`), emitted as null when unset. */
const RESPONSE_OPTIONAL_KEYS = [
  "error", "incomplete_details", "instructions", "metadata", "temperature", "top_p", "background", "conversation", "max_output_tokens",
  "max_tool_calls", "previous_response_id", "prompt", "prompt_cache_key", "reasoning", "safety_identifier", "service_tier", "status",
  "text", "top_logprobs", "truncation", "usage", "user",
];

/** A response object with every optional field present, as FastAPI serialises the verify model (§7.1). */
export function fullResponse(resp: Obj): Obj {
  const out: Obj = { ...resp };
  for (const k of RESPONSE_OPTIONAL_KEYS) if (!(k in out)) out[k] = null;
  return out;
}

function verifyValidator(fields: Record<string, TSchema> = {}) {
  return bodyValidator(
    Type.Object({ responses_create_params: Type.Record(Type.String(), Type.Unknown()), response: Type.Record(Type.String(), Type.Unknown()), ...fields }, { additionalProperties: true }),
  );
}

/** Build a resources server from a component spec. */
export function resourcesServerApp(spec: ResourcesSpec): ServerApp {
  const tools = spec.tools ?? {};
  for (const name of Object.keys(tools)) {
    if (RESERVED_TOOL_NAMES.has(name)) throw new Error(`${spec.instanceName}: tool name "${name}" is reserved for a server route; rename the tool`);
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error(`${spec.instanceName}: tool name "${name}" is not URL-safe (the tool name is its URL path)`);
  }
  const verifyBody = verifyValidator(spec.verifySchema);
  const legacySeed = bodyValidator(Type.Object({ ...(spec.seedSchema ?? {}) }, { additionalProperties: true }));
  const nativeSeed = bodyValidator(NativeSeedRequest);
  const closeBody = bodyValidator(CloseSessionRequest);
  const aggBody = bodyValidator(Type.Object({ verify_responses: Type.Array(Type.Record(Type.String(), Type.Unknown())) }, { additionalProperties: true }));

  // Native sessions: resources_session_id ↔ the cookie session id it was seeded under.
  const nativeBySid = new Map<string, { sessionId: string; episodeKey: string; episodeId: string }>();
  const closed = new Set<string>();
  const assertOpen = (sessionId: string) => {
    if (closed.has(sessionId)) throw new HttpError(409, "Resources session is closed");
  };

  const routes: Route[] = [
    {
      method: "POST",
      path: PATHS.seedSession,
      handler: async (ctx) => {
        const call = { sessionId: ctx.sessionId, ctx };
        if (isNativeSeed(ctx.body)) {
          const req = nativeSeed.parse(ctx.body);
          const rsid = req.resources_session_id ?? crypto.randomUUID();
          const key = JSON.stringify([req.episode_id, req.task_id]);
          const prev = nativeBySid.get(rsid);
          if (prev && (prev.episodeKey !== key || closed.has(prev.sessionId))) throw new HttpError(409, `resources_session_id ${rsid} is closed or bound to another episode or task`);
          nativeBySid.set(rsid, { sessionId: ctx.sessionId, episodeKey: key, episodeId: JSON.stringify(req.episode_id) });
          const data = legacySeed.parse(req.task_data);
          await spec.seed?.(data, call);
          return { resources_session_id: rsid };
        }
        const row = legacySeed.parse(ctx.body);
        await spec.seed?.(row, call);
        return {};
      },
    },
    {
      method: "POST",
      path: PATHS.verify,
      handler: async (ctx) => {
        const body = verifyBody.parse(ctx.body);
        let result: Obj;
        try {
          result = await spec.verify(body, { sessionId: ctx.sessionId, ctx });
        } catch (e) {
          // A verifier failure names this server in its 500 body, so the collector types it `verifier` (D21).
          if (!(e instanceof JudgeError)) throw nameFailure(e, spec.className, spec.instanceName);
          // judge_failsafe: the collector routes this row to the failures file; it never counts as reward 0 (D21).
          return { ...body, reward: 0.0, _ng_failure_class: "judge_failed", _ng_failure_judge_error: e.message };
        }
        const { reward, ...extra } = result;
        if (typeof reward !== "number" || !Number.isFinite(reward)) throw nameFailure(new Error(`verify produced a non-numeric reward ${String(reward)}`), spec.className, spec.instanceName);
        return { responses_create_params: fullCreateParams(body.responses_create_params as Obj), response: fullResponse(body.response as Obj), reward, ...extra };
      },
    },
    {
      method: "POST",
      path: PATHS.closeSession,
      handler: (ctx) => {
        const req = closeBody.parse(ctx.body);
        const bound = nativeBySid.get(req.resources_session_id);
        if (bound && bound.episodeId !== JSON.stringify(req.episode_id)) {
          throw new HttpError(409, "Resources session belongs to another episode");
        }
        const sessionId = bound?.sessionId ?? req.resources_session_id;
        spec.closeSession?.(sessionId);
        closed.add(sessionId);
        return { resources_session_id: req.resources_session_id };
      },
    },
    {
      method: "POST",
      path: PATHS.aggregateMetrics,
      handler: (ctx) => computeAggregateMetrics(aggBody.parse(ctx.body).verify_responses, { computeMetrics: spec.computeMetrics, keyMetrics: spec.keyMetrics }),
    },
    { method: "GET", path: "/reverify_mode", handler: () => spec.reverifyMode ?? "unknown" },
  ];
  for (const [name, tool] of Object.entries(tools)) {
    const v = tool.schema ? bodyValidator(tool.schema) : undefined;
    routes.push({
      method: "POST",
      path: `/${name}`,
      handler: async (ctx) => {
        assertOpen(ctx.sessionId);
        const args = v ? v.parse(ctx.body) : ((ctx.body ?? {}) as Obj);
        return tool.handler(args, { sessionId: ctx.sessionId, ctx });
      },
    });
  }
  return { className: spec.className, instanceName: spec.instanceName, routes, sessions: true, rolloutPrefix: "resources" };
}
