/**
 * request_liveness_timeout_seconds: a hung peer (accepts connections, answers nothing, not even a
 * probe) fails calls in seconds although their deadline is long; a slow but live peer does not.
 */
import { afterAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { TCPSocketListener } from "bun";
import { HttpClient, RequestFailedError } from "../../../src/runtime/http/client.ts";
import { resetBreakers } from "../../../src/runtime/http/breaker.ts";

setDefaultTimeout(60_000);
beforeEach(resetBreakers);

const client = () => new HttpClient({ timeoutSeconds: 600, retryBudgetSeconds: 5, limits: { limit: 0, limitPerHost: 0 }, debug: false, livenessSeconds: 1 });

// A hung server: the kernel accepts, nothing ever answers (like a SIGSTOPped process).
const hung: TCPSocketListener<undefined> = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
// A live but slow server: GET / answers at once, the work takes 3 s (the body dribbles on /dribble).
const slow = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === "/") return new Response("alive");
    if (path === "/dribble") {
      return new Response(
        new ReadableStream({
          async start(c) {
            for (let i = 0; i < 10; i++) {
              c.enqueue(new TextEncoder().encode(`${i}`));
              await Bun.sleep(300);
            }
            c.close();
          },
        }),
      );
    }
    await Bun.sleep(3000);
    return Response.json({ done: true });
  },
});
afterAll(() => {
  hung.stop(true);
  slow.stop(true);
});

describe("liveness probe", () => {
  for (const [name, path, opts] of [
    ["an internal call (pool)", "/run", { internal: true }],
    ["a model call (pool)", "/v1/responses", { kind: "model" as const }],
    ["an external call (fetch)", "/other", {}],
  ] as const) {
    test(`${name} to a hung peer fails as unresponsive in seconds, not at its 600 s deadline`, async () => {
      const url = `http://127.0.0.1:${hung.port}${path}`;
      const t0 = performance.now();
      const err = await client().request(url, { method: "POST", json: {}, ...opts }).catch((e) => e);
      expect(err).toBeInstanceOf(RequestFailedError);
      expect((err as RequestFailedError).kind).toBe("unresponsive");
      expect((err as RequestFailedError).message).toContain("request_liveness_timeout_seconds");
      expect((performance.now() - t0) / 1000).toBeLessThan(30);
    });
  }

  test("a slow peer that answers the probe keeps its calls (silent 3 s, liveness 1 s)", async () => {
    const res = await client().request(`http://127.0.0.1:${slow.port}/work`, { method: "POST", json: {}, internal: true });
    expect(await res.json()).toEqual({ done: true });
  });

  test("a body that keeps arriving is never cut", async () => {
    const a = await client().exchange(`http://127.0.0.1:${slow.port}/dribble`, { internal: true });
    expect(Buffer.from(a.body).toString()).toBe("0123456789");
  });
});
