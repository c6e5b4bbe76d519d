/**
 * Catching a dead (hung) peer in seconds without cutting long generations short. A non-streaming
 * model call legitimately sends nothing for minutes, so a plain time-to-first-byte deadline cannot
 * tell a slow generation from a peer that hangs (SIGSTOPped, deadlocked, a half-open socket).
 * Instead, when a call has received nothing for `request_liveness_timeout_seconds` (default 15),
 * its peer is probed once (one `GET /` per host, shared by every waiting call, on a fresh
 * connection): any HTTP answer means alive and the calls keep waiting; no answer within the same
 * time means the peer is not serving, and every call to it that has been silent that long fails
 * with an `E_UNRESPONSIVE` error. So a hung peer costs 15–30 s, not request_timeout_seconds (up to
 * 6 h). Activity is the pool's last byte received; for fetch calls, the arrival of the headers.
 */

/** Default `request_liveness_timeout_seconds` (0 disables). */
export const DEFAULT_LIVENESS_SECONDS = 15;

/** One watched attempt. */
export interface Watched {
  /** performance.now() of the last sign of life (send, or last byte). */
  lastActivity(): number;
  abort(reason: unknown): void;
}

interface Host {
  /** Origin to probe (`http://host:port`). */
  origin: string;
  /** Probe without a proxy (gym's own servers, D34). */
  direct: boolean;
  calls: Set<Watched>;
  /** The liveness timeout of the calls watched here. */
  seconds: number;
  probing: boolean;
  lastAlive: number;
}

const hosts = new Map<string, Host>();
let timer: Timer | undefined;
let periodMs = 0;

/** The error a silent call fails with when its peer did not answer the probe. */
export function unresponsiveError(origin: string, seconds: number): Error {
  return Object.assign(new Error(`${origin} did not answer a liveness probe (GET /) within ${seconds}s while this call had received nothing for ${seconds}s: the server is hung or not serving (request_liveness_timeout_seconds)`), {
    name: "UnresponsiveError",
    code: "E_UNRESPONSIVE",
  });
}

async function probe(h: Host, seconds: number): Promise<void> {
  h.probing = true;
  const started = performance.now();
  try {
    const res = await fetch(`${h.origin}/`, { signal: AbortSignal.timeout(seconds * 1000), redirect: "manual", ...(h.direct ? { proxy: false } : {}) } as RequestInit);
    await res.body?.cancel().catch(() => {});
    h.lastAlive = performance.now();
  } catch {
    // No answer: fail every call to this peer that has been silent since before the probe began.
    const err = unresponsiveError(h.origin, seconds);
    for (const w of [...h.calls]) if (w.lastActivity() <= started) w.abort(err);
  } finally {
    h.probing = false;
  }
}

function tick(): void {
  const now = performance.now();
  let any = false;
  for (const [key, h] of hosts) {
    if (h.calls.size === 0) {
      hosts.delete(key);
      continue;
    }
    any = true;
    const silentFor = h.seconds * 1000;
    if (h.probing || now - h.lastAlive < silentFor) continue;
    for (const w of h.calls) {
      if (now - w.lastActivity() >= silentFor) {
        void probe(h, h.seconds);
        break;
      }
    }
  }
  if (!any && timer) {
    clearInterval(timer);
    timer = undefined;
  }
}

/** Watch one attempt to `hostKey` (`host:port`); returns the set to delete it from when the attempt ends. */
export function watchCall(hostKey: string, https: boolean, direct: boolean, seconds: number, w: Watched): Set<Watched> {
  let h = hosts.get(hostKey);
  if (!h) hosts.set(hostKey, (h = { origin: `${https ? "https" : "http"}://${hostKey}`, direct, calls: new Set(), seconds, probing: false, lastAlive: Number.NEGATIVE_INFINITY }));
  h.calls.add(w);
  // The usual case: the timer runs often enough already.
  if (timer && periodMs <= seconds * 334) return h.calls;
  const period = Math.max(50, (seconds * 1000) / 3);
  if (!timer || period < periodMs) {
    if (timer) clearInterval(timer);
    periodMs = period;
    timer = setInterval(tick, period);
    // Watching never keeps a process alive by itself.
    timer.unref();
  }
  return h.calls;
}
