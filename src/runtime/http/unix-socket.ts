/**
 * Unix-domain sockets between gym's own processes (issue 19). A built-in server bound on
 * 127.0.0.1 or 0.0.0.0 also listens on `<socket dir>/<port>.sock`; the pool (http-pool.ts) sends a
 * call for `http://127.0.0.1:<port>` over that socket when it exists. The bytes are the same HTTP/1.1
 * (Host header, paths, cookies), only the kernel path is shorter: no TCP stack on either side.
 * TCP stays the address everyone sees (config, head server, URLs, external servers) and the fallback:
 * no socket file, a refused connect, `GYM_UNIX_SOCKETS=0`, a path too long for `sun_path`, a
 * platform without uids, or a socket directory that is not ours alone. One difference: Bun ignores
 * `server.timeout(req, s)` on a Unix listener, so http.ts's body-idle guard (a caller that stalls
 * half-way through a body loses its connection after 30 s) does not apply to Unix callers, which
 * can only be processes of this user.
 */
import { lstatSync, mkdirSync, statSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readEnv } from "../../env.ts";

/** `sun_path` holds 108 bytes on Linux and 104 on macOS; stay below both. */
const MAX_PATH = 100;
/** The one loopback spelling a client maps to a socket (what gym's configs and URLs use). */
const CLIENT_HOST = "127.0.0.1";
/** Bind addresses whose port is reachable as 127.0.0.1:<port>, and so may have a socket. */
const SERVER_HOSTS = new Set(["127.0.0.1", "0.0.0.0"]);

/** undefined: not decided yet; null: Unix sockets are off in this process. */
let dir: string | null | undefined;

function ownUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/**
 * This user's socket directory, created mode 0700 on first use. null (Unix sockets off) when
 * disabled, on a platform without uids, or when the directory is a symlink, someone else's, or
 * open to group/others (another user could plant a socket that our calls would then reach).
 */
export function socketDirectory(): string | null {
  if (dir !== undefined) return dir;
  const env = readEnv();
  const uid = ownUid();
  if (!env.unixSockets || uid === undefined || process.platform === "win32") return (dir = null);
  const d = env.socketDir ?? join(tmpdir(), `gym-sock-${uid}`);
  try {
    mkdirSync(d, { mode: 0o700 });
  } catch (err) {
    if ((err as { code?: string }).code !== "EEXIST") return (dir = null);
  }
  try {
    const st = lstatSync(d);
    if (!st.isDirectory() || st.isSymbolicLink() || st.uid !== uid || (st.mode & 0o077) !== 0) return (dir = null);
  } catch {
    return (dir = null);
  }
  // The longest name below is "<5 digits>.sock".
  return (dir = d.length + 12 > MAX_PATH ? null : d);
}

/** The socket a server listening on `host:port` also serves, or undefined when it should not have one. */
export function serverSocketPath(host: string, port: number, reusePort: boolean): string | undefined {
  // Workers sharing a port (SO_REUSEPORT) cannot share one socket file: they stay on TCP.
  if (reusePort || !SERVER_HOSTS.has(host) || !Number.isInteger(port) || port <= 0) return undefined;
  const d = socketDirectory();
  return d === null ? undefined : join(d, `${port}.sock`);
}

/**
 * Remove a leftover socket file at `path` (a server killed without cleanup) so it can be bound.
 * Whoever holds the TCP port owns the name: we bind TCP first, so no live gym server of this
 * machine's loopback can still be listening on it.
 */
export function clearStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // absent: nothing to clear
  }
}

/**
 * The socket to reach `http://<hostname>:<port>` through, or undefined for TCP: only 127.0.0.1,
 * only a socket file owned by this user in our socket directory. A socket left by a dead server
 * refuses the connection, and the pool then falls back to TCP.
 */
export function clientSocketPath(hostname: string, port: number): string | undefined {
  if (hostname !== CLIENT_HOST) return undefined;
  const d = socketDirectory();
  if (d === null) return undefined;
  const path = join(d, `${port}.sock`);
  try {
    const st = statSync(path);
    return st.isSocket() && st.uid === ownUid() ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Forget the decision about the socket directory (tests that change GYM_UNIX_SOCKETS / GYM_SOCKET_DIR). */
export function resetSocketDirectory(): void {
  dir = undefined;
}
