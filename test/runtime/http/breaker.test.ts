/** Retry-After (seconds and HTTP dates, capped by the budget) and the per-endpoint circuit breaker. */
import { afterAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { HttpClient, RequestFailedError } from "../../../src/runtime/http/client.ts";
import { resetBreakers } from "../../../src/runtime/http/breaker.ts";
import { retryAfterMs } from "../../../src/runtime/http/retry-policy.ts";
import { freePort } from "../../helpers/tmp.ts";

setDefaultTimeout(60_000);

const client = (budget: number) => new HttpClient({ timeoutSeconds: 10, retryBudgetSeconds: budget, limits: { limit: 0, limitPerHost: 0 }, debug: false });

// Per path: the times requests arrived, and what to answer.
const arrivals = new Map<string, number[]>();
let answers: Record<string, (n: number) => Response> = {};
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const path = new URL(req.url).pathname;
    const seen = arrivals.get(path) ?? [];
    seen.push(performance.now());
    arrivals.set(path, seen);
    return (answers[path] ?? (() => new Response("?", { status: 404 })))(seen.length - 1);
  },
});
const base = `http://127.0.0.1:${server.port}`;
afterAll(() => server.stop(true));
beforeEach(() => {
  resetBreakers();
  arrivals.clear();
});

const gaps = (path: string) => {
  const t = arrivals.get(path) ?? [];
  return t.slice(1).map((x, i) => x - t[i]!);
};

describe("Retry-After", () => {
  test("parses delta-seconds and HTTP dates; junk is ignored", () => {
    expect(retryAfterMs("7")).toBe(7000);
    const now = Date.parse("Tue, 01 Dec 2026 10:00:00 GMT");
    expect(retryAfterMs("Tue, 01 Dec 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs("Tue, 01 Dec 2026 09:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });

  test("a 503 with Retry-After: 2 waits two seconds before the next try", async () => {
    answers = { "/ra": (n) => (n === 0 ? new Response("busy", { status: 503, headers: { "retry-after": "2" } }) : Response.json({ ok: true })) };
    const res = await client(30).request(`${base}/ra`, { internal: true });
    expect(res.status).toBe(200);
    expect(gaps("/ra")[0]!).toBeGreaterThanOrEqual(1900);
  });

  test("a 429 with an HTTP-date Retry-After waits until that date", async () => {
    answers = { "/date": (n) => (n === 0 ? new Response("slow", { status: 429, headers: { "retry-after": new Date(Date.now() + 3000).toUTCString() } }) : Response.json({ ok: true })) };
    const res = await client(30).request(`${base}/date`, { kind: "model" });
    expect(res.status).toBe(200);
    // The date has one-second resolution: at least two of the three seconds remain.
    expect(gaps("/date")[0]!).toBeGreaterThanOrEqual(1500);
  });

  test("a Retry-After beyond the budget ends the call at once with the answer (no useless retries)", async () => {
    answers = { "/long": () => new Response("busy", { status: 503, headers: { "retry-after": "30" } }) };
    const res = await client(5).request(`${base}/long`, { internal: true });
    expect(res.status).toBe(503);
    expect(arrivals.get("/long")!.length).toBe(1);
  });
});

describe("circuit breaker", () => {
  test("a dead endpoint: concurrent calls stop after seconds, not each after its whole budget; later calls fail at once", async () => {
    const dead = `http://127.0.0.1:${freePort()}/run`;
    const c = client(120);
    const t0 = performance.now();
    const errors = await Promise.all(Array.from({ length: 20 }, () => c.request(dead, { internal: true }).then(() => undefined, (e) => e)));
    const seconds = (performance.now() - t0) / 1000;
    for (const e of errors) expect(e).toBeInstanceOf(RequestFailedError);
    expect(errors.some((e) => (e as RequestFailedError).kind === "circuit_open")).toBe(true);
    // Well inside the 120 s budget: the breaker opens after ~5 s of failures.
    expect(seconds).toBeLessThan(60);
    const t1 = performance.now();
    const next = await c.request(dead, { internal: true }).catch((e) => e);
    expect((next as RequestFailedError).kind).toBe("circuit_open");
    expect((next as RequestFailedError).attempts).toBe(0);
    expect((next as RequestFailedError).message).toContain("circuit breaker");
    expect(performance.now() - t1).toBeLessThan(1000);
  });

  test("after the cooldown one trial call goes through and a success closes the breaker", async () => {
    const port = freePort();
    const url = `http://127.0.0.1:${port}/x`;
    const c = client(120);
    const first = await c.request(url, { internal: true }).catch((e) => e);
    expect((first as RequestFailedError).kind).toBe("circuit_open");
    const revived = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response("back") });
    try {
      // Still open: fails at once.
      expect(((await c.request(url, { internal: true }).catch((e) => e)) as RequestFailedError).kind).toBe("circuit_open");
      const deadline = performance.now() + 30_000;
      let ok: Response | undefined;
      while (!ok && performance.now() < deadline) {
        ok = await c.request(url, { internal: true }).catch(() => undefined);
        if (!ok) await Bun.sleep(250);
      }
      expect(await ok!.text()).toBe("back");
      expect((await c.request(url, { internal: true })).status).toBe(200);
    } finally {
      revived.stop(true);
    }
  });

  test("answers of any other status (404, 500) count as alive and keep the breaker closed", async () => {
    answers = { "/e500": () => new Response("err", { status: 500 }) };
    const c = client(1);
    for (let i = 0; i < 8; i++) expect((await c.request(`${base}/e500`, { internal: true })).status).toBe(500);
    expect(arrivals.get("/e500")!.length).toBe(8);
  });
});
