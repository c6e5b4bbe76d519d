/**
 * gym's one outbound HTTP client (runtime.md §2.4–§2.5): every outbound call of the driver, the
 * servers, hubs and trackers goes through it. A deadline on every request, the one retry policy
 * (retry-policy.ts: connect errors and 502/503/504/429 with backoff + jitter inside a budget, D15),
 * per-host limits (D17), a response-size cap, explicit cookies (no jar, §6.2), and no proxy for gym's
 * own servers, decided per request (D34). Any other status is returned to the caller; `raiseForStatus`
 * turns a non-2xx from an inner Gym server into InnerServerError, rendered as upstream's 500 (§5.2).
 */
import { maskUrlSecrets } from "../../util/url-secrets.ts";
import { OfflineError, offlinePolicy, reachable, type OfflinePolicy } from "./offline.ts";
import { envGeneration, envVar } from "../../env.ts";
import { log } from "../../log.ts";
import { InnerServerError } from "./http-types.ts";
import { effectivePerHostLimit, fdCapPerHost, openFileLimits } from "./http-fd-budget.ts";
import { DEFAULT_MAX_RESPONSE_BYTES, ExchangeAbort, pooledRequest, poolable, setPoolBudget } from "./http-pool.ts";
import { breakerAdmit, breakerFailure, breakerOpened, breakerSuccess, breakerTrialAbandoned } from "./breaker.ts";
import { DEFAULT_LIVENESS_SECONDS, watchCall, type Watched } from "./liveness.ts";
import { trackCall, untrackCall } from "./outbound-waits.ts";
import { backoffMs, isConnectError, logRetry, RETRY_STATUSES, retryAfterMs, sleep } from "./retry-policy.ts";
import { HostLimiter } from "./limiter.ts";
import type { PoolLimits } from "./pool.ts";
import { profiled, profilingActive } from "../process/profiling.ts";

/** Which default timeout a call gets (runtime.md §2.5 spec default). */
export type CallKind = "episode" | "model" | "other";

/** Default per-request timeouts in seconds (D15). */
export const DEFAULT_TIMEOUTS: Record<CallKind, number> = { episode: 21_600, model: 3_600, other: 600 };
/** Default retry budget in seconds (D15). */
export const DEFAULT_RETRY_BUDGET_SECONDS = 120;

const ROLLOUT_PREFIX = /^\/ng-rollout\/[^/]+(\/training-token-capture)?/;
const MODEL_PATH = /\/(responses|chat\/completions|completions|messages)$/;

/** Classify a request path: episode hops (`/run`, agent sessions), generation paths, everything else. */
export function callKindOf(path: string): CallKind {
  // Per request: only a prefixed path pays for the regex replace, and no array for the query cut.
  let p = path.startsWith("/ng-rollout/") ? path.replace(ROLLOUT_PREFIX, "") : path;
  const q = p.indexOf("?");
  if (q >= 0) p = p.slice(0, q);
  if (p === "/run" || p.startsWith("/v1/agent_sessions")) return "episode";
  if (MODEL_PATH.test(p)) return "model";
  return "other";
}

/** Timeouts, retries and limits of a client. */
export interface ClientPolicy {
  /** `request_timeout_seconds` when set: applies to every hop; 0 disables. */
  timeoutSeconds?: number;
  retryBudgetSeconds: number;
  limits: PoolLimits;
  /** `global_aiohttp_client_request_debug`. */
  debug: boolean;
  /** The open-file soft limit the per-host cap is sized from (http-fd-budget.ts); read from the process when absent. */
  fdSoftLimit?: number;
  /** Largest response body accepted (default 1 GiB); a larger one fails the call, unretried. */
  maxResponseBytes?: number;
  /** `request_liveness_timeout_seconds` (liveness.ts; default 15, 0 disables). */
  livenessSeconds?: number;
}

function num(v: unknown): number | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** The client policy from the global config keys (limits computed by the caller, see pool.ts). */
export function clientPolicyFromConfig(dict: Record<string, unknown>, limits: PoolLimits): ClientPolicy {
  return {
    timeoutSeconds: num(dict.request_timeout_seconds),
    retryBudgetSeconds: num(dict.request_retry_budget_seconds) ?? DEFAULT_RETRY_BUDGET_SECONDS,
    livenessSeconds: num(dict.request_liveness_timeout_seconds) ?? DEFAULT_LIVENESS_SECONDS,
    limits,
    debug: dict.global_aiohttp_client_request_debug === true,
  };
}

/** Why a request failed for good. */
export type FailureKind = "timeout" | "connect" | "protocol" | "too_large" | "circuit_open" | "unresponsive" | "other";

/** A request failed for good: connect errors past the retry budget, the deadline, a broken or oversized answer. */
export class RequestFailedError extends Error {
  /** Attempts made (1 = no retry). */
  attempts = 1;
  constructor(
    message: string,
    readonly url: string,
    readonly elapsedSeconds: number,
    readonly timedOut: boolean,
    options?: { cause?: unknown; kind?: FailureKind; attempts?: number },
  ) {
    super(message, options);
    // Upstream's class names: users and the failure typing (rollout/record.ts) read them.
    this.name = timedOut ? "TimeoutError" : "ClientConnectorError";
    this.kind = options?.kind ?? (timedOut ? "timeout" : "connect");
    if (options?.attempts !== undefined) this.attempts = options.attempts;
  }
  /** The failure's kind. */
  readonly kind: FailureKind;
}

/** What one call did, filled in by the client for callers that report it. */
export interface RequestStats {
  attempts: number;
}

/** Options of one request. */
export interface RequestOptions {
  method?: string;
  /** JSON body (sent compact with `Content-Type: application/json`). */
  json?: unknown;
  /** Raw body, when not JSON. */
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Cookies to send (name → value); nothing is remembered between calls. */
  cookies?: Record<string, string>;
  signal?: AbortSignal;
  /** Overrides the kind derived from the path. */
  kind?: CallKind;
  /** A call between gym's own servers (or a probe): never through a proxy (D34). */
  internal?: boolean;
  /** Overrides the policy's per-request timeout for this call (seconds, 0 disables). */
  timeoutSeconds?: number;
  /** Overrides the policy's retry budget for this call (seconds). */
  retryBudgetSeconds?: number;
  /** Filled in with the attempts made. */
  stats?: RequestStats;
  /** false: this call neither consults nor feeds the endpoint's circuit breaker (polls that expect 503 for a while). */
  breaker?: boolean;
  /** false: a 3xx comes back as the answer instead of being followed (a user-configured service must not steer the call elsewhere). */
  followRedirects?: boolean;
}

/**
 * An answer read whole, without a Response object: what callers that only want status, headers
 * and text get from `HttpClient.exchange` (a Response per hop was a visible share of each relay's CPU).
 */
export interface HttpAnswer {
  status: number;
  statusText: string;
  /** Header lines in arrival order, names lower-cased; each Set-Cookie is its own entry. */
  headers: [string, string][];
  /** The body bytes (empty when `text` carries the body). */
  body: Uint8Array;
  /** The body as text, for an answer that never was bytes (an in-process call, local-exchange.ts). */
  text?: string;
}

/** The body of an answer as UTF-8 text. */
export function answerText(a: HttpAnswer): string {
  if (a.text !== undefined) return a.text;
  return a.body.byteLength === 0 ? "" : Buffer.from(a.body.buffer, a.body.byteOffset, a.body.byteLength).toString("utf8");
}

/** The name → value pairs of an answer's Set-Cookie lines. */
export function answerCookies(a: HttpAnswer): Record<string, string> {
  const lines: string[] = [];
  for (const [name, value] of a.headers) if (name === "set-cookie") lines.push(value);
  return cookiePairs(lines);
}

const PROXY_VARS = ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"];

/** The name → value pairs of a response's `Set-Cookie` headers (what upstream's `response.cookies` holds). */
export function responseCookies(res: Response): Record<string, string> {
  return cookiePairs(res.headers.getSetCookie());
}

/** The name → value pairs of Set-Cookie lines (attributes after the first `;` dropped). */
function cookiePairs(lines: Iterable<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const semi = line.indexOf(";");
    const first = semi < 0 ? line : line.slice(0, semi);
    const eq = first.indexOf("=");
    if (eq > 0) out[first.slice(0, eq).trim()] = first.slice(eq + 1).trim();
  }
  return out;
}

/** Throw InnerServerError (body attached) when an inner Gym server answered non-2xx; else return the response. */
export async function raiseForStatus(res: Response, url = res.url): Promise<Response> {
  if (res.ok) return res;
  throw new InnerServerError(res.status, await res.text(), url);
}

/** The parts of an absolute URL the client needs. */
interface UrlParts {
  /** `host[:port]` as URL.host renders it (the limiter key). */
  host: string;
  hostname: string;
  port: number;
  path: string;
  /** Path and query, as sent on the request line. */
  target: string;
  plainHttp: boolean;
  /** Whether the pool can carry this target (http-pool.ts `poolable`), when known. */
  poolTarget?: boolean;
}

/** Whether a header is set, whatever the case of its name. */
function hasHeader(headers: Record<string, string>, lower: string): boolean {
  for (const k in headers) if (k.toLowerCase() === lower) return true;
  return false;
}

/** Recently split URLs: a process calls the same few URLs over and over (read-only parts). */
const splitCache = new Map<string, Readonly<UrlParts>>();
const SPLIT_CACHE_SIZE = 512;

/** `splitUrl`, remembered for the last SPLIT_CACHE_SIZE distinct URLs. */
function splitUrlCached(url: string): Readonly<UrlParts> {
  let u = splitCache.get(url);
  if (u === undefined) {
    // Emptied when full: URLs with per-call parts (ids in paths) must not grow it without bound.
    if (splitCache.size >= SPLIT_CACHE_SIZE) splitCache.clear();
    const parts = splitUrl(url);
    parts.poolTarget = poolable(parts.target);
    splitCache.set(url, (u = parts));
  }
  return u;
}

/** Split an absolute URL without a URL object on the hot path. */
function splitUrl(url: string): UrlParts {
  const scheme = url.indexOf("://");
  const start = scheme + 3;
  const slash = scheme < 0 ? -1 : url.indexOf("/", start);
  const authority = scheme < 0 ? "" : url.slice(start, slash < 0 ? url.length : slash);
  const plainHttp = url.startsWith("http://");
  // Userinfo, IPv6 brackets and odd forms go through URL, which knows every rule.
  if (authority === "" || authority.includes("@") || authority.includes("[") || url.includes("#")) {
    const u = new URL(url);
    const hostname = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
    return { host: u.host, hostname, port: Number(u.port || (u.protocol === "https:" ? 443 : 80)), path: u.pathname, target: u.pathname + u.search, plainHttp };
  }
  const q = slash < 0 ? -1 : url.indexOf("?", slash);
  const path = slash < 0 ? "/" : url.slice(slash, q < 0 ? url.length : q);
  const colon = authority.lastIndexOf(":");
  const hostname = (colon < 0 ? authority : authority.slice(0, colon)).toLowerCase();
  const portText = colon < 0 ? "" : authority.slice(colon + 1);
  const defaultPort = plainHttp ? 80 : 443;
  // URL drops a scheme's default port from `host`; keep the limiter keys identical to before.
  const isDefault = portText === "" || Number(portText) === defaultPort;
  return { host: isDefault ? hostname : `${hostname}:${portText}`, hostname, port: isDefault ? defaultPort : Number(portText), path, target: slash < 0 ? "/" : url.slice(slash), plainHttp };
}

/** Bodies up to this size are read inside the deadline and handed back buffered. */
const BUFFER_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Whether `request` reads a response whole before returning it: a known length up to 64 MiB and no
 * event stream. Anything else stays a stream for the caller (a hub download goes to disk as it
 * arrives); its deadline keeps running until it fires.
 */
function bufferable(res: Response): boolean {
  const length = res.headers.get("content-length");
  if (length === null || !(Number(length) <= BUFFER_LIMIT_BYTES)) return false;
  return !(res.headers.get("content-type") ?? "").includes("event-stream");
}

/** Read a fetch body whole, failing once it passes `max` bytes (a declared length is checked first). */
async function readCapped(res: Response, max: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (declared > max) {
    await res.body?.cancel().catch(() => {});
    throw Object.assign(new Error(`the response is larger than the ${max}-byte cap (content-length ${declared})`), { code: "E_RESPONSE_TOO_LARGE" });
  }
  if (declared <= max || !res.body) return res.bytes();
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const part of res.body) {
    total += part.byteLength;
    if (total > max) throw Object.assign(new Error(`the response is larger than the ${max}-byte cap`), { code: "E_RESPONSE_TOO_LARGE" });
    parts.push(part);
  }
  return Buffer.concat(parts);
}

/** A fetch attempt as liveness.ts sees it: alive when sent, then silent until its headers arrive. */
function fetchWatch(ac: Abortable): { lastActivity(): number; abort(reason: unknown): void } {
  const sent = performance.now();
  return { lastActivity: () => sent, abort: (reason) => ac.abort(reason) };
}

/** The `Retry-After` of an answer, in ms (undefined when absent). */
function retryAfterOf(res: Response | HttpAnswer): number | undefined {
  if (res instanceof Response) return retryAfterMs(res.headers.get("retry-after"));
  for (const [k, v] of res.headers) if (k === "retry-after") return retryAfterMs(v);
  return undefined;
}

/** The failure kind of an attempt's error that is not retried. */
function failureKind(err: unknown): FailureKind {
  const code = (err as { code?: string } | undefined)?.code;
  return code === "E_RESPONSE_TOO_LARGE" ? "too_large" : code === "EPROTO" ? "protocol" : code === "E_UNRESPONSIVE" ? "unresponsive" : "other";
}

function timeoutReason(): DOMException {
  return new DOMException("The operation timed out.", "TimeoutError");
}

/** Something a caller's signal cancels: an AbortController, or a pooled exchange's handle. */
interface Abortable {
  abort(reason?: unknown): void;
}

/** Controllers to abort with each caller signal: one listener per signal, not an add/remove per request. */
const linked = new WeakMap<AbortSignal, Set<Abortable>>();

/** Abort `ac` when `outer` aborts; the returned function unlinks it. */
function linkAbort(outer: AbortSignal, ac: Abortable): () => void {
  if (outer.aborted) {
    ac.abort(outer.reason);
    return () => {};
  }
  let set = linked.get(outer);
  if (!set) {
    const members = (set = new Set());
    linked.set(outer, members);
    outer.addEventListener("abort", () => {
      for (const c of members) c.abort(outer.reason);
      members.clear();
    }, { once: true });
  }
  set.add(ac);
  const members = set;
  return () => void members.delete(ac);
}

let proxyCheckedAt = Number.NEGATIVE_INFINITY;
let proxyCheckedGeneration = -1;
let proxyConfigured = false;

/** Whether any proxy variable is set; the environment is read at most once a second (or after setEnvVar), not per request. */
function proxyVarsSet(now: number): boolean {
  if (now - proxyCheckedAt > 1000 || proxyCheckedGeneration !== envGeneration()) {
    proxyCheckedAt = now;
    proxyCheckedGeneration = envGeneration();
    proxyConfigured = PROXY_VARS.some((v) => (envVar(v) ?? "") !== "");
  }
  return proxyConfigured;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Whether a pooled answer must be redone with fetch: a redirect to follow, or a body encoding the pool does not decode. */
function needsFetch(a: HttpAnswer, followRedirects: boolean): boolean {
  if (followRedirects && REDIRECTS.has(a.status)) return a.headers.some(([k]) => k === "location");
  for (const [k, v] of a.headers) if (k === "content-encoding" && v.trim().toLowerCase() !== "identity") return true;
  return false;
}

/** The smaller of two limits where 0 means unlimited. */
function minLimit(a: number, b: number): number {
  return a <= 0 ? b : b <= 0 ? a : Math.min(a, b);
}

/** The process's pooled HTTP client. */
export class HttpClient {
  private readonly limiter: HostLimiter;
  private retryCount = 0;

  /** Offline hard mode (issue 20 §3), read once per client. */
  private readonly offline: OfflinePolicy = offlinePolicy();

  constructor(readonly policy: ClientPolicy) {
    // Sockets beyond the open-file budget would fail with EMFILE mid-run: cap per host so they queue.
    const soft = policy.fdSoftLimit ?? openFileLimits()?.soft;
    const perHost = effectivePerHostLimit(policy.limits.limitPerHost, soft);
    // global_aiohttp_connector_limit bounds each destination, not the process's calls together: a
    // server's outer call (an agent's self-call to /v1/responses) holds its slot while the handler's
    // inner calls (model, tools) need theirs, so one shared budget deadlocks as soon as outer calls
    // fill it (limit 2 → 0 of 500 rollouts). Per destination, a call never waits on a slot its own
    // caller holds, whatever the limit. The total still sizes BUN_CONFIG_MAX_HTTP_REQUESTS (pool.ts),
    // which throttles only fetch's leaf calls to external endpoints.
    this.limiter = new HostLimiter(0, minLimit(policy.limits.limit, perHost.limit));
    // The process's own limit (not a test's stand-in) also bounds the sockets the pool keeps.
    if (policy.fdSoftLimit === undefined && soft !== undefined) setPoolBudget(fdCapPerHost(soft));
  }

  /**
   * Send one request with the timeout and retry rules of its kind. A response with a known length
   * comes back already read (the deadline covers the body, and its timer is cleared at once);
   * a stream keeps its deadline until it fires.
   */
  request(url: string, opts: RequestOptions = {}): Promise<Response> {
    const u = splitUrlCached(url);
    // The label is a per-request string: only build it when a profiler will record it.
    if (!profilingActive()) return this.send(u, url, opts, false);
    return profiled(`HttpClient.request ${opts.method ?? (opts.json === undefined && opts.body === undefined ? "GET" : "POST")} ${u.path}`, () => this.send(u, url, opts, false));
  }

  /**
   * As `request`, but the answer comes back read whole as an HttpAnswer, never a Response: for
   * callers that want status, headers and text (server-to-server JSON). Event streams are read to
   * their end, so stream with `request` instead.
   */
  exchange(url: string, opts: RequestOptions = {}): Promise<HttpAnswer> {
    const u = splitUrlCached(url);
    if (!profilingActive()) return this.send(u, url, opts, true);
    return profiled(`HttpClient.request ${opts.method ?? (opts.json === undefined && opts.body === undefined ? "GET" : "POST")} ${u.path}`, () => this.send(u, url, opts, true));
  }

  /** Requests queued for a connection slot to `host` (`host:port`). */
  queuedFor(host: string): number {
    return this.limiter.waiting(host);
  }

  private send(u: Readonly<UrlParts>, url: string, opts: RequestOptions, whole: false): Promise<Response>;
  private send(u: Readonly<UrlParts>, url: string, opts: RequestOptions, whole: true): Promise<HttpAnswer>;
  private async send(u: Readonly<UrlParts>, url: string, opts: RequestOptions, whole: boolean): Promise<Response | HttpAnswer> {
    // Visible at /_gym/outbound while in flight (the driver's stall watchdog follows it).
    // One clock read serves the proxy re-check, the retry budget and the tracked call.
    if (this.offline.on && !reachable(url, this.offline)) throw new OfflineError([maskUrlSecrets(url)]);
    const started = performance.now();
    const tracked = trackCall(opts.method ?? (opts.json === undefined && opts.body === undefined ? "GET" : "POST"), url, u.host, started);
    try {
      const kind = opts.kind ?? callKindOf(u.path);
      const timeoutS = opts.timeoutSeconds ?? this.policy.timeoutSeconds ?? DEFAULT_TIMEOUTS[kind];
      const budgetS = opts.retryBudgetSeconds ?? this.policy.retryBudgetSeconds;
      const maxBytes = this.policy.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      // D34 per request: gym's own servers never go through a proxy, whatever the environment says.
      const proxy = opts.internal === true ? { proxy: false } : undefined;
      const headers: Record<string, string> = { ...opts.headers };
      let body: string | Uint8Array | undefined = opts.body;
      if (opts.json !== undefined) {
        body = JSON.stringify(opts.json);
        headers["content-type"] ??= "application/json";
      }
      if (opts.cookies) {
        let cookie = "";
        for (const k in opts.cookies) cookie += `${cookie === "" ? "" : "; "}${k}=${opts.cookies[k]}`;
        if (cookie !== "") headers.cookie = cookie;
      }
      const method = opts.method ?? (body === undefined ? "GET" : "POST");
      const elapsed = () => (performance.now() - started) / 1000;
      const outer = opts.signal;
      // Plain-http calls go over the keep-alive pool (http-pool.ts) instead of fetch, whose 64-socket
      // cache makes half the calls reconnect at high concurrency and whose per-call CPU is about
      // twice the pool's: gym's own servers always (they bypass proxies, D34), and model calls to an
      // inference endpoint when no proxy variable is set and the caller asked for no encoding. Other
      // external calls (hubs, trackers: possibly large bodies best streamed) stay on fetch.
      // Redirects and encoded answers are rare; those requests are redone with fetch (needsFetch).
      let pooled = u.plainHttp && (u.poolTarget ?? poolable(u.target)) && (opts.internal === true || (kind === "model" && !proxyVarsSet(started) && !hasHeader(headers, "accept-encoding")));
      if (pooled && opts.internal !== true) headers["accept-encoding"] = "identity";
      const useBreaker = opts.breaker !== false;
      const livenessS = this.policy.livenessSeconds ?? DEFAULT_LIVENESS_SECONDS;
      for (let attempt = 0; ; attempt++) {
        // A down endpoint fails calls at once while its breaker is open (breaker.ts).
        const gate = useBreaker ? breakerAdmit(u.host) : undefined;
        if (gate !== undefined && gate !== "trial") {
          const last = gate.lastWhy.slice(0, 200);
          throw new RequestFailedError(
            `${method} ${url} not sent: ${u.host} failed ${gate.failures} times in a row over ${gate.failingForSeconds.toFixed(1)}s (last: ${last}); calls to it fail at once for ${gate.retryInSeconds.toFixed(1)}s more (circuit breaker), then one trial call goes through`,
            url,
            elapsed(),
            false,
            { cause: gate.lastError, kind: "circuit_open", attempts: attempt },
          );
        }
        if (opts.stats) opts.stats.attempts = attempt + 1;
        // A caller that gives up while queued leaves the queue (and the request is not sent).
        tracked.state = "queued";
        const release = this.limiter.tryAcquire(u.host) ?? (await this.limiter.acquire(u.host, outer));
        tracked.state = "sent";
        // One controller and one cancellable timer per attempt: AbortSignal.timeout's timers cannot be
        // cleared and pile up for the whole timeout (hours for episode calls), and AbortSignal.any
        // chains dependents onto the caller's signal.
        // The pool takes a plain cancel handle; fetch needs a real signal.
        const ac: AbortController | ExchangeAbort | undefined = timeoutS > 0 || outer || livenessS > 0 ? (pooled ? new ExchangeAbort() : new AbortController()) : undefined;
        const timer = timeoutS > 0 ? setTimeout(() => ac!.abort(timeoutReason()), timeoutS * 1000) : undefined;
        const unlink = outer ? linkAbort(outer, ac!) : undefined;
        // A silent call gets its peer probed (liveness.ts); the pool reports each byte, fetch only the headers.
        let watched: Watched | undefined;
        let watchSet: Set<Watched> | undefined;
        if (livenessS > 0) {
          watched = ac instanceof ExchangeAbort ? ac : fetchWatch(ac!);
          watchSet = watchCall(u.host, !u.plainHttp, opts.internal === true, livenessS, watched);
        }
        let settled = true;
        let res: Response | HttpAnswer | undefined;
        let error: unknown;
        try {
          if (pooled) {
            const a = await pooledRequest(u.hostname, u.port, method, u.target, headers, body, ac as ExchangeAbort | undefined, maxBytes);
            if (opts.internal !== true && needsFetch(a, opts.followRedirects !== false)) {
              // Redo this one with fetch, which follows redirects and decodes bodies.
              pooled = false;
              delete headers["accept-encoding"];
              attempt--;
              continue;
            }
            res = whole ? a : new Response(a.body.length === 0 ? null : a.body, { status: a.status, statusText: a.statusText, headers: a.headers });
          } else {
            const redirect = opts.followRedirects === false ? "manual" : "follow";
            const r = await fetch(url, { method, headers, body, redirect, signal: (ac as AbortController | undefined)?.signal, ...proxy } as RequestInit);
            watchSet?.delete(watched!);
            if (whole) {
              // Read inside the deadline; the timer is cleared below like any settled answer.
              res = { status: r.status, statusText: r.statusText, headers: [...r.headers], body: await readCapped(r, maxBytes) };
            } else if (bufferable(r)) {
              res = new Response(await readCapped(r, maxBytes), { status: r.status, statusText: r.statusText, headers: r.headers });
            } else {
              res = r;
              settled = false;
            }
          }
        } catch (e) {
          error = e;
          res = undefined;
        } finally {
          release();
          watchSet?.delete(watched!);
          if (settled) {
            clearTimeout(timer);
            unlink?.();
          }
        }
        if (res && !RETRY_STATUSES.has(res.status)) {
          if (useBreaker) breakerSuccess(u.host);
          return res;
        }
        if (error !== undefined) {
          if (outer?.aborted) {
            if (gate === "trial") breakerTrialAbandoned(u.host);
            throw outer.reason ?? error;
          }
          const timedOut = (error as Error)?.name === "TimeoutError";
          if (timedOut || !isConnectError(error)) {
            // A peer that failed its liveness probe is down like a refused one: the breaker counts it.
            if (useBreaker && failureKind(error) === "unresponsive") breakerFailure(u.host, (error as Error).message, error);
            else if (gate === "trial") breakerTrialAbandoned(u.host);
            const what = timedOut ? `timed out after ${timeoutS}s (request_timeout_seconds)` : `failed: ${(error as Error)?.message ?? error}`;
            if (this.policy.debug) log.error(`[request_debug ${method} ${url}]`, error);
            throw new RequestFailedError(`${method} ${url} ${what}; elapsed ${elapsed().toFixed(1)}s`, url, elapsed(), timedOut, { cause: error, kind: timedOut ? "timeout" : failureKind(error), attempts: attempt + 1 });
          }
        }
        // The peer's Retry-After (seconds or an HTTP date) wins over our backoff; the budget caps both.
        const asked = res ? retryAfterOf(res) : undefined;
        const delay = asked ?? backoffMs(attempt);
        const why = res ? `HTTP ${res.status}` : ((error as Error)?.message ?? String(error));
        if (useBreaker) breakerFailure(u.host, why, error, asked);
        if (elapsed() + delay / 1000 > budgetS) {
          if (res) return res;
          throw new RequestFailedError(
            `${method} ${url} failed after ${attempt + 1} attempts in ${elapsed().toFixed(1)}s: ${why}${asked === undefined ? "" : ` (Retry-After ${(asked / 1000).toFixed(0)}s)`}; the retry budget is request_retry_budget_seconds=${budgetS}`,
            url,
            elapsed(),
            false,
            { cause: error, kind: "connect", attempts: attempt + 1 },
          );
        }
        this.retryCount++;
        if (this.policy.debug) log.warn(`[request_debug ${method} ${url} headers=${JSON.stringify(Object.keys(headers))}]`, error ?? `status ${res?.status}`);
        // Upstream's two retry line shapes: model calls and everything else.
        if (kind === "model") {
          const retryKind = res?.status === 429 ? "rate_limit" : res ? "server_error" : "connection_error";
          logRetry(`[model_retry url=${url} status=${res?.status ?? "none"} kind=${retryKind} try=${attempt + 1} elapsed_s=${elapsed().toFixed(1)}${asked === undefined ? "" : ` retry_after_s=${(asked / 1000).toFixed(1)}`} error_msg=${why.slice(0, 200)}]`);
        } else logRetry(`[request_retry url=${url} error=${why} retry=${attempt + 1} elapsed_s=${elapsed().toFixed(1)}${asked === undefined ? "" : ` retry_after_s=${(asked / 1000).toFixed(1)}`}]`);
        if (res instanceof Response) await res.body?.cancel().catch(() => {});
        tracked.state = "backoff";
        // Sleep, but wake as soon as the endpoint's breaker opens: the next attempt then fails at once.
        await (useBreaker ? Promise.race([sleep(delay, outer), breakerOpened(u.host)]) : sleep(delay, outer));
        if (outer?.aborted) throw outer.reason;
      }
    } finally {
      untrackCall(tracked);
    }
  }

  /** Retries performed so far by this client (for tests and status lines). */
  get retries(): number {
    return this.retryCount;
  }
}
