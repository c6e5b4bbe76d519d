/**
 * Hosts a ServerApp (http-types.ts): a pure `(req) => Promise<Response>` built by `createHandler`
 * (routing, bodies, sessions, upstream's error shapes, liveness routes, the rollout prefix) and
 * `serveApp`, the few lines of Bun.serve wiring around it (runtime.md §5, §6.1; D16, D18).
 */
import type { Server } from "bun";
import { log } from "../../log.ts";
import { DEFAULT_MAX_BODY_BYTES } from "./body.ts";
import { bodyOfText, readLocalBody, readRequestBody, type ReadBody } from "./http-body.ts";
import type { LocalHandler, LocalRequest } from "./local-dispatch.ts";
import { CachedSessions } from "./http-session-cache.ts";
import { HttpError, InnerServerError, RawJson, RequestValidationError, type RequestContext, type ServerApp, type ValidationDetail } from "./http-types.ts";
import { capEcho, jsonDepthExceeds, MAX_JSON_DEPTH } from "./bounded-json.ts";
import { outboundSnapshot } from "./outbound-waits.ts";
import { clientOf, type ProxySettings } from "./proxy-headers.ts";
import { pyBytesRepr, pyExceptionRepr } from "../../util/py-repr.ts";
import { withRolloutId } from "./rollout-context.ts";
import { compileRoutes } from "./router.ts";
import { parseCookies, SessionCodec } from "./session.ts";

/** Options of `createHandler`. */
export interface HandlerOptions {
  /** Request body limit in bytes (413 beyond it). */
  maxBodyBytes?: number;
  /** Reverse-proxy header settings (D18); off when absent. */
  proxy?: ProxySettings;
  /** The socket peer address of a request that arrived on `server` (serveApp supplies Bun's `requestIP`). */
  peerAddress?: (req: Request, server?: Server<undefined>) => string | undefined;
  /** Wraps each handler call for profiling (D20). */
  profile?: <T>(name: string, fn: () => Promise<T>) => Promise<T>;
  /**
   * Make a request's rollout id ambient for the handler's own outbound calls (§14). Only the
   * observability rules read it (server-client.ts), and an AsyncLocalStorage run per request costs
   * every hop, so servers turn it on only with `observability_enabled`. Default true.
   */
  ambientRolloutId?: boolean;
  /**
   * Set the idle timeout of a request's connection, in seconds (0 = none): serveApp passes Bun's
   * `server.timeout` of the listener the request arrived on (the handler's second argument; a call
   * without one, e.g. from a test, gets no guard). The body is read under BODY_IDLE_TIMEOUT_SECONDS so a client that stops
   * half-way through a body loses its connection instead of holding it forever; the handler then
   * runs with none (it may wait hours on a model).
   */
  connectionTimeout?: (req: Request, seconds: number, server: Server<undefined>) => void;
  /** Body idle timeout in seconds (default BODY_IDLE_TIMEOUT_SECONDS). */
  bodyIdleTimeoutSeconds?: number;
  /** This server's own origin (`http://host:port` as configured), for redirects; never the client's Host header. */
  origin?: () => string | undefined;
}

/** Seconds a request body may stall (no bytes arriving) before the connection is closed. */
export const BODY_IDLE_TIMEOUT_SECONDS = 30;

const LIVENESS = new Set(["/", "/livez", "/healthz", "/health", "/readyz"]);
const RESOURCES_PREFIX = /^\/ng-rollout\/([A-Za-z0-9][A-Za-z0-9._-]*)(\/.*)$/;
const MODEL_PREFIX = /^\/ng-rollout\/([^/]+)(\/training-token-capture)?(\/.*)$/;
const DOCS_HTML = "<!doctype html><html><head><title>gym server</title></head><body><p>gym server is running.</p></body></html>";

/** A compact JSON response (FastAPI's rendering: no spaces, raw UTF-8). */
export function jsonResponse(value: unknown, status = 200, headers?: Record<string, string>): Response {
  const body = value === undefined ? "null" : JSON.stringify(value);
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  return new Response(body, { status, headers: h });
}

/** A JSON answer not yet turned into a Response, so cookies join its headers in one step. */
interface JsonOut {
  json: string;
  status: number;
  headers?: [string, string][];
}

function jsonOut(value: unknown, status = 200, headers?: [string, string][]): JsonOut {
  return { json: value === undefined ? "null" : JSON.stringify(value), status, headers };
}

/** The 500 body for a thrown value (runtime.md §5.2). */
function errorBody(err: unknown, app: ServerApp, cancelled: boolean): string {
  if (err instanceof InnerServerError) {
    return `Hit an exception in ${app.className}___${app.instanceName} calling an inner server: ${pyBytesRepr(new TextEncoder().encode(err.body))}`;
  }
  if (cancelled) return "Request was cancelled";
  if (err instanceof Error) return pyExceptionRepr(err);
  return "An unknown error occurred";
}

function errorOut(err: unknown, app: ServerApp, method: string, signal: AbortSignal, path: string, body: unknown): JsonOut {
  if (err instanceof RequestValidationError && Array.isArray(err.detail)) {
    // FastAPI echoes each item's whole `input`; a huge (or absurdly deep) body must not come back whole.
    return jsonOut({ detail: (err.detail as ValidationDetail[]).map((d) => ("input" in d ? { ...d, input: capEcho(d.input) } : d)) }, err.status);
  }
  if (err instanceof HttpError) return jsonOut({ detail: err.detail }, err.status);
  // A stack overflow while handling a very deep body is the client's doing: 400, not a 500 RangeError.
  if (err instanceof RangeError && jsonDepthExceeds(body)) return jsonOut({ detail: `JSON body nested deeper than ${MAX_JSON_DEPTH} levels` }, 400);
  const cancelled = signal.aborted;
  if (!cancelled) log.error(`(${app.instanceName}) ${method} ${path} failed:`, err);
  return jsonOut(errorBody(err, app, cancelled), 500);
}

/** Copy a handler's Response into one whose headers we may extend. */
function mutable(res: Response): Response {
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers: new Headers(res.headers) });
}

/** The path of an absolute request URL without building a URL object (the hot path). */
function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const slash = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  if (slash < 0) return "/";
  const q = url.indexOf("?", slash);
  const h = url.indexOf("#", slash);
  const end = q < 0 ? (h < 0 ? url.length : h) : h < 0 ? q : Math.min(q, h);
  const raw = url.slice(slash, end);
  // Percent-escapes and dot segments are rare: let URL normalise those exactly.
  return raw.includes("%") || raw.includes("/.") ? new URL(url).pathname : raw;
}

/** A request handed over in process (local-dispatch.ts), with what the core reads of a Request. */
class LocalInbound {
  readonly url: string;
  private built: Request | undefined;
  constructor(
    readonly local: LocalRequest,
    origin: string,
    readonly peer: string | undefined,
  ) {
    this.url = origin + local.target;
  }
  get method(): string {
    return this.local.method;
  }
  get signal(): AbortSignal {
    return this.local.signal;
  }
  header(name: string): string | null {
    return this.local.headers[name] ?? null;
  }
  /** A Request for the rare handler that reads the raw request (no body: it is in ctx.body). */
  request(): Request {
    return (this.built ??= new Request(this.url, { method: this.local.method, headers: this.local.headers, signal: this.local.signal }));
  }
}

type Inbound = Request | LocalInbound;

function headerOf(req: Inbound, name: string): string | null {
  return req instanceof LocalInbound ? req.header(name) : req.headers.get(name);
}

/** What the core answers: the handler's outcome and the Set-Cookie lines to add to it. */
interface Answered {
  out: Response | JsonOut;
  setCookies: string[];
}

/** The two entries of one server: Bun.serve's handler and the in-process one (same sessions, routes, rules). */
export interface ServerEntries {
  /** Bun.serve's `fetch`: the request and the listener it arrived on. */
  handler: (req: Request, server?: Server<undefined>) => Promise<Response>;
  local: LocalHandler;
}

/** Build the request handler of a server app. */
export function createHandler(app: ServerApp, opts: HandlerOptions = {}): (req: Request, server?: Server<undefined>) => Promise<Response> {
  return createEntries(app, opts).handler;
}

/** Build both entries of a server app: the HTTP handler and the local one (local-dispatch.ts). */
export function createEntries(app: ServerApp, opts: HandlerOptions = {}): ServerEntries {
  const match = compileRoutes(app.routes);
  const sessions = app.sessions ? new CachedSessions(new SessionCodec(app.className, app.instanceName)) : undefined;
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const prefix = app.rolloutPrefix === "model" ? MODEL_PREFIX : RESOURCES_PREFIX;
  const ambient = opts.ambientRolloutId ?? true;
  const bodyIdle = opts.bodyIdleTimeoutSeconds ?? BODY_IDLE_TIMEOUT_SECONDS;

  const core = async (req: Inbound, fullPath: string, server?: Server<undefined>): Promise<Answered> => {
    let path = fullPath;
    let rolloutId: string | undefined;
    let capture = false;
    const m = fullPath.startsWith("/ng-rollout/") ? prefix.exec(fullPath) : null;
    if (m) {
      rolloutId = m[1];
      capture = app.rolloutPrefix === "model" && m[2] !== undefined;
      path = m[m.length - 1]!;
    }
    rolloutId ??= headerOf(req, "x-nemo-gym-rollout-id") ?? undefined;
    const cookies = parseCookies(headerOf(req, "cookie"));
    const session = sessions?.session(cookies);
    const sessionId = session?.id ?? "";
    const responseCookies: Record<string, string> = {};
    let body: unknown;

    let out: Response | JsonOut;
    try {
      out = await dispatch();
    } catch (err) {
      out = errorOut(err, app, req.method, req.signal, fullPath, body);
    }
    // Inner servers' cookies first; our own session cookie is always (re)sent, 500s included (§6.1).
    const setCookies: string[] = [];
    for (const k in responseCookies) setCookies.push(`${k}=${responseCookies[k]}; Path=/; SameSite=lax`);
    if (sessions) setCookies.push(sessions.setCookie(session!));
    return { out, setCookies };

    async function dispatch(): Promise<Response | JsonOut> {
      // Starlette answers HEAD on every GET route.
      const method = req.method === "HEAD" ? "GET" : req.method;
      const found = match(method, path);
      if (capture && app.uncapturedTrainingCall && !(found.kind === "found" && found.route.capturesTokens === true)) await app.uncapturedTrainingCall(rolloutId!, `${req.method} ${path}`);
      if (found.kind === "none") {
        // Starlette's redirect_slashes: `/verify/` → 307 to `/verify` (and the reverse) when that route exists.
        const other = path.endsWith("/") && path !== "/" ? path.slice(0, -1) : `${path}/`;
        if (match(method, other).kind === "found") {
          // Built from the configured origin (relative without one): the client's Host header is never echoed.
          const url = new URL(req.url);
          const target = `${url.pathname.slice(0, url.pathname.length - path.length)}${other}${url.search}`;
          return new Response(null, { status: 307, headers: { location: `${opts.origin?.() ?? ""}${target}` } });
        }
        if (method === "GET" && LIVENESS.has(path)) return jsonOut({ status: "ok" });
        if (method === "GET" && path === "/docs") return new Response(DOCS_HTML, { headers: { "content-type": "text/html; charset=utf-8" } });
        // gym-only: what this process waits on (the driver's stall watchdog follows it hop by hop).
        if (method === "GET" && path === "/_gym/outbound") return jsonOut(outboundSnapshot());
        return jsonOut({ detail: "Not Found" }, 404);
      }
      if (found.kind === "method") return jsonOut({ detail: "Method Not Allowed" }, 405, [["allow", found.allowed.join(", ")]]);
      let read: ReadBody | undefined;
      if (method !== "GET") {
        if (req instanceof LocalInbound) read = readLocalBody(req.local.body, req.header("content-type"), maxBody, found.route.rawBody !== true);
        else {
          const length = req.headers.get("content-length");
          // Judged from the headers: reading `req.body` would build a stream object per request.
          const pending = server !== undefined && opts.connectionTimeout !== undefined && (length === null ? req.headers.get("transfer-encoding") !== null : length !== "0");
          if (pending) opts.connectionTimeout!(req, bodyIdle, server);
          try {
            const declared = length === null ? Number.NaN : Number(length);
            // The usual body (a length within the limit) is read here, without readRequestBody's frame.
            const got = declared > 0 && declared <= maxBody ? bodyOfText(req, await req.text(), maxBody, found.route.rawBody !== true) : readRequestBody(req, maxBody, found.route.rawBody !== true, length);
            read = got instanceof Promise ? await got : got;
          } finally {
            if (pending) opts.connectionTimeout!(req, 0, server);
          }
        }
        body = read.value;
        // JSC parses any depth, but recursive handlers (validation, JSON.stringify: ~9 s of CPU for
        // 100k levels before its RangeError) do not: refuse absurd nesting up front (~0.5 µs a body).
        if (typeof body === "object" && jsonDepthExceeds(body)) throw new HttpError(400, `JSON body nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
      let handlerRequest: Request | undefined = path === fullPath && !(req instanceof LocalInbound) ? req : undefined;
      const ctx: RequestContext = {
        // Built on first read: a rollout-prefixed call would otherwise cost a URL and a Request per
        // request, and almost no handler looks at the raw request.
        get request() {
          return (handlerRequest ??= withPath(req instanceof LocalInbound ? req.request() : req, path));
        },
        body: read?.value,
        rawBody: read?.raw,
        sessionId,
        cookies,
        responseCookies,
        rolloutId,
        // Built on first read too: Bun makes a Request's AbortSignal only when asked for it.
        get signal() {
          return req.signal;
        },
        params: found.params,
        trainingTokenCapture: capture,
        // Resolved on first read: few handlers look, and the proxy-header walk is per request otherwise.
        get clientAddress() {
          return req instanceof LocalInbound ? clientOf(req.request(), req.peer, opts.proxy).address : clientOf(req, opts.peerAddress?.(req, server), opts.proxy).address;
        },
      };
      // The rollout id becomes ambient so this server's own outbound calls carry it (§14).
      // Unprofiled (the usual case): no wrapper closure, promise or label string per request.
      const ambientId = ambient ? rolloutId : undefined;
      const result = opts.profile
        ? await opts.profile(`${found.route.method} ${found.route.path}`, async () => await withRolloutId(ambientId, () => found.route.handler(ctx)))
        : await withRolloutId(ambientId, () => found.route.handler(ctx));
      if (result instanceof Response) return result;
      return result instanceof RawJson ? { json: result.text, status: 200 } : jsonOut(result);
    }
  };

  const handler = async (req: Request, server?: Server<undefined>): Promise<Response> => {
    const { out, setCookies } = await core(req, pathOf(req.url), server);
    if (!(out instanceof Response)) {
      const headers: [string, string][] = [["content-type", "application/json"], ...(out.headers ?? [])];
      for (const c of setCookies) headers.push(["set-cookie", c]);
      return new Response(out.json, { status: out.status, headers });
    }
    let res = out;
    if (setCookies.length > 0) {
      if (!isMutable(res)) res = mutable(res);
      for (const c of setCookies) res.headers.append("set-cookie", c);
    }
    return res;
  };

  const localOrigin = () => opts.origin?.() ?? "http://127.0.0.1";
  const local: LocalHandler = async (lr) => {
    const origin = localOrigin();
    // The socket peer a loopback call would have had: the bound host (a wildcard bind is reached over loopback).
    const host = origin.slice(origin.indexOf("//") + 2, origin.lastIndexOf(":")).replace(/^\[|\]$/g, "");
    const peer = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
    const { out, setCookies } = await core(new LocalInbound(lr, origin, peer), pathOf(origin + lr.target));
    if (!(out instanceof Response)) {
      const headers: [string, string][] = [["content-type", "application/json"], ...(out.headers ?? [])];
      for (const c of setCookies) headers.push(["set-cookie", c]);
      return { status: out.status, statusText: STATUS_TEXT[out.status] ?? "", headers, text: out.json };
    }
    // A handler's own Response (SSE replay, HTML, a redirect): read whole, as the client would.
    const headers: [string, string][] = [];
    for (const [k, v] of out.headers) if (k !== "set-cookie") headers.push([k, v]);
    for (const c of out.headers.getSetCookie()) headers.push(["set-cookie", c]);
    for (const c of setCookies) headers.push(["set-cookie", c]);
    return { status: out.status, statusText: out.statusText || (STATUS_TEXT[out.status] ?? ""), headers, text: lr.method === "HEAD" ? "" : await out.text() };
  };
  return { handler, local };
}

/** The reason phrases Bun.serve writes for the statuses handlers answer. */
const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  307: "Temporary Redirect",
  400: "Bad Request",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  422: "Unprocessable Entity",
  500: "Internal Server Error",
};

function isMutable(res: Response): boolean {
  try {
    res.headers.append("x-gym-probe", "1");
    res.headers.delete("x-gym-probe");
    return true;
  } catch {
    return false;
  }
}

/** The request as the handler sees it: same method, headers and signal, path without the rollout prefix (the body is in ctx.body). */
function withPath(req: Request, path: string): Request {
  const next = new URL(req.url);
  next.pathname = path;
  return new Request(next.toString(), { method: req.method, headers: req.headers, signal: req.signal });
}

/** `http://host:port` for a bind address (IPv6 in brackets). */
export function originOf(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Where and how to listen. */
export interface ListenOptions {
  host: string;
  port: number;
  /** Listen on this Unix-domain socket path instead of host:port (unix-socket.ts). */
  unix?: string;
  /** Share the port with sibling worker processes (`num_workers > 1`, SO_REUSEPORT). */
  reusePort?: boolean;
}

/** Bind a handler with Bun.serve: `idleTimeout: 0` because handlers wait on model calls (D16). Throws EADDRINUSE when taken. */
export function listen(handler: (req: Request, server: Server<undefined>) => Response | Promise<Response>, opts: ListenOptions): Server<undefined> {
  const common = {
    idleTimeout: 0,
    // Bun's own cap answers a bare 413; ours (by Content-Length, then while streaming) answers JSON.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    fetch: handler,
    error(err: Error) {
      log.error("unhandled server error:", err);
      return jsonResponse(pyExceptionRepr(err), 500);
    },
  };
  // bun-types leave idleTimeout out of the Unix options, but Bun applies it there too (D16: 0 = none).
  if (opts.unix !== undefined) return Bun.serve({ ...common, unix: opts.unix } as unknown as Bun.Serve.Options<undefined>);
  return Bun.serve({ ...common, hostname: opts.host, port: opts.port, reusePort: opts.reusePort ?? false });
}

/** Options of `serveApp`. */
export interface ServeOptions extends HandlerOptions, ListenOptions {}

/** Serve an app: `createHandler` + `listen`, with the socket peer as the client address. */
export function serveApp(app: ServerApp, opts: ServeOptions): Server<undefined> {
  let server: Server<undefined> | undefined;
  const handler = createHandler(app, {
    ...opts,
    peerAddress: opts.peerAddress ?? ((req, via) => via?.requestIP(req)?.address),
    connectionTimeout: opts.connectionTimeout ?? ((req, s, via) => via.timeout(req, s)),
    origin: opts.origin ?? (() => (server?.port === undefined ? undefined : originOf(opts.host, server.port))),
  });
  server = listen(handler, opts);
  return server;
}
