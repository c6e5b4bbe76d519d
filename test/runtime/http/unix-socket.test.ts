/**
 * Unix-domain sockets between gym's own processes (unix-socket.ts, http-pool.ts): a pooled call to
 * 127.0.0.1:<port> goes over the server's socket when it has one, the server sees the very request
 * the TCP path delivers and the caller gets the same answer; a socket left by a dead server, an
 * untrusted directory or GYM_UNIX_SOCKETS=0 mean TCP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pooledRequest, viaUnixSocket } from "../../../src/runtime/http/http-pool.ts";
import { listen } from "../../../src/runtime/http/http.ts";
import { clientSocketPath, resetSocketDirectory, serverSocketPath, socketDirectory } from "../../../src/runtime/http/unix-socket.ts";

const saved = { dir: process.env.GYM_SOCKET_DIR, on: process.env.GYM_UNIX_SOCKETS };
const base = mkdtempSync(join(tmpdir(), "gym-unix-test-"));
const sockDir = join(base, "s");

function useDir(dir: string | undefined, on = true): void {
  if (dir === undefined) delete process.env.GYM_SOCKET_DIR;
  else process.env.GYM_SOCKET_DIR = dir;
  if (on) delete process.env.GYM_UNIX_SOCKETS;
  else process.env.GYM_UNIX_SOCKETS = "0";
  resetSocketDirectory();
}

beforeAll(() => useDir(sockDir));
afterAll(() => {
  useDir(saved.dir, saved.on !== "0");
  if (saved.on !== undefined) process.env.GYM_UNIX_SOCKETS = saved.on;
  resetSocketDirectory();
  rmSync(base, { recursive: true, force: true });
});

/** A server on TCP and on its socket; every request is echoed, and which listener took it is recorded. */
function echoServer(): { port: number; path: string; seen: string[]; stopUnix: () => void; stop: () => void } {
  const seen: string[] = [];
  const echo = (via: string) => async (req: Request) => {
    seen.push(via);
    const body = await req.text();
    return new Response(JSON.stringify({ method: req.method, url: req.url, headers: [...req.headers], body }), {
      status: 201,
      headers: [["content-type", "application/json"], ["set-cookie", "a=1; Path=/"], ["set-cookie", "b=2; Path=/"]],
    });
  };
  const tcp = listen(echo("tcp"), { host: "127.0.0.1", port: 0 });
  const path = serverSocketPath("127.0.0.1", tcp.port!, false)!;
  const unix = listen(echo("unix"), { host: "127.0.0.1", port: tcp.port!, unix: path });
  return { port: tcp.port!, path, seen, stopUnix: () => void unix.stop(true), stop: () => (unix.stop(true), void tcp.stop(true)) };
}

/** What a caller can observe of an answer (the date header changes every second). */
const observable = (a: { status: number; statusText: string; headers: [string, string][]; body: Uint8Array }) => ({
  status: a.status,
  statusText: a.statusText,
  headers: a.headers.filter(([k]) => k !== "date"),
  body: Buffer.from(a.body).toString(),
});

describe("Unix-domain sockets between gym processes", () => {
  test("a pooled call goes over the server's socket; request and answer bytes equal the TCP path's", async () => {
    expect(socketDirectory()).toBe(sockDir);
    const s = echoServer();
    try {
      expect(existsSync(s.path)).toBe(true);
      const send = () => pooledRequest("127.0.0.1", s.port, "POST", "/v1/responses?x=1", { "content-type": "application/json", cookie: "k=v", "x-nemo-gym-rollout-id": "r1" }, '{"input":"é ❄"}');
      const overUnix = await send();
      expect(s.seen).toEqual(["unix"]);
      expect(viaUnixSocket("127.0.0.1", s.port)).toBe(true);
      // The socket goes away (its server stopped): the pool falls back to TCP on the next connection.
      s.stopUnix();
      await Bun.sleep(20);
      const overTcp = await send();
      expect(s.seen).toEqual(["unix", "tcp"]);
      expect(viaUnixSocket("127.0.0.1", s.port)).toBe(false);
      expect(observable(overUnix)).toEqual(observable(overTcp));
      const echoed = JSON.parse(Buffer.from(overUnix.body).toString());
      expect(echoed.url).toBe(`http://127.0.0.1:${s.port}/v1/responses?x=1`);
      expect(echoed.body).toBe('{"input":"é ❄"}');
      expect(overUnix.headers.filter(([k]) => k === "set-cookie").map(([, v]) => v)).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    } finally {
      s.stop();
    }
  });

  test("many calls in flight share the socket's keep-alive connections", async () => {
    const s = echoServer();
    try {
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => pooledRequest("127.0.0.1", s.port, "POST", `/n/${i}`, {}, String(i))));
      expect(answers.map((a) => JSON.parse(Buffer.from(a.body).toString()).body)).toEqual(Array.from({ length: 200 }, (_, i) => String(i)));
      expect(new Set(s.seen)).toEqual(new Set(["unix"]));
    } finally {
      s.stop();
    }
  });

  test("a socket file left by a killed server is refused and the call goes over TCP", async () => {
    const tcp = listen(async (req) => new Response(`tcp ${new URL(req.url).pathname}`), { host: "127.0.0.1", port: 0 });
    const path = serverSocketPath("127.0.0.1", tcp.port!, false)!;
    // A process that binds the socket and dies without removing it.
    const child = Bun.spawn([process.execPath, "-e", `Bun.serve({ unix: ${JSON.stringify(path)}, fetch: () => new Response("stale") }); console.log("up");`], { stdout: "pipe" });
    const reader = child.stdout.getReader();
    await reader.read();
    child.kill("SIGKILL");
    await child.exited;
    try {
      expect(existsSync(path)).toBe(true);
      const a = await pooledRequest("127.0.0.1", tcp.port!, "GET", "/x", {}, undefined);
      expect(Buffer.from(a.body).toString()).toBe("tcp /x");
      expect(viaUnixSocket("127.0.0.1", tcp.port!)).toBe(false);
    } finally {
      void tcp.stop(true);
      rmSync(path, { force: true });
    }
  });

  test("who gets a socket: loopback and wildcard binds without SO_REUSEPORT; callers only for 127.0.0.1", () => {
    expect(serverSocketPath("127.0.0.1", 4100, false)).toBe(join(sockDir, "4100.sock"));
    expect(serverSocketPath("0.0.0.0", 4100, false)).toBe(join(sockDir, "4100.sock"));
    expect(serverSocketPath("127.0.0.1", 4100, true)).toBeUndefined();
    expect(serverSocketPath("10.1.2.3", 4100, false)).toBeUndefined();
    expect(serverSocketPath("::1", 4100, false)).toBeUndefined();
    expect(clientSocketPath("localhost", 4100)).toBeUndefined();
    expect(clientSocketPath("127.0.0.1", 4100)).toBeUndefined(); // no such socket
  });

  test("GYM_UNIX_SOCKETS=0, a directory open to others, or a path too long for sun_path: TCP only", () => {
    useDir(sockDir, false);
    expect(socketDirectory()).toBeNull();
    expect(serverSocketPath("127.0.0.1", 4100, false)).toBeUndefined();
    const open = join(base, "open");
    useDir(open);
    expect(socketDirectory()).toBe(open);
    chmodSync(open, 0o755);
    resetSocketDirectory();
    expect(socketDirectory()).toBeNull();
    useDir(join(base, "x".repeat(120)));
    expect(socketDirectory()).toBeNull();
    useDir(sockDir);
    expect(socketDirectory()).toBe(sockDir);
  });
});
