/**
 * The driver's hot-path POST: native `fetch` (faster than ofetch on loopback) with the D15
 * policy — a per-request deadline, connect errors and 429/502/503/504 retried with exponential
 * backoff plus jitter inside a retry budget — and no HTTP proxy (D34: gym's own servers).
 * It never throws for HTTP outcomes: the caller turns every outcome into a record.
 */
import { log } from "../log.ts";
import { ExchangeAbort, pooledRequest, poolable } from "../runtime/http/http-pool.ts";

/** Statuses retried inside the budget (D15). */
export const RETRIED_STATUSES = new Set([429, 502, 503, 504]);

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
  /** Connect errors or retried statuses until the budget ran out. */
  | { kind: "unreachable"; message: string; lastStatus?: number; lastText?: string; attempts: number; elapsedMs: number }
  /** The per-request deadline passed. */
  | { kind: "timeout"; message: string; attempts: number; elapsedMs: number }
  /** The caller's signal aborted the call. */
  | { kind: "aborted"; attempts: number; elapsedMs: number };

let retryLines = 0;

/** One decoder for every answer (decode() without `stream` keeps no state between calls). */
const utf8 = new TextDecoder();

/**
 * Calls to abort per caller signal: one listener per signal instead of an add/remove per
 * attempt (with hundreds in flight, each removeEventListener scanned all the others).
 */
const linked = new WeakMap<AbortSignal, Set<ExchangeAbort>>();

/** Abort `abort` when `outer` aborts; the returned function unlinks it. */
function linkAbort(outer: AbortSignal, abort: ExchangeAbort): () => void {
  if (outer.aborted) {
    abort.abort(outer.reason);
    return () => {};
  }
  let members = linked.get(outer);
  if (!members) {
    const set = (members = new Set());
    linked.set(outer, set);
    outer.addEventListener("abort", () => {
      for (const a of set) a.abort(outer.reason);
      set.clear();
    }, { once: true });
  }
  const set = members;
  set.add(abort);
  return () => void set.delete(abort);
}

function backoffMs(retry: number): number {
  const base = Math.min(500 * 2 ** retry, 10_000);
  return base / 2 + Math.random() * (base / 2);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

type PoolTarget = { hostname: string; port: number; target: string };

/** poolTarget answers per URL: a run has a handful of `/run` URLs, so parsing each once is enough. */
const poolTargets = new Map<string, PoolTarget | undefined>();

/** poolTarget, memoised (a URL object per rollout was a visible share of the driver's CPU). */
function cachedPoolTarget(url: string): PoolTarget | undefined {
  if (poolTargets.has(url)) return poolTargets.get(url);
  const t = poolTarget(url);
  // Bounded: a pathological caller with endless distinct URLs just stops being memoised.
  if (poolTargets.size < 1024) poolTargets.set(url, t);
  return t;
}

/** Where a plain-http URL goes on the wire, for the keep-alive pool; undefined for anything else. */
function poolTarget(url: string): PoolTarget | undefined {
  if (!url.startsWith("http://")) return undefined;
  const u = new URL(url);
  const target = u.pathname + u.search;
  if (u.username !== "" || !poolable(target)) return undefined;
  const hostname = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
  return { hostname, port: Number(u.port || 80), target };
}

/** One POST attempt: status and body text, or a throw (connect error, deadline, abort). */
async function attempt(url: string, pooled: ReturnType<typeof poolTarget>, body: string, headers: Record<string, string>, abort: ExchangeAbort): Promise<{ status: number; text: string }> {
  if (pooled) {
    // Bun's fetch keeps only 64 idle sockets: above 64 in flight half the /run calls would
    // reconnect. The runtime's keep-alive pool reuses one socket per in-flight call.
    const a = await pooledRequest(pooled.hostname, pooled.port, "POST", pooled.target, headers, body, abort);
    return { status: a.status, text: utf8.decode(a.body) };
  }
  abort.throwIfAborted();
  const ac = new AbortController();
  abort.watch((reason) => ac.abort(reason));
  try {
    const res = await fetch(url, { method: "POST", body, headers, signal: ac.signal, proxy: false } as RequestInit);
    return { status: res.status, text: await res.text() };
  } finally {
    abort.watch(undefined);
  }
}

/** POST a JSON body (already serialised) under the D15 policy. */
export async function postJson(url: string, body: string, opts: PostOptions): Promise<PostOutcome> {
  const started = performance.now();
  const pooled = cachedPoolTarget(url);
  const headers = { "content-type": "application/json", ...opts.headers };
  let attempts = 0;
  for (;;) {
    attempts++;
    if (opts.signal?.aborted) return { kind: "aborted", attempts, elapsedMs: performance.now() - started };
    // One cancellable timer per attempt: AbortSignal.timeout timers cannot be cleared and would
    // live for the whole episode timeout (hours) once per rollout.
    const abort = new ExchangeAbort();
    let timedOut = false;
    const timer = opts.timeoutMs > 0 ? setTimeout(() => ((timedOut = true), abort.abort(new Error("request timeout"))), opts.timeoutMs) : undefined;
    const unlink = opts.signal ? linkAbort(opts.signal, abort) : undefined;
    let retryReason: string;
    let lastStatus: number | undefined;
    let lastText: string | undefined;
    try {
      const res = await attempt(url, pooled, body, headers, abort);
      const text = res.text;
      if (opts.debug) log.info(`[request_debug url=${url} status=${res.status}] ${text.slice(0, 2000)}`);
      if (!RETRIED_STATUSES.has(res.status)) return { kind: "response", status: res.status, text, attempts, elapsedMs: performance.now() - started };
      retryReason = `HTTP ${res.status}`;
      lastStatus = res.status;
      lastText = text;
    } catch (e) {
      const elapsedMs = performance.now() - started;
      if (opts.signal?.aborted) return { kind: "aborted", attempts, elapsedMs };
      if (timedOut) {
        return { kind: "timeout", message: `POST ${url} timed out after ${(opts.timeoutMs / 1000).toFixed(1)} s (request_timeout_seconds)`, attempts, elapsedMs };
      }
      retryReason = (e as Error).message || String(e);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      unlink?.();
    }
    const elapsedMs = performance.now() - started;
    const wait = backoffMs(attempts - 1);
    if (elapsedMs + wait > opts.retryBudgetMs) {
      return {
        kind: "unreachable",
        message: `POST ${url} failed after ${attempts} attempt(s) in ${(elapsedMs / 1000).toFixed(1)} s: ${retryReason} (retry budget request_retry_budget_seconds=${opts.retryBudgetMs / 1000})`,
        lastStatus,
        lastText,
        attempts,
        elapsedMs,
      };
    }
    // One line per retry in the upstream shape, but rate-limited so a 429 storm cannot flood stderr.
    if (++retryLines <= 20 || retryLines % 100 === 0) {
      log.warn(`[request_retry url=${url} error=${retryReason} retry=${attempts} elapsed_s=${(elapsedMs / 1000).toFixed(2)}]`);
    }
    await sleep(wait, opts.signal);
  }
}
