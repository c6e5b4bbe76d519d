/**
 * A small global_aiohttp_connector_limit must not deadlock nested hops: a server whose handler
 * calls itself (an agent's self-call to /v1/responses), whose inner handler then calls another
 * server (the model), all through one client with limit 2 — as a run with
 * ++global_aiohttp_connector_limit=2 does. A shared total let the outer calls hold every slot.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { HttpClient } from "../../../src/runtime/http/client.ts";

setDefaultTimeout(30_000);

// The agent process's one client: total limit 2 (per host unlimited).
const agentClient = new HttpClient({ timeoutSeconds: 60, retryBudgetSeconds: 5, limits: { limit: 2, limitPerHost: 0 }, debug: false });

const model = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch() {
    await Bun.sleep(20);
    return Response.json({ output: "hi" });
  },
});
const agent = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === "/run") {
      const r = await agentClient.exchange(`http://127.0.0.1:${agent.port}/v1/responses`, { method: "POST", json: {}, internal: true });
      return new Response(r.body, { status: r.status });
    }
    const m = await agentClient.exchange(`http://127.0.0.1:${model.port}/v1/responses`, { method: "POST", json: {}, internal: true });
    return new Response(m.body, { status: m.status });
  },
});
afterAll(() => {
  agent.stop(true);
  model.stop(true);
});

describe("nested hops under a small connector limit", () => {
  test("20 concurrent rollouts through self-call → model with limit 2 all finish", async () => {
    const driver = new HttpClient({ timeoutSeconds: 60, retryBudgetSeconds: 5, limits: { limit: 0, limitPerHost: 0 }, debug: false });
    const all = Promise.all(Array.from({ length: 20 }, () => driver.exchange(`http://127.0.0.1:${agent.port}/run`, { method: "POST", json: {}, internal: true })));
    // A deadlock shows up as this timer winning, not as a test timeout.
    const verdict = await Promise.race([all.then((r) => r.map((a) => a.status)), Bun.sleep(20_000).then(() => "deadlocked" as const)]);
    expect(verdict).toEqual(Array(20).fill(200));
  });
});
