/**
 * What this process is waiting on right now: every outbound call of HttpClient in flight, with its
 * state (queued for a connection slot, on the wire, or backing off before a retry). Every gym server
 * serves a summary at `GET /_gym/outbound`, so the rollout driver's stall watchdog can follow a
 * stalled `/run` hop by hop to the deepest server that waits, and say what it waits on.
 */
import { poolMetrics } from "./pool-metrics.ts";

/** Where one call is. */
export type CallState = "queued" | "sent" | "backoff";

/** One outbound call in flight. */
export interface OutboundCall {
  method: string;
  /** The URL (its query is dropped when shown: queries may carry keys). */
  url: string;
  /** `host[:port]`. */
  host: string;
  startedAt: number;
  state: CallState;
}

const calls = new Set<OutboundCall>();

/** Register a call; `untrackCall` it when it ends. */
export function trackCall(method: string, url: string, host: string, startedAt: number): OutboundCall {
  const c: OutboundCall = { method, url, host, startedAt, state: "queued" };
  calls.add(c);
  return c;
}

/** The call ended. */
export function untrackCall(c: OutboundCall): void {
  calls.delete(c);
}

/** One group of waits in `/_gym/outbound`. */
export interface WaitGroup {
  /** The configured server the calls go to, or `external`. */
  to: string;
  method: string;
  url: string;
  state: CallState;
  count: number;
  oldest_seconds: number;
}

/** The calls in flight grouped by (URL, state), oldest first (at most 20 groups). */
export function outboundSnapshot(now = performance.now()): { waits: WaitGroup[] } {
  const groups = new Map<string, WaitGroup>();
  for (const c of calls) {
    const q = c.url.indexOf("?");
    const url = q < 0 ? c.url : c.url.slice(0, q);
    const key = `${c.state} ${c.method} ${url}`;
    const age = (now - c.startedAt) / 1000;
    const g = groups.get(key);
    if (g) {
      g.count++;
      g.oldest_seconds = Math.max(g.oldest_seconds, age);
    } else groups.set(key, { to: poolMetrics.destinationOf(c.host), method: c.method, url, state: c.state, count: 1, oldest_seconds: age });
  }
  const waits = [...groups.values()].sort((a, b) => b.oldest_seconds - a.oldest_seconds).slice(0, 20);
  for (const w of waits) w.oldest_seconds = Math.round(w.oldest_seconds * 10) / 10;
  return { waits };
}
