/**
 * The environment-era wire names that upstream is still renaming (D2, runtime.md §7.2, §10):
 * resources-session and agent-session endpoints, the episode request/response shapes and the
 * failure record. Every module that speaks this protocol takes its names from here, so a later
 * upstream rename touches this one file.
 */
import Type, { type Static } from "typebox";

/** Endpoint paths of the native protocol. */
export const PATHS = {
  seedSession: "/seed_session",
  verify: "/verify",
  closeSession: "/close_session",
  agentSessions: "/v1/agent_sessions",
  agentSessionsClose: "/v1/agent_sessions/close",
  run: "/run",
  aggregateMetrics: "/aggregate_metrics",
} as const;

/** `episode_id`: which rollout and which attempt. */
export const EpisodeId = Type.Object({ rollout_id: Type.String(), attempt: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });
/** Episode id. */
export type EpisodeId = Static<typeof EpisodeId>;

/** `task_id` (newest revision: `{taskset, task_id}`, nothing else). */
export const TaskId = Type.Object({ taskset: Type.String(), task_id: Type.String() }, { additionalProperties: false });
/** Task id. */
export type TaskId = Static<typeof TaskId>;

/** Native `/seed_session` request (`extra="forbid"`). */
export const NativeSeedRequest = Type.Object(
  {
    resources_session_id: Type.Optional(Type.String()),
    episode_id: EpisodeId,
    task_id: TaskId,
    task_data: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false },
);
/** Native seed request. */
export type NativeSeedRequest = Static<typeof NativeSeedRequest>;

/** `/close_session` request. */
export const CloseSessionRequest = Type.Object({ resources_session_id: Type.String(), episode_id: EpisodeId }, { additionalProperties: false });
/** Close-session request. */
export type CloseSessionRequest = Static<typeof CloseSessionRequest>;

/** True when a `/seed_session` body is the native shape rather than a legacy `/run` row. */
export function isNativeSeed(body: unknown): boolean {
  return !!body && typeof body === "object" && "episode_id" in body && "task_id" in body && "task_data" in body && !("responses_create_params" in body);
}

/** A tool access granted to an agent session (`kind` defaults to `direct_http`; `mcp` passes through). */
export const ToolAccess = Type.Union([
  Type.Object(
    {
      kind: Type.Optional(Type.Literal("direct_http")),
      name: Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$" }),
      required: Type.Boolean(),
      base_url: Type.String(),
      cookies: Type.Optional(Type.Record(Type.String(), Type.String())),
      headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    },
    { additionalProperties: false },
  ),
  Type.Object({ kind: Type.Literal("mcp"), name: Type.String(), required: Type.Boolean(), connection: Type.Unknown() }, { additionalProperties: false }),
]);
/** Tool access. */
export type ToolAccess = Static<typeof ToolAccess>;

/** Agent-session create request. */
export const AgentSessionCreate = Type.Object(
  {
    agent_session_id: Type.String(),
    episode_id: EpisodeId,
    task_id: TaskId,
    tool_accesses: Type.Optional(Type.Array(ToolAccess)),
    sandbox_access: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
/** Agent-session create request. */
export type AgentSessionCreate = Static<typeof AgentSessionCreate>;

/** Agent-session close request. */
export const AgentSessionClose = Type.Object({ agent_session_id: Type.String(), episode_id: EpisodeId }, { additionalProperties: false });
/** Agent-session close request. */
export type AgentSessionClose = Static<typeof AgentSessionClose>;

/** Header carrying the 1-based activation index of an agent session. */
export const AGENT_ACTIVATION_HEADER = "x-ng-agent-activation";

/** Episode `POST /run` request. */
export const EpisodeRequest = Type.Object(
  {
    episode_id: EpisodeId,
    task: Type.Object(
      {
        task_id: TaskId,
        task_input: Type.Object(
          {
            responses_create_params: Type.Record(Type.String(), Type.Unknown()),
            task_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
            agent_timeout_seconds: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Null()])),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
/** Episode request. */
export type EpisodeRequest = Static<typeof EpisodeRequest>;

/** Stage at which an episode failed. */
export type FailureStage = "admission" | "seed" | "agent" | "verification" | "cleanup";

/** The failure record of an episode response (newest revision: `failure_reason`). */
export interface EpisodeFailure {
  failure_reason: string;
  terminal: boolean;
  failure_kind?: string;
  stage?: FailureStage;
  partial_response?: unknown;
  cleanup_error?: string | null;
  ng_agent_observations?: unknown;
  ng_trajectory?: unknown;
}

/** Build a failure record (reason truncated to upstream's 2000 characters; unset keys omitted). */
export function failure(reason: string, terminal: boolean, extra: { stage?: FailureStage; failure_kind?: string; partial_response?: unknown } = {}): EpisodeFailure {
  const f: EpisodeFailure = { failure_reason: reason.slice(0, 2000), terminal };
  if (extra.failure_kind !== undefined) f.failure_kind = extra.failure_kind;
  if (extra.stage !== undefined) f.stage = extra.stage;
  if (extra.partial_response !== undefined) f.partial_response = extra.partial_response;
  return f;
}

/** Rollout ids: `^[A-Za-z0-9][A-Za-z0-9._-]*$`, never ending in `-a<N>` (that suffix is the capture key's). */
export function rolloutIdProblem(id: string): string | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) return "rollout_id must match ^[A-Za-z0-9][A-Za-z0-9._-]*$";
  if (/-a[1-9][0-9]*$/.test(id)) return "rollout_id must not end in -a<N> (reserved for attempt capture keys)";
  return undefined;
}

/** The capture key of an episode: the rollout id for attempt 0, else `<rollout_id>-a<attempt>`. */
export function captureKey(e: EpisodeId): string {
  return e.attempt === 0 ? e.rollout_id : `${e.rollout_id}-a${e.attempt}`;
}
