/**
 * The contract between the runtime's HTTP layer (runtime/http.ts) and the server kinds
 * (servers/*): a server is a list of routes whose handlers take a RequestContext and return
 * a JSON value or a Response. The runtime owns parsing, sessions/cookies, error shapes
 * (runtime.md §5.2, §6.1), body limits, the `/ng-rollout/<id>` prefix and Bun.serve wiring.
 */

/** What a route handler receives. */
export interface RequestContext {
  /** The incoming request (path already stripped of any `/ng-rollout/<id>` prefix). */
  request: Request;
  /** Parsed JSON body; `undefined` for requests without one (and for `rawBody` routes). Invalid JSON never reaches a handler (422). */
  body: unknown;
  /** The body text exactly as received, when it was read in one piece (Content-Length within the limit). */
  rawBody?: string;
  /** The session id from this server's session cookie, created when missing or invalid (§6.1). */
  sessionId: string;
  /** Every cookie of the request, name → raw value (agents forward them explicitly, §6.2). */
  cookies: Record<string, string>;
  /** Cookies to add to the response (`name → value`); agents copy inner servers' cookies here (§6.2). */
  responseCookies: Record<string, string>;
  /** Rollout id from a `/ng-rollout/<id>` prefix or `x-nemo-gym-rollout-id` header, when present. */
  rolloutId: string | undefined;
  /** Aborted when the client disconnects; pass it to downstream calls. */
  signal: AbortSignal;
  /** Path parameters of `:name` segments in the route path. */
  params: Record<string, string>;
  /** True when the path carried `/ng-rollout/<id>/training-token-capture` (servers with `rolloutPrefix: "model"`). */
  trainingTokenCapture?: boolean;
  /** Client address: the socket peer, or the forwarded client when proxy headers are on and the peer is trusted (D18). */
  clientAddress?: string;
}

/**
 * A handler's 200 answer that is already JSON text (an inner server's answer passed on unchanged):
 * sent as is, with the session cookies, instead of being parsed and serialised again.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A route handler: return a JSON-serialisable value (200), a RawJson, or a full Response. */
export type RouteHandler = (ctx: RequestContext) => unknown | Response | Promise<unknown | Response>;

/** One endpoint of a server. `path` may hold `:name` segments. */
export interface Route {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  handler: RouteHandler;
  /** Hand the body over unparsed in `ctx.rawBody` (relays that pass the bytes through); `ctx.body` is then set only when the body arrived without a length. */
  rawBody?: boolean;
  /** This route records training tokens itself (model servers' `/v1/responses`, `/v1/chat/completions`, `/v1/messages`). */
  capturesTokens?: boolean;
}

/** A server as the runtime hosts it. */
export interface ServerApp {
  /** Upstream Python class name (cookie name and 500 bodies use it, §5.2/§6.1), e.g. `SimpleWeatherResourcesServer`. */
  className: string;
  /** The instance name (top-level config key). */
  instanceName: string;
  /** Routes of the server kind and its component; liveness routes are added by the runtime. */
  routes: Route[];
  /** Session middleware on (resources, agent, model servers) or off (head server). */
  sessions: boolean;
  /**
   * Which `/ng-rollout/<id>` prefix the runtime strips (runtime.md §14): `"resources"` (default) strips
   * `/ng-rollout/<id>` only; `"model"` also strips a following `/training-token-capture` segment.
   */
  rolloutPrefix?: "resources" | "model";
  /**
   * Called before serving a `/ng-rollout/<id>/training-token-capture/…` request that no
   * `capturesTokens` route serves (an unknown path included): the call cannot be recorded, so the
   * model server marks the rollout incomplete (upstream's capture middleware does the same).
   */
  uncapturedTrainingCall?: (rolloutId: string, what: string) => Promise<void>;
  /** Called once when the process shuts down. */
  close?: () => void | Promise<void>;
}

/** One item of a FastAPI 422 `detail` list. */
export interface ValidationDetail {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** An error with an HTTP status and a FastAPI-style `{"detail": …}` body. */
export class HttpError extends Error {
  readonly status: number;
  readonly detail: unknown;
  constructor(status: number, detail: unknown) {
    // The message is for logs: never serialise a detail that may echo a whole (huge or deep) body.
    super(typeof detail === "string" ? detail : Array.isArray(detail) ? detail.map((d) => String((d as { msg?: unknown })?.msg ?? "")).join("; ") : `HTTP ${status}`);
    this.name = "HttpError";
    this.status = status;
    this.detail = detail;
  }
}

/** Request body failed validation: 422 with FastAPI's `detail` list. */
export class RequestValidationError extends HttpError {
  constructor(detail: ValidationDetail[]) {
    super(422, detail);
    this.name = "RequestValidationError";
  }
}

/** An inner Gym server answered non-2xx: becomes upstream's 500 JSON string (§5.2). */
export class InnerServerError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, body: string, url: string) {
    super(`inner server ${url} answered ${status}`);
    this.name = "InnerServerError";
    this.status = status;
    this.body = body;
  }
}
