/**
 * How server kinds call other servers: by instance name (resolved through the config, §2.3) or
 * by URL (a direct_http tool access), with cookies passed explicitly (§6.2, no cookie jar) and
 * the answer's Set-Cookie values returned for the caller to thread on. The transport is
 * injected so the runtime's client (timeouts, retry budget, pool limits, D15/D34) carries it.
 */
import { answerCookies, answerText, type HttpAnswer, type ServerClient } from "../runtime/http/client.ts";
import { RuntimeError } from "../errors.ts";

/** One inner answer: status, raw body text and the cookies it set. */
export interface InnerResponse {
  status: number;
  text: string;
  /** Set-Cookie values of this response only, name → value. */
  cookies: Record<string, string>;
  /** Header lines, names lower-cased, each Set-Cookie its own entry. */
  headers: [string, string][];
}

/** Options of one inner call. */
export interface InnerCallOptions {
  json?: unknown;
  /** The JSON body as ready-made text (sent as is, `Content-Type: application/json`); wins over `json`. */
  rawJson?: string;
  cookies?: Record<string, string>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  method?: "POST" | "GET";
}

/** The transport servers use for server-to-server calls. */
export interface InnerClient {
  /** `http://host:port` of a server instance. */
  baseUrl(serverName: string): string;
  /** Call `<base of serverName><path>`. */
  call(serverName: string, path: string, opts?: InnerCallOptions): Promise<InnerResponse>;
  /** Call an absolute URL (tool accesses handed over by an environment server). */
  callUrl(url: string, opts?: InnerCallOptions): Promise<InnerResponse>;
}

/** A `Cookie` header from a name → value map. */
export function cookieHeader(cookies: Record<string, string> | undefined): string | undefined {
  if (!cookies) return undefined;
  const parts = Object.entries(cookies).map(([k, v]) => `${k}=${v}`);
  return parts.length > 0 ? parts.join("; ") : undefined;
}

/** The JSON body of an inner answer, or a clear error naming the URL. */
export function innerJson(res: InnerResponse, what: string): unknown {
  try {
    return JSON.parse(res.text);
  } catch {
    throw new RuntimeError(`${what} answered ${res.status} with a body that is not JSON: ${res.text.slice(0, 200)}`);
  }
}

/** The InnerClient over the runtime's ServerClient (deadlines, retry budget, no proxy for gym's own servers). */
export function innerClientFrom(sc: ServerClient): InnerClient {
  return {
    baseUrl: (name) => sc.address(name).baseUrl,
    call: async (name, path, opts = {}) => innerResponse(await sc.exchange(name, path, { method: opts.method ?? "POST", ...bodyOf(opts), cookies: opts.cookies, signal: opts.signal })),
    callUrl: async (url, opts = {}) => innerResponse(await sc.http.exchange(url, { method: opts.method ?? "POST", ...bodyOf(opts), cookies: opts.cookies, signal: opts.signal, internal: true })),
  };
}

/** The body and headers of a call: `rawJson` as the body text, else `json` for the client to serialise. */
function bodyOf(opts: InnerCallOptions): { json?: unknown; body?: string; headers?: Record<string, string> } {
  if (opts.rawJson === undefined) return { json: opts.json, headers: opts.headers };
  return { body: opts.rawJson, headers: { ...opts.headers, "content-type": "application/json" } };
}

/** An InnerResponse from the runtime client's whole answer. */
export function innerResponse(a: HttpAnswer): InnerResponse {
  return { status: a.status, text: answerText(a), cookies: answerCookies(a), headers: a.headers };
}
