/**
 * A circuit breaker per endpoint (`host:port`), process-wide like the pool: after sustained
 * failures (connect errors, 429/502/503/504, an unresponsive peer — at least FAILURES in a row
 * spanning at least SUSTAINED_MS, with no success between) calls to that endpoint fail at once
 * for a cooldown instead of each spending its whole retry budget, so a down endpoint costs
 * seconds, not (rows ÷ concurrency) × request_retry_budget_seconds. After the cooldown one trial
 * call goes through (half-open): a success closes the breaker, a failure reopens it for twice
 * as long (up to MAX_COOLDOWN_MS). A `Retry-After` the endpoint sent lengthens the cooldown.
 */

/** Consecutive failures before the breaker may open. */
const FAILURES = 5;
/** …and the span they must cover: a burst of failures in one instant is not yet "sustained". */
const SUSTAINED_MS = 5_000;
const FIRST_COOLDOWN_MS = 5_000;
const MAX_COOLDOWN_MS = 60_000;

interface State {
  failures: number;
  firstFailureAt: number;
  /** 0 = closed; else the time (performance.now) the cooldown ends. */
  openUntil: number;
  cooldownMs: number;
  /** A half-open trial call is in flight. */
  trial: boolean;
  lastError: unknown;
  lastWhy: string;
  /** Resolves when the breaker opens (callers sleeping before a retry wake up to fail at once). */
  opened: { promise: Promise<void>; resolve: () => void } | undefined;
}

const states = new Map<string, State>();

function stateOf(endpoint: string): State {
  let s = states.get(endpoint);
  if (!s) states.set(endpoint, (s = { failures: 0, firstFailureAt: 0, openUntil: 0, cooldownMs: 0, trial: false, lastError: undefined, lastWhy: "", opened: undefined }));
  return s;
}

/** Why a call was refused by an open breaker. */
export interface OpenCircuit {
  /** Failures in a row so far. */
  failures: number;
  /** Seconds the failures have lasted. */
  failingForSeconds: number;
  /** Seconds until the next trial call. */
  retryInSeconds: number;
  /** The last failure (its error, when it was one). */
  lastError: unknown;
  lastWhy: string;
}

/**
 * Whether a call to `endpoint` may go out now: undefined when it may (true for a half-open
 * trial, which must report its result), else why not.
 */
export function breakerAdmit(endpoint: string): OpenCircuit | "trial" | undefined {
  // The hot path: one map lookup, no clock read, while nothing failed.
  if (states.size === 0) return undefined;
  const s = states.get(endpoint);
  if (!s || s.openUntil === 0) return undefined;
  const now = performance.now();
  if (now >= s.openUntil && !s.trial) {
    s.trial = true;
    return "trial";
  }
  return { failures: s.failures, failingForSeconds: (now - s.firstFailureAt) / 1000, retryInSeconds: Math.max(0, (s.openUntil - now) / 1000), lastError: s.lastError, lastWhy: s.lastWhy };
}

/** The endpoint answered (any status but a retried one): close the breaker. */
export function breakerSuccess(endpoint: string): void {
  if (states.size === 0) return;
  const s = states.get(endpoint);
  if (!s || (s.failures === 0 && s.openUntil === 0)) return;
  s.failures = 0;
  s.openUntil = 0;
  s.cooldownMs = 0;
  s.trial = false;
}

/** One failure of a call to `endpoint`; `retryAfterMs` is what the endpoint asked for, if anything. */
export function breakerFailure(endpoint: string, why: string, error: unknown, retryAfterMs?: number, now = performance.now()): void {
  const s = stateOf(endpoint);
  if (s.failures === 0) s.firstFailureAt = now;
  s.failures++;
  s.lastError = error;
  s.lastWhy = why;
  const wait = (ms: number) => Math.max(ms, retryAfterMs ?? 0);
  if (s.trial) {
    s.trial = false;
    s.cooldownMs = Math.min(MAX_COOLDOWN_MS, s.cooldownMs * 2);
    s.openUntil = now + wait(s.cooldownMs);
  } else if (s.openUntil === 0 && s.failures >= FAILURES && now - s.firstFailureAt >= SUSTAINED_MS) {
    s.cooldownMs = FIRST_COOLDOWN_MS;
    s.openUntil = now + wait(s.cooldownMs);
    s.opened?.resolve();
    s.opened = undefined;
  }
}

/** A promise that resolves when the breaker of `endpoint` opens next (or at once when it is open). */
export function breakerOpened(endpoint: string): Promise<void> {
  const s = stateOf(endpoint);
  if (s.openUntil !== 0) return Promise.resolve();
  if (!s.opened) {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    s.opened = { promise, resolve };
  }
  return s.opened.promise;
}

/** A half-open trial ended without an answer either way (the caller gave up): let another trial go. */
export function breakerTrialAbandoned(endpoint: string): void {
  const s = states.get(endpoint);
  if (s) s.trial = false;
}

/** Forget every breaker (tests). */
export function resetBreakers(): void {
  states.clear();
}
