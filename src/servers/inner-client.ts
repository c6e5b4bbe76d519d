/**
 * How server kinds call other servers: by instance name (resolved through the config, §2.3) or
 * by URL (a direct_http tool access), with cookies passed explicitly (§6.2, no cookie jar) and
 * the answer's Set-Cookie values returned for the caller to thread on. The transport is
 * injected so the runtime's client (timeouts, retry budget, pool limits, D15/D34) carries it.
 */
import type { ServerClient } from "../runtime/client.ts";

/** One inner answer: status, raw body text and the cookies it set. */
export interface InnerResponse {
  status: number;
  text: string;
  /** Set-Cookie values of this response only, name → value. */
  cookies: Record<string, string>;
  headers: Headers;
}

/** Options of one inner call. */
export interface InnerCallOptions {
  json?: unknown;
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

/** Parse the `name=value` pairs out of a response's Set-Cookie headers. */
export function setCookies(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of headers.getSetCookie()) {
    const first = line.split(";", 1)[0] ?? "";
    const eq = first.indexOf("=");
    if (eq > 0) out[first.slice(0, eq).trim()] = first.slice(eq + 1).trim();
  }
  return out;
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
    throw new Error(`${what} answered ${res.status} with a body that is not JSON: ${res.text.slice(0, 200)}`);
  }
}

/** The InnerClient over the runtime's ServerClient (deadlines, retry budget, no proxy for gym's own servers). */
export function innerClientFrom(sc: ServerClient): InnerClient {
  const finish = async (res: Response): Promise<InnerResponse> => ({ status: res.status, text: await res.text(), cookies: setCookies(res.headers), headers: res.headers });
  return {
    baseUrl: (name) => sc.address(name).baseUrl,
    call: async (name, path, opts = {}) => finish(await sc.request(name, path, { method: opts.method ?? "POST", json: opts.json, cookies: opts.cookies, headers: opts.headers, signal: opts.signal })),
    callUrl: async (url, opts = {}) => finish(await sc.http.request(url, { method: opts.method ?? "POST", json: opts.json, cookies: opts.cookies, headers: opts.headers, signal: opts.signal, internal: true })),
  };
}
