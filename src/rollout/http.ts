/**
 * The driver's POST (`/run`, `/aggregate_metrics`, reverify's `/verify`): the runtime's one
 * outbound client (HttpClient: keep-alive pool, D15 deadline and retry policy, breaker) with no
 * proxy (D34: gym's own servers), its result turned into an outcome value. It never throws for
 * HTTP outcomes: the caller turns every outcome into a record.
 */
import { log } from "../log.ts";
import { HttpClient, RequestFailedError, answerText, type RequestStats } from "../runtime/http/http-client.ts";
import { isRefused, RETRY_STATUSES } from "../runtime/http/retry-policy.ts";

/** Statuses retried inside the budget (D15). */
export const RETRIED_STATUSES = RETRY_STATUSES;

/** Per-call limits. */
export interface PostOptions {
  /** Per-request timeout in ms; 0 disables it. */
  timeoutMs: number;
  /** Retry budget in ms, measured from the first attempt. */
  retryBudgetMs: number;
  /** Aborts the call from outside (walltime drain, shutdown). */
  signal?: AbortSignal;
  /** Extra headers. */
  headers?: Record<string, string>;
  /** Print request/response details (`global_aiohttp_client_request_debug`). */
  debug?: boolean;
}

/** What a POST ended with. */
export type PostOutcome =
  | { kind: "response"; status: number; text: string; attempts: number; elapsedMs: number }
  /**
   * Connect errors or retried statuses until the budget ran out (or the endpoint's breaker was
   * open); `refused` when nothing listened at the address (a dead destination).
   */
  | { kind: "unreachable"; message: string; lastStatus?: number; lastText?: string; attempts: number; elapsedMs: number; refused?: boolean }
  /** The per-request deadline passed. */
  | { kind: "timeout"; message: string; attempts: number; elapsedMs: number }
  /** The caller's signal aborted the call. */
  | { kind: "aborted"; attempts: number; elapsedMs: number };

/** The driver's clients (plain and debug): its concurrency is bounded by the driver's window, not a pool limit. */
const clients = new Map<boolean, HttpClient>();

function clientFor(debug: boolean): HttpClient {
  let c = clients.get(debug);
  if (!c) clients.set(debug, (c = new HttpClient({ retryBudgetSeconds: 120, limits: { limit: 0, limitPerHost: 0 }, debug })));
  return c;
}

/** POST a JSON body (already serialised) under the D15 policy. */
export async function postJson(url: string, body: string, opts: PostOptions): Promise<PostOutcome> {
  const started = performance.now();
  const stats: RequestStats = { attempts: 0 };
  const headers = opts.headers ? { "content-type": "application/json", ...opts.headers } : JSON_HEADERS;
  const elapsedMs = () => performance.now() - started;
  if (opts.signal?.aborted) return { kind: "aborted", attempts: 0, elapsedMs: 0 };
  try {
    const a = await clientFor(opts.debug === true).exchange(url, {
      method: "POST",
      body,
      headers,
      signal: opts.signal,
      internal: true,
      // The timeout is explicit: no need to classify the path.
      kind: "episode",
      timeoutSeconds: opts.timeoutMs / 1000,
      retryBudgetSeconds: opts.retryBudgetMs / 1000,
      stats,
    });
    const text = answerText(a);
    if (opts.debug) log.info(`[request_debug url=${url} status=${a.status}] ${text.slice(0, 2000)}`);
    if (!RETRY_STATUSES.has(a.status)) return { kind: "response", status: a.status, text, attempts: stats.attempts, elapsedMs: elapsedMs() };
    // The budget ran out on a retried status: the last answer is kept for the failure record.
    const message = `POST ${url} failed after ${stats.attempts} attempt(s) in ${(elapsedMs() / 1000).toFixed(1)} s: HTTP ${a.status} (retry budget request_retry_budget_seconds=${opts.retryBudgetMs / 1000})`;
    return { kind: "unreachable", message, lastStatus: a.status, lastText: text, attempts: stats.attempts, elapsedMs: elapsedMs() };
  } catch (e) {
    if (opts.signal?.aborted) return { kind: "aborted", attempts: stats.attempts, elapsedMs: elapsedMs() };
    if (e instanceof RequestFailedError && e.timedOut) return { kind: "timeout", message: e.message, attempts: stats.attempts, elapsedMs: elapsedMs() };
    const message = e instanceof Error ? e.message : String(e);
    // A breaker opened by refusals is a refusal too: the destination is dead either way.
    const refused = e instanceof RequestFailedError && (e.kind === "connect" || e.kind === "circuit_open") && isRefused(e.cause);
    return { kind: "unreachable", message, attempts: Math.max(1, stats.attempts), elapsedMs: elapsedMs(), refused };
  }
}

const JSON_HEADERS: Record<string, string> = { "content-type": "application/json" };
