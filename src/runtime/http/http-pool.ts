/**
 * A keep-alive HTTP/1.1 connection pool for calls between gym's own servers (plain `http://`,
 * no proxy, D34). Bun's `fetch` keeps at most 64 idle sockets per process, so above 64 requests
 * in flight about half of all requests open a fresh TCP connection (connect, accept, close,
 * TIME_WAIT on both sides): at 256 in flight that more than doubles the CPU of every hop. Here
 * every socket goes back to its host's idle list after a complete answer, so sockets are reused
 * whatever the concurrency and their number never exceeds the peak in flight, which the client's
 * per-host limiter bounds (http-fd-budget.ts). Idle sockets close after 15 s (upstream's
 * `keepalive_timeout`). The wire stays plain HTTP/1.1: Host, Content-Length, the caller's headers.
 * A gym server on this machine is reached over its Unix-domain socket when it has one
 * (unix-socket.ts): the same bytes with less kernel work per hop; TCP otherwise.
 */
import type { Socket, SocketHandler } from "bun";
import { poolMetrics } from "./pool-metrics.ts";
import { clientSocketPath } from "./unix-socket.ts";

/** An answer read whole. */
export interface PooledAnswer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array;
}

/** Idle sockets older than this are closed (aiohttp's keepalive_timeout, runtime.md §2.4). */
const IDLE_CLOSE_MS = 15_000;
/** A response head larger than this is refused (a peer that never ends its headers). */
const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk-size or trailer line longer than this is refused. */
const MAX_LINE_BYTES = 8 * 1024;
/** How long a host found without a Unix socket stays on TCP before the socket directory is looked at again. */
const UNIX_RECHECK_MS = 5_000;
/** Default cap on a response body (HttpClient passes the policy's `maxResponseBytes`). */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024 * 1024;

/** Chunked-body decoder states. */
enum Chunk {
  Size,
  Data,
  DataEnd,
  Trailer,
}
const CRLF2 = Buffer.from("\r\n\r\n");
const SAFE_TARGET = /^[\x21-\x7e]+$/;
/** `HTTP/1.x NNN[ reason]` (the reason phrase, when present, follows one space). */
const STATUS_LINE = /^HTTP\/1\.[01] \d{3}(?: .*)?$/;
/** A header name that needs no trimming or lower-casing. */
const LOWER_NAME = /^[a-z0-9-]+$/;
const BAD_HEADER = /[\r\n\0]/;
/** Anything outside printable ASCII and tab: such a header needs the checks and Latin-1 path below. */
const NOT_PLAIN = /[^\x20-\x7e\t]/;

interface Exchange {
  resolve: (a: PooledAnswer) => void;
  reject: (e: Error) => void;
  head: Buffer | undefined;
  status: number;
  statusText: string;
  headers: [string, string][];
  /** -1: read until close; -2: chunked. */
  length: number;
  /** Decoded body bytes so far. */
  parts: Buffer[];
  received: number;
  /** Body bytes allowed. */
  maxBytes: number;
  /** Chunked decoding: state, bytes left in the current chunk, a partial size/trailer line. */
  chunk: Chunk;
  chunkLeft: number;
  line: string;
  /** The caller's cancel handle, told of each byte received (liveness.ts watches it). */
  handle: ExchangeAbort | undefined;
  keepAlive: boolean;
  noBody: boolean;
  gotBytes: boolean;
}

interface Conn {
  socket: Socket<Conn> | undefined;
  /** Still counted in `live`. */
  counted: boolean;
  pool: HostPool;
  exchange: Exchange | undefined;
  /** Bytes not yet accepted by the kernel (socket.write may take part of a buffer). */
  pending: string | Buffer | undefined;
  /** The UTF-8 length of a pending string. */
  pendingBytes: number;
  closed: boolean;
  idleSince: number;
  reused: boolean;
}

class HostPool {
  readonly idle: Conn[] = [];
  /** The host's Unix socket (a gym server on this machine), or undefined: TCP. */
  unix: string | undefined;
  /** performance.now() of the last look for a socket; -Infinity: never looked. */
  unixCheckedAt = Number.NEGATIVE_INFINITY;
  constructor(
    readonly hostname: string,
    readonly port: number,
  ) {}

  /** The socket to connect through, looked up again now and then while there is none (a server may start later). */
  socketPath(): string | undefined {
    if (this.unix !== undefined) return this.unix;
    const now = performance.now();
    if (now - this.unixCheckedAt < UNIX_RECHECK_MS) return undefined;
    this.unixCheckedAt = now;
    return (this.unix = clientSocketPath(this.hostname, this.port));
  }
}

const pools = new Map<string, HostPool>();
let sweeper: Timer | undefined;
/** Sockets open in this process (active and idle, every host). */
let live = 0;
/** Above this many sockets, idle ones are closed instead of kept (see setPoolBudget). */
let budget = Number.POSITIVE_INFINITY;

/**
 * Cap the sockets this process keeps (active + idle, all hosts) to fit its open-file budget:
 * idle sockets are closed, oldest first, before a new connection would exceed it, and a socket
 * that finishes above it is closed rather than pooled. Active requests are never blocked here
 * (the per-host limiter bounds them), so a self-call cannot starve the calls it waits on.
 */
export function setPoolBudget(sockets: number): void {
  budget = Math.min(budget, sockets);
}

function uncount(conn: Conn): void {
  if (!conn.counted) return;
  conn.counted = false;
  live--;
}

function closeConn(conn: Conn): void {
  conn.closed = true;
  uncount(conn);
  conn.socket?.end();
}

/** Close the oldest idle socket of any host; false when none is idle. */
function evictOldestIdle(): boolean {
  let oldest: HostPool | undefined;
  for (const p of pools.values()) if (p.idle.length > 0 && (!oldest || p.idle[0]!.idleSince < oldest.idle[0]!.idleSince)) oldest = p;
  if (!oldest) return false;
  closeConn(oldest.idle.shift()!);
  return true;
}

function sweep(): void {
  const cutoff = performance.now() - IDLE_CLOSE_MS;
  let any = false;
  for (const pool of pools.values()) {
    // Oldest first: the list is used as a stack, so stale sockets sit at the bottom.
    while (pool.idle.length > 0 && pool.idle[0]!.idleSince < cutoff) closeConn(pool.idle.shift()!);
    if (pool.idle.length > 0) any = true;
  }
  if (!any && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

function connError(message: string, code = "ECONNRESET", beforeAnswer = false): Error {
  return Object.assign(new Error(message), { code, beforeAnswer });
}

function finish(conn: Conn, ex: Exchange): void {
  conn.exchange = undefined;
  const body = ex.parts.length === 1 ? ex.parts[0]! : Buffer.concat(ex.parts);
  if (ex.keepAlive && !conn.closed && live <= budget) {
    conn.idleSince = performance.now();
    conn.reused = true;
    // An idle socket must not keep a finished process alive (a CLI run would wait out the idle timeout).
    conn.socket?.unref();
    conn.pool.idle.push(conn);
    sweeper ??= setInterval(sweep, IDLE_CLOSE_MS / 3);
    sweeper.unref();
  } else closeConn(conn);
  ex.resolve({ status: ex.status, statusText: ex.statusText, headers: ex.headers, body });
}

/** Parse the head once its end is in `buf`; returns the body bytes that followed it, or undefined when incomplete. */
function parseHead(ex: Exchange, buf: Buffer): Buffer | undefined {
  const end = buf.indexOf(CRLF2);
  if (end < 0) {
    if (buf.length > MAX_HEAD_BYTES) throw connError(`the response head exceeds ${MAX_HEAD_BYTES} bytes`, "EPROTO");
    ex.head = buf;
    return undefined;
  }
  // One Latin-1 decode of the head, then a walk over its lines (no split array, no regex per answer).
  const text = buf.toString("latin1", 0, end);
  const firstEnd = text.indexOf("\r\n");
  const statusLine = firstEnd < 0 ? text : text.slice(0, firstEnd);
  const minor = statusLine.charCodeAt(7);
  if (!STATUS_LINE.test(statusLine)) throw connError(`malformed HTTP status line: ${JSON.stringify(statusLine.slice(0, 80))}`, "EPROTO");
  const status = Number(statusLine.slice(9, 12));
  let length = -1;
  let chunked = false;
  let connection = "";
  const headers: [string, string][] = [];
  let at = firstEnd < 0 ? text.length : firstEnd + 2;
  while (at < text.length) {
    let lineEnd = text.indexOf("\r\n", at);
    if (lineEnd < 0) lineEnd = text.length;
    const colon = text.indexOf(":", at);
    if (colon > at && colon < lineEnd) {
      let name = text.slice(at, colon);
      // Bun, uvicorn and most servers send lower-case names already; only fix the others.
      if (!LOWER_NAME.test(name)) name = name.trim().toLowerCase();
      const value = text.slice(colon + 1, lineEnd).trim();
      if (name === "content-length") length = Number(value);
      else if (name === "transfer-encoding") chunked = value.toLowerCase().includes("chunked");
      else if (name === "connection") connection = value.toLowerCase();
      headers.push([name, value]);
    }
    at = lineEnd + 2;
  }
  if (status >= 100 && status < 200) {
    // An interim answer (e.g. 100 Continue): the real head follows.
    ex.head = undefined;
    const rest = buf.subarray(end + 4);
    return rest.length > 0 ? parseHead(ex, rest) : undefined;
  }
  ex.status = status;
  ex.statusText = statusLine.length > 13 ? statusLine.slice(13) : "";
  ex.headers = headers;
  ex.keepAlive = minor === 49 /* "1" */ ? connection !== "close" : connection === "keep-alive";
  if (ex.noBody || status === 204 || status === 304) length = 0;
  if (!chunked && length !== -1 && !(Number.isSafeInteger(length) && length >= 0)) throw connError(`malformed content-length ${JSON.stringify(String(length))}`, "EPROTO");
  if (!chunked && length > ex.maxBytes) throw tooLarge(ex.maxBytes, `content-length ${length}`);
  ex.length = chunked ? -2 : length;
  if (ex.length === -1) ex.keepAlive = false;
  ex.head = undefined;
  return buf.subarray(end + 4);
}

/** The typed error of an answer larger than the cap (not retried: the same request gets the same answer). */
function tooLarge(max: number, what: string): Error {
  return connError(`the response is larger than the ${max}-byte cap (${what})`, "E_RESPONSE_TOO_LARGE");
}

/**
 * Feed chunked body bytes to the decoder; true once the last chunk and trailers are in. Each
 * byte is looked at once (the old decoder re-joined and re-parsed the whole body per packet).
 */
function feedChunked(ex: Exchange, buf: Buffer): boolean {
  let at = 0;
  while (at < buf.length) {
    if (ex.chunk === Chunk.Data) {
      const n = Math.min(ex.chunkLeft, buf.length - at);
      ex.parts.push(buf.subarray(at, at + n));
      ex.received += n;
      ex.chunkLeft -= n;
      at += n;
      if (ex.chunkLeft === 0) ex.chunk = Chunk.DataEnd;
      continue;
    }
    const nl = buf.indexOf(10, at);
    const stop = nl < 0 ? buf.length : nl + 1;
    ex.line += buf.toString("latin1", at, stop);
    at = stop;
    if (ex.line.length > MAX_LINE_BYTES) throw connError("malformed chunked body (a line without end)", "EPROTO");
    if (nl < 0) return false;
    const line = ex.line.endsWith("\r\n") ? ex.line.slice(0, -2) : ex.line.slice(0, -1);
    ex.line = "";
    if (ex.chunk === Chunk.DataEnd) {
      if (line !== "") throw connError("malformed chunked body (no CRLF after a chunk)", "EPROTO");
      ex.chunk = Chunk.Size;
    } else if (ex.chunk === Chunk.Size) {
      const semi = line.indexOf(";");
      const sizeText = (semi < 0 ? line : line.slice(0, semi)).trim();
      if (!/^[0-9a-fA-F]{1,15}$/.test(sizeText)) throw connError(`malformed chunk size ${JSON.stringify(sizeText.slice(0, 40))}`, "EPROTO");
      const size = Number.parseInt(sizeText, 16);
      if (ex.received + size > ex.maxBytes) throw tooLarge(ex.maxBytes, `a chunk of ${size} bytes after ${ex.received}`);
      if (size === 0) ex.chunk = Chunk.Trailer;
      else {
        ex.chunkLeft = size;
        ex.chunk = Chunk.Data;
      }
    } else if (line === "") return true; // the empty line after the (rare) trailers
  }
  return false;
}

function onData(conn: Conn, data: Buffer): void {
  const ex = conn.exchange;
  if (!ex) {
    // Bytes with no request outstanding: the connection is out of step; drop it.
    closeConn(conn);
    return;
  }
  ex.gotBytes = true;
  if (ex.handle) ex.handle.lastActivityAt = performance.now();
  try {
    let body: Buffer | undefined = data;
    if (ex.status === 0) {
      body = parseHead(ex, ex.head ? Buffer.concat([ex.head, data]) : data);
      if (body === undefined) return;
    }
    if (ex.length === -2) {
      if (feedChunked(ex, body)) finish(conn, ex);
      return;
    }
    if (body.length > 0) {
      ex.parts.push(body);
      ex.received += body.length;
      if (ex.length === -1 && ex.received > ex.maxBytes) throw tooLarge(ex.maxBytes, `more than ${ex.maxBytes} bytes before close`);
    }
    if (ex.length >= 0 && ex.received >= ex.length) {
      if (ex.received > ex.length) ex.parts = [Buffer.concat(ex.parts).subarray(0, ex.length)];
      finish(conn, ex);
    }
  } catch (e) {
    fail(conn, e as Error);
  }
}

function fail(conn: Conn, err: Error): void {
  conn.closed = true;
  uncount(conn);
  const ex = conn.exchange;
  conn.exchange = undefined;
  conn.socket?.terminate();
  ex?.reject(err);
}

function onClose(conn: Conn): void {
  conn.closed = true;
  uncount(conn);
  const idleAt = conn.pool.idle.indexOf(conn);
  if (idleAt >= 0) conn.pool.idle.splice(idleAt, 1);
  const ex = conn.exchange;
  if (!ex) return;
  conn.exchange = undefined;
  // A read-until-close body ends here; anything else was cut short.
  if (ex.status !== 0 && ex.length === -1) {
    ex.keepAlive = false;
    finish(conn, ex);
  } else ex.reject(ex.gotBytes ? connError("the server closed the connection mid-answer") : connError("socket connection was closed before an answer", "ECONNRESET", true));
}

function flush(conn: Conn): void {
  const data = conn.pending;
  if (data === undefined || !conn.socket) return;
  const n = conn.socket.write(data);
  if (typeof data === "string") {
    // `write` counts UTF-8 bytes; the rare short write keeps the rest as bytes for `drain`.
    if (n >= conn.pendingBytes) conn.pending = undefined;
    else conn.pending = Buffer.from(data).subarray(Math.max(0, n));
    return;
  }
  conn.pending = n >= data.length ? undefined : data.subarray(Math.max(0, n));
}

/** The socket callbacks of every pooled connection (one object, shared). */
const SOCKET_HANDLERS: SocketHandler<Conn> = {
  data: (s, d) => onData(s.data, d as Buffer),
  drain: (s) => flush(s.data),
  close: (s) => onClose(s.data),
  end: (s) => void s.end(),
  error: (s, e) => fail(s.data, Object.assign(e, { code: (e as { code?: string }).code ?? "ECONNRESET" })),
};

async function connect(pool: HostPool): Promise<Conn> {
  while (live >= budget && evictOldestIdle()) {
    // Make room: an idle socket elsewhere costs the same descriptor as the one we need.
  }
  const conn: Conn = { socket: undefined, counted: false, pool, exchange: undefined, pending: undefined, pendingBytes: 0, closed: false, idleSince: 0, reused: false };
  const unix = pool.socketPath();
  if (unix !== undefined) {
    try {
      conn.socket = await Bun.connect<Conn>({ unix, data: conn, socket: SOCKET_HANDLERS });
    } catch {
      // A socket left by a server that is gone (or one that stopped listening): TCP from now on.
      pool.unix = undefined;
    }
  }
  conn.socket ??= await Bun.connect<Conn>({ hostname: pool.hostname, port: pool.port, data: conn, socket: SOCKET_HANDLERS });
  if (!conn.closed) {
    conn.counted = true;
    live++;
  }
  poolMetrics.connected(pool.port === 80 ? pool.hostname : `${pool.hostname}:${pool.port}`);
  // Small request/answer pairs: send each write at once (TCP only; a Unix socket has no Nagle).
  if (pool.unix === undefined) conn.socket.setNoDelay(true);
  return conn;
}

/**
 * A cancel handle for one exchange, cheaper than an AbortController per request: the caller's
 * deadline timer or its caller's signal calls `abort`, which fails the exchange in progress.
 */
export class ExchangeAbort {
  aborted = false;
  reason: unknown;
  /** performance.now() of creation, then of each byte received. */
  lastActivityAt = performance.now();
  private hook: ((reason: unknown) => void) | undefined;

  /** Cancel the exchange (idempotent). */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.hook?.(reason);
  }

  /** When the exchange last showed a sign of life (liveness.ts). */
  lastActivity(): number {
    return this.lastActivityAt;
  }

  /** Throw the abort reason when aborted. */
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** @internal the exchange in progress. */
  watch(hook: ((reason: unknown) => void) | undefined): void {
    this.hook = hook;
  }
}

function abortError(reason: unknown): Error {
  return reason instanceof Error || reason instanceof DOMException ? (reason as Error) : new Error(String(reason));
}

/** Whether `pooledRequest` can carry a request to this URL target (else use fetch). */
export function poolable(target: string): boolean {
  return SAFE_TARGET.test(target);
}

/**
 * Send one request over a pooled connection and read the whole answer. Connection errors carry
 * the usual codes (ECONNREFUSED, ECONNRESET) so the caller's retry rules apply; `signal` aborts
 * the exchange and closes its socket (a half-done exchange cannot go back to the pool).
 */
export async function pooledRequest(
  hostname: string,
  port: number,
  method: string,
  target: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  signal?: AbortSignal | ExchangeAbort,
  maxBytes = DEFAULT_MAX_RESPONSE_BYTES,
): Promise<PooledAnswer> {
  const key = `${hostname}:${port}`;
  let pool = pools.get(key);
  if (!pool) pools.set(key, (pool = new HostPool(hostname, port)));
  // As fetch writes it: the port only when it is not http's default.
  const hostName = hostname.includes(":") ? `[${hostname}]` : hostname;
  const hostHeader = port === 80 ? hostName : `${hostName}:${port}`;
  let head = `${method} ${target} HTTP/1.1\r\nhost: ${hostHeader}\r\n`;
  let latin1 = false;
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (lower === "host" || lower === "content-length" || lower === "connection" || lower === "transfer-encoding") continue;
    const value = headers[name]!;
    if (NOT_PLAIN.test(name) || NOT_PLAIN.test(value)) {
      if (BAD_HEADER.test(name) || BAD_HEADER.test(value)) throw new TypeError(`invalid header ${JSON.stringify(name)}`);
      latin1 = true;
    }
    head += `${name}: ${value}\r\n`;
  }
  const bodyBytes = body === undefined ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
  if (body !== undefined || (method !== "GET" && method !== "HEAD")) head += `content-length: ${bodyBytes}\r\n`;
  head += "\r\n";
  // The usual request (ASCII head, string body) goes to the socket as one string: the socket
  // encodes it natively, with no Buffer built here. Latin-1 header bytes and byte bodies are joined
  // into one Buffer instead (the head is Latin-1 on the wire, the body UTF-8).
  const request: string | Buffer =
    !latin1 && (body === undefined || typeof body === "string")
      ? head + (body ?? "")
      : Buffer.concat([Buffer.from(head, "latin1"), ...(body === undefined ? [] : [typeof body === "string" ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength)])]);
  const requestBytes = typeof request === "string" ? head.length + bodyBytes : request.length;

  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    let conn: Conn | undefined;
    while (pool.idle.length > 0 && !conn) {
      const c = pool.idle.pop()!;
      if (!c.closed) conn = c;
    }
    conn ??= await connect(pool);
    if (signal?.aborted) {
      // Aborted while connecting: the new socket is clean, keep it.
      if (!conn.closed) pool.idle.push(conn);
      signal.throwIfAborted();
    }
    const reused = conn.reused;
    const c = conn;
    c.socket?.ref();
    try {
      return await new Promise<PooledAnswer>((resolve, reject) => {
        const onAbort = () => fail(c, abortError(signal!.reason));
        let done: () => void;
        if (signal instanceof ExchangeAbort) {
          signal.watch(onAbort);
          done = () => signal.watch(undefined);
        } else {
          signal?.addEventListener("abort", onAbort, { once: true });
          done = () => signal?.removeEventListener("abort", onAbort);
        }
        c.exchange = {
          resolve: (a) => (done(), resolve(a)),
          reject: (e) => (done(), reject(e)),
          head: undefined,
          status: 0,
          statusText: "",
          headers: [],
          length: -1,
          parts: [],
          received: 0,
          maxBytes,
          chunk: Chunk.Size,
          chunkLeft: 0,
          line: "",
          handle: signal instanceof ExchangeAbort ? signal : undefined,
          keepAlive: false,
          noBody: method === "HEAD",
          gotBytes: false,
        };
        c.pending = request;
        c.pendingBytes = requestBytes;
        flush(c);
      });
    } catch (err) {
      // A reused socket that the server had closed while idle never saw the request: retry once on a fresh one.
      if (reused && attempt === 0 && !signal?.aborted && (err as { beforeAnswer?: boolean }).beforeAnswer === true) continue;
      throw err;
    }
  }
}

/** Sockets this process holds through the pool (for tests and status lines). */
export function liveSockets(): number {
  return live;
}

/** Whether calls to this host go over its Unix-domain socket (for tests). */
export function viaUnixSocket(hostname: string, port: number): boolean {
  return pools.get(`${hostname}:${port}`)?.unix !== undefined;
}

/** Idle pooled sockets per host (for tests). */
export function idleSockets(hostname: string, port: number): number {
  return pools.get(`${hostname}:${port}`)?.idle.length ?? 0;
}
