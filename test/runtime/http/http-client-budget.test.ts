import { afterAll, describe, expect, test } from "bun:test";
import { HttpClient, RequestFailedError } from "../../../src/runtime/http/client.ts";
import { effectivePerHostLimit, fdCapPerHost, fdReserve } from "../../../src/runtime/http/http-fd-budget.ts";

let inFlight = 0;
let maxInFlight = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === "/count") {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await Bun.sleep(40);
      inFlight--;
      return Response.json({ ok: true });
    }
    if (path === "/hang") {
      await Bun.sleep(3000);
      return new Response("late");
    }
    if (path === "/stream") {
      // No Content-Length: handed back as a stream, read after the client returns.
      return new Response(new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode("a")); c.enqueue(new TextEncoder().encode("b")); c.close(); } }));
    }
    return Response.json({ path, query: new URL(req.url).search });
  },
});
const base = `http://127.0.0.1:${server.port}`;
afterAll(() => server.stop(true));

const policy = (over: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) => ({ retryBudgetSeconds: 5, limits: { limit: 0, limitPerHost: 0 }, debug: false, ...over });

describe("per-host cap from the open-file budget", () => {
  test("the cap is (soft − reserve) / 4, never below 16, and only lowers a configured limit", () => {
    expect(fdReserve(1024)).toBe(256);
    expect(fdCapPerHost(20000)).toBe(Math.floor((20000 - 1000) / 4));
    expect(fdCapPerHost(100)).toBe(16);
    expect(effectivePerHostLimit(0, 20000)).toEqual({ limit: 4750, cappedByFds: true });
    expect(effectivePerHostLimit(1024, 20000)).toEqual({ limit: 1024, cappedByFds: false });
    expect(effectivePerHostLimit(0, undefined)).toEqual({ limit: 0, cappedByFds: false });
  });

  test("an unlimited pool under a small fd limit queues beyond the cap instead of opening more sockets; all succeed", async () => {
    maxInFlight = 0;
    const c = new HttpClient(policy({ fdSoftLimit: 256 + 4 * 16 }));
    let sawQueue = 0;
    const all = Promise.all(Array.from({ length: 64 }, () => c.request(`${base}/count`).then((r) => r.json())));
    // Sample until the queue shows (bounded): 48 of the 64 calls must wait for a slot.
    for (const t0 = performance.now(); sawQueue === 0 && performance.now() - t0 < 10_000; await Bun.sleep(1)) sawQueue = c.queuedFor(`127.0.0.1:${server.port}`);
    const results = await all;
    expect(results.every((r) => (r as { ok: boolean }).ok)).toBe(true);
    expect(maxInFlight).toBe(16);
    expect(sawQueue).toBeGreaterThan(0);
  });
});

describe("deadlines and signals without AbortSignal.timeout", () => {
  test("a caller's abort ends an in-flight request at once with the caller's reason", async () => {
    const c = new HttpClient(policy({ timeoutSeconds: 60 }));
    const ac = new AbortController();
    const t0 = performance.now();
    setTimeout(() => ac.abort(new Error("client went away")), 50);
    const err = await c.request(`${base}/hang`, { signal: ac.signal }).catch((e) => e);
    expect((err as Error).message).toBe("client went away");
    expect(performance.now() - t0).toBeLessThan(1500);
  });

  test("the deadline still fires as a typed timeout", async () => {
    const c = new HttpClient(policy({ timeoutSeconds: 0.1 }));
    const err = await c.request(`${base}/hang`).catch((e) => e);
    expect(err).toBeInstanceOf(RequestFailedError);
    expect((err as RequestFailedError).timedOut).toBe(true);
  });

  test("sized answers come back readable with status and headers; streams stay streams", async () => {
    const c = new HttpClient(policy({ timeoutSeconds: 5 }));
    const res = await c.request(`${base}/x?y=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({ path: "/x", query: "?y=1" });
    const stream = await c.request(`${base}/stream`);
    expect(await stream.text()).toBe("ab");
  });

  test("an IPv6 literal host is addressed and keyed correctly", async () => {
    const v6 = Bun.serve({ hostname: "::1", port: 0, fetch: () => Response.json({ ok: 6 }) });
    try {
      const c = new HttpClient(policy());
      const res = await c.request(`http://[::1]:${v6.port}/v`);
      expect(await res.json()).toEqual({ ok: 6 });
    } finally {
      v6.stop(true);
    }
  });
});
