import { afterAll, describe, expect, test } from "bun:test";
import { HttpClient, RequestFailedError } from "../../../src/runtime/http/client.ts";
import { idleSockets, pooledRequest, poolable } from "../../../src/runtime/http/http-pool.ts";

const peers = new Set<number>();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req, srv) {
    peers.add(srv.requestIP(req)!.port);
    const path = new URL(req.url).pathname;
    if (path === "/echo") return new Response(await req.text(), { headers: { "content-type": "application/json", "x-len": String(req.headers.get("content-length")) } });
    if (path === "/big") return new Response("x".repeat(3_000_000));
    if (path === "/chunked") {
      const enc = new TextEncoder();
      return new Response(new ReadableStream({ async start(c) { c.enqueue(enc.encode("part1-")); await Bun.sleep(5); c.enqueue(enc.encode("part2")); c.close(); } }));
    }
    if (path === "/cookies") return new Response("{}", { status: 201, headers: [["set-cookie", "A=1; Path=/"], ["set-cookie", "B=2; Path=/"]] });
    if (path === "/empty") return new Response(null, { status: 204 });
    if (path === "/hang") {
      await Bun.sleep(3000);
      return new Response("late");
    }
    return new Response("?", { status: 404 });
  },
});
const port = server.port!;
afterAll(() => server.stop(true));

describe("pooledRequest", () => {
  test("answers are read whole (sized, chunked, empty, large) with status and repeated headers", async () => {
    const echo = await pooledRequest("127.0.0.1", port, "POST", "/echo", { "content-type": "application/json" }, '{"é":1}');
    expect(echo.status).toBe(200);
    expect(Buffer.from(echo.body).toString()).toBe('{"é":1}');
    expect(echo.headers).toContainEqual(["x-len", String(Buffer.byteLength('{"é":1}'))]);
    const chunked = await pooledRequest("127.0.0.1", port, "GET", "/chunked", {}, undefined);
    expect(Buffer.from(chunked.body).toString()).toBe("part1-part2");
    const big = await pooledRequest("127.0.0.1", port, "GET", "/big", {}, undefined);
    expect(big.body.length).toBe(3_000_000);
    const cookies = await pooledRequest("127.0.0.1", port, "GET", "/cookies", {}, undefined);
    expect(cookies.status).toBe(201);
    expect(cookies.headers.filter(([k]) => k === "set-cookie").map(([, v]) => v)).toEqual(["A=1; Path=/", "B=2; Path=/"]);
    const empty = await pooledRequest("127.0.0.1", port, "GET", "/empty", {}, undefined);
    expect(empty.status).toBe(204);
    expect(empty.body.length).toBe(0);
  });

  test("300 requests, 150 at a time, reuse at most 150 sockets (fetch's cache keeps 64)", async () => {
    peers.clear();
    let next = 0;
    await Promise.all(Array.from({ length: 150 }, async () => {
      while (next++ < 300) expect((await pooledRequest("127.0.0.1", port, "POST", "/echo", {}, "{}")).status).toBe(200);
    }));
    expect(peers.size).toBeLessThanOrEqual(150);
    expect(idleSockets("127.0.0.1", port)).toBeGreaterThanOrEqual(100);
  });

  test("a socket the server closed while idle is replaced without failing the request", async () => {
    const s2 = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok", { headers: { connection: "keep-alive" } }) });
    const p2 = s2.port!;
    expect(Buffer.from((await pooledRequest("127.0.0.1", p2, "GET", "/", {}, undefined)).body).toString()).toBe("ok");
    expect(idleSockets("127.0.0.1", p2)).toBe(1);
    s2.stop(true); // closes the idle connection
    const s3 = Bun.serve({ hostname: "127.0.0.1", port: p2, fetch: () => new Response("again") });
    try {
      // Wait (bounded) for the pool to see the close instead of guessing how long it takes.
      for (const t0 = performance.now(); idleSockets("127.0.0.1", p2) > 0 && performance.now() - t0 < 5000; ) await Bun.sleep(5);
      expect(Buffer.from((await pooledRequest("127.0.0.1", p2, "GET", "/", {}, undefined)).body).toString()).toBe("again");
    } finally {
      s3.stop(true);
    }
  });

  test("CR/LF in a header is refused; odd targets are left to fetch", async () => {
    await expect(pooledRequest("127.0.0.1", port, "GET", "/echo", { "x-a": "1\r\nx-b: 2" }, undefined)).rejects.toThrow(/invalid header/);
    expect(poolable("/a b")).toBe(false);
    expect(poolable("/ok?x=1")).toBe(true);
  });
});

describe("HttpClient over the pool (internal calls)", () => {
  const policy = { retryBudgetSeconds: 2, limits: { limit: 0, limitPerHost: 0 }, debug: false };

  test("responses keep status, headers and body; a caller's abort and the deadline both end a hanging call", async () => {
    const c = new HttpClient({ ...policy, timeoutSeconds: 0.2 });
    const res = await c.request(`http://127.0.0.1:${port}/echo`, { method: "POST", json: { a: 1 }, internal: true });
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ a: 1 });
    const timeout = await c.request(`http://127.0.0.1:${port}/hang`, { internal: true }).catch((e) => e);
    expect(timeout).toBeInstanceOf(RequestFailedError);
    expect((timeout as RequestFailedError).timedOut).toBe(true);
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("gone")), 30);
    const aborted = await new HttpClient({ ...policy, timeoutSeconds: 10 }).request(`http://127.0.0.1:${port}/hang`, { internal: true, signal: ac.signal }).catch((e) => e);
    expect((aborted as Error).message).toBe("gone");
  });

  test("connection refused is a connect error, retried within the budget, then a typed failure", async () => {
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const dead = probe.port!;
    probe.stop(true);
    const c = new HttpClient({ ...policy, retryBudgetSeconds: 0.5 });
    const err = await c.request(`http://127.0.0.1:${dead}/x`, { internal: true }).catch((e) => e);
    expect(err).toBeInstanceOf(RequestFailedError);
    expect((err as RequestFailedError).timedOut).toBe(false);
    expect((err as Error).message).toContain("request_retry_budget_seconds");
  });
});

describe("idle pooled sockets", () => {
  test("do not keep a finished process alive", async () => {
    const script = `import { pooledRequest } from ${JSON.stringify(`${import.meta.dir}/../../../src/runtime/http/http-pool.ts`)};
const a = await pooledRequest("127.0.0.1", ${port}, "POST", "/echo", {}, "{}");
console.log(a.status);`;
    const t0 = performance.now();
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill(), 10_000);
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    clearTimeout(timer);
    expect(out.trim()).toBe("200");
    expect(code).toBe(0);
    expect(performance.now() - t0).toBeLessThan(8_000);
  });
});
