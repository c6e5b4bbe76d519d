/**
 * The stall watchdog's trace: from the server a stalled `/run` waits on, follow each gym server's
 * `GET /_gym/outbound` (what it waits on right now) to the deepest hop, and say in one line what
 * that hop waits on — a connection slot, an external endpoint, a server that does not answer, or
 * nothing (busy in its own handler). Bounded: 2 s per hop, at most 6 hops.
 */
import type { WaitGroup } from "../runtime/http/outbound-waits.ts";

const HOP_TIMEOUT_MS = 2000;
const MAX_HOPS = 6;

/** The waits a server reports; undefined when it does not answer, "unknown" when it is not a gym server. */
async function waitsOf(base: string): Promise<WaitGroup[] | undefined | "unknown"> {
  try {
    // D34: gym's own servers, never through a proxy.
    const res = await fetch(`${base}/_gym/outbound`, { signal: AbortSignal.timeout(HOP_TIMEOUT_MS), proxy: false } as RequestInit);
    if (!res.ok) return "unknown";
    const body = (await res.json()) as { waits?: WaitGroup[] };
    return Array.isArray(body.waits) ? body.waits : [];
  } catch {
    return undefined;
  }
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * One line naming the deepest waiting hop behind `server` at `baseUrl`, e.g.
 * `my_agent → policy_model: POST http://…/v1/responses queued for a connection slot (12 calls, oldest 31 s)`.
 */
export async function traceStall(server: string, baseUrl: string): Promise<string> {
  const path: string[] = [server];
  let base = baseUrl;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const waits = await waitsOf(base);
    const here = path.join(" → ");
    if (waits === undefined) return `${here}: does not answer at ${base} (hung, stopped or overloaded: check its log)`;
    if (waits === "unknown") return `${here}: is not a gym server (no /_gym/outbound at ${base}); the wait is inside it`;
    // The oldest call to a server not already on the path: a server's own caller (and an agent's
    // self-call) sit on it too, and in-process stacks report every hop's calls together.
    const w = waits.find((x) => x.to === "external" || !path.includes(x.to));
    if (!w) return `${here}: waits on no outbound call (busy in its own handler)`;
    const calls = `${w.count} call${w.count === 1 ? "" : "s"}, oldest ${w.oldest_seconds} s`;
    if (w.state === "queued") {
      return `${here}: ${w.method} ${w.url} (${w.to}) is queued for a connection slot (${calls}); raise global_aiohttp_connector_limit / _per_host`;
    }
    if (w.state === "backoff") return `${here}: ${w.method} ${w.url} (${w.to}) is backing off between retries (${calls}); see the [request_retry]/[model_retry] lines`;
    const next = originOf(w.url);
    if (w.to === "external" || !next) return `${here}: waits on the external endpoint ${w.method} ${w.url} (${calls})`;
    path.push(w.to);
    base = next;
  }
  return `${path.join(" → ")}: (trace stopped after ${MAX_HOPS} hops)`;
}
