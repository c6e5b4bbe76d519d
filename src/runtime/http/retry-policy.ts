/**
 * The one retry policy of every outbound call (D15, runtime.md §2.5): which failures are retried,
 * how long to wait between attempts (exponential backoff with jitter from upstream's 0.5 s step,
 * or the peer's `Retry-After`), and the rate-limited `[request_retry …]` / `[model_retry …]`
 * lines. The driver, the servers, hubs and trackers all go through HttpClient, which applies it.
 */
import { log } from "../../log.ts";

/** Statuses retried inside the budget (D15). */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** The first backoff step: upstream sleeps 0.5 s between tries. */
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 10_000;

/** Wait before retry number `attempt` (0-based): exponential, capped, with jitter over its upper half. */
export function backoffMs(attempt: number): number {
  const base = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
}

/**
 * The wait a `Retry-After` value asks for, in ms: delta-seconds or an HTTP date (RFC 9110 §10.2.3);
 * undefined when absent or unreadable. A date in the past means "now" (0).
 */
export function retryAfterMs(value: string | null | undefined, nowMs = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (v === "") return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** Whether an error is a connection-level failure (retried, and counted by the breaker). */
export function isConnectError(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code ?? "";
  const msg = err instanceof Error ? err.message : String(err);
  return /ECONNREFUSED|ECONNRESET|ConnectionRefused|ConnectionClosed|EPIPE|Unable to connect|socket connection was closed|closed the connection|ENOTCONN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT/i.test(`${code} ${msg}`);
}

/** Whether an error is a refused connection (nothing listens): what a dead destination looks like. */
export function isRefused(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code ?? "";
  const msg = err instanceof Error ? err.message : String(err);
  return /ECONNREFUSED|ConnectionRefused|Unable to connect/i.test(`${code} ${msg}`);
}

/** Sleep `ms`, ending early (resolved) when `signal` aborts: the caller checks the signal after. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

let retryLines = 0;

/**
 * Log one retry in upstream's shape, rate-limited process-wide (the first 20, then every 100th,
 * as upstream prints every 100th connection retry) so a 429 storm cannot flood stderr.
 */
export function logRetry(line: string): void {
  if (++retryLines <= 20 || retryLines % 100 === 0) log.warn(line);
}
