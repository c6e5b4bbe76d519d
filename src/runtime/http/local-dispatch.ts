/**
 * In-process dispatch of a server's calls to itself (issue 19): upstream's simple_agent `/run`
 * POSTs to its own `/v1/responses` over HTTP, one loopback hop per rollout that costs a socket
 * write and read, an HTTP parse and a request object on both ends. A server process registers its
 * handler's local entry under its own origin; ServerClient.exchange sends a call whose destination
 * is that very origin through it instead: the same routing, body rules (limit, JSON, 413/422),
 * sessions and cookies, rollout prefix, error shapes, profiling and access log, with the answer
 * handed back as text (no bytes, no Response). Every other destination stays on HTTP.
 */

/** A request as the HTTP client would have sent it. */
export interface LocalRequest {
  method: string;
  /** Path and query, as on the request line. */
  target: string;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: string | undefined;
  /** Aborts the call (the caller's deadline or signal): the handler sees it as its request's signal. */
  signal: AbortSignal;
}

/** The answer of a local call, as the HTTP client would have read it. */
export interface LocalAnswer {
  status: number;
  statusText: string;
  /** Header lines, names lower-cased, each Set-Cookie its own entry. */
  headers: [string, string][];
  text: string;
}

/** A server's local entry. */
export type LocalHandler = (req: LocalRequest) => Promise<LocalAnswer>;

const servers = new Map<string, LocalHandler>();

/**
 * Serve calls to `origin` (`http://host:port` exactly as ServerClient builds base URLs from the
 * config) in process. Returns the function that stops it (the server is shutting down).
 */
export function serveLocally(origin: string, handler: LocalHandler): () => void {
  servers.set(origin, handler);
  return () => {
    if (servers.get(origin) === handler) servers.delete(origin);
  };
}

/** The local entry of the server at `baseUrl`, when it is this process. */
export function localServer(baseUrl: string): LocalHandler | undefined {
  return servers.size === 0 ? undefined : servers.get(baseUrl);
}
