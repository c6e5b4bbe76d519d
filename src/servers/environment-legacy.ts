/**
 * legacy_agent (runtime.md §10.3): an opaque relay of `POST /run` (body, headers, cookies) to
 * the agent's `/run` and of its answer back (status, body, every Set-Cookie), and of
 * `/aggregate_metrics`. No admission, timeout or cleanup applies.
 */
import { InnerServerError, type RequestContext, type Route, type ServerApp } from "../runtime/http/http-types.ts";
import { PATHS } from "./episode-protocol.ts";
import type { HttpAnswer } from "../runtime/http/client.ts";
import { innerJson, type InnerClient, type InnerResponse } from "./inner-client.ts";

/**
 * Sends the request body bytes unchanged to `<agent><path>` and hands back the answer as received
 * (the relay's fast path: no parse, no re-encode, and the answer's bytes are never decoded).
 */
export type RawRelay = (agent: string, path: string, init: { body: string; headers: Record<string, string>; cookies: Record<string, string>; signal: AbortSignal }) => Promise<HttpAnswer>;

/** Hop-by-hop headers dropped in both directions (cookies travel separately). */
const HOP = new Set(["connection", "content-encoding", "content-length", "cookie", "host", "keep-alive", "transfer-encoding", "upgrade"]);

async function relay(client: InnerClient, raw: RawRelay | undefined, agent: string, path: string, ctx: RequestContext): Promise<Response> {
  const headers: Record<string, string> = {};
  ctx.request.headers.forEach((v, k) => {
    if (!HOP.has(k.toLowerCase())) headers[k] = v;
  });
  const r: HttpAnswer | InnerResponse =
    raw && ctx.rawBody !== undefined
      ? await raw(agent, path, { body: ctx.rawBody, headers, cookies: ctx.cookies, signal: ctx.signal })
      : await client.call(agent, path, { json: ctx.body, headers, cookies: ctx.cookies, signal: ctx.signal });
  // Every line but the hop-by-hop ones, Set-Cookie lines included, in the order received.
  const out: [string, string][] = [];
  for (const line of r.headers) if (!HOP.has(line[0])) out.push(line);
  // A pooled answer's bytes go back as they came; an in-process or InnerResponse one is text.
  const body = "body" in r && r.text === undefined ? (r.body.byteLength === 0 ? null : r.body) : (r.text ?? "");
  return new Response(body, { status: r.status, headers: out });
}

/** A RawRelay over the runtime's client: `baseUrl` resolves the agent, `exchange` sends with its deadlines and retries. */
export function rawRelayOver(client: InnerClient, exchange: (url: string, init: { method: "POST"; body: string; headers: Record<string, string>; cookies: Record<string, string>; signal: AbortSignal; internal: true }) => Promise<HttpAnswer>): RawRelay {
  return (agent, path, init) => exchange(`${client.baseUrl(agent)}${path}`, { method: "POST", internal: true, ...init });
}

/** Build a legacy_agent relay for the named agent. */
export function legacyAgentApp(opts: { className: string; instanceName: string; agentServer: string; client: InnerClient; raw?: RawRelay }): ServerApp {
  const routes: Route[] = [
    // With a raw transport the body is relayed as received (§10.3), never parsed here.
    { method: "POST", path: PATHS.run, rawBody: opts.raw !== undefined, handler: (ctx) => relay(opts.client, opts.raw, opts.agentServer, PATHS.run, ctx) },
    {
      method: "POST",
      path: PATHS.aggregateMetrics,
      // Forwarded to the agent, which aggregates its own rollouts; a non-2xx is an inner-server error.
      handler: async (ctx) => {
        const r = await opts.client.call(opts.agentServer, PATHS.aggregateMetrics, { json: ctx.body, signal: ctx.signal });
        if (r.status < 200 || r.status >= 300) throw new InnerServerError(r.status, r.text, `${opts.agentServer}${PATHS.aggregateMetrics}`);
        return innerJson(r, `agent ${opts.agentServer}`);
      },
    },
  ];
  return { className: opts.className, instanceName: opts.instanceName, routes, sessions: false };
}
