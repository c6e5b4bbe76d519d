/** Connection-pool metrics (runtime §14): queue waits and connects with the seed's names and attributes, pushed over OTLP/HTTP. */
import { afterAll, describe, expect, test } from "bun:test";
import { HttpClient, ServerClient } from "../../../src/runtime/http/client.ts";
import { ServerTelemetry } from "../../../src/runtime/http/otlp-push.ts";
import { poolMetrics } from "../../../src/runtime/http/pool-metrics.ts";
import { envVar, setEnvVar } from "../../../src/env.ts";
import { otlpCollector } from "../../helpers/otlp.ts";

type Point = { attributes: { key: string; value: { stringValue: string } }[]; count?: string; asInt?: string; bucketCounts?: string[] };
type Metric = { name: string; unit: string; histogram?: { dataPoints: Point[] }; sum?: { isMonotonic: boolean; dataPoints: Point[] } };
type Body = { resourceMetrics: { resource: { attributes: { key: string; value: { stringValue: string } }[] }; scopeMetrics: { metrics: Metric[] }[] }[] };
const attrsOf = (p: { attributes: { key: string; value: { stringValue: string } }[] }) => Object.fromEntries(p.attributes.map((a) => [a.key, a.value.stringValue]));

const slow = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: async () => (await Bun.sleep(40), Response.json({ ok: true })) });
const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ ok: true }) });
const collector = otlpCollector();
afterAll(() => {
  poolMetrics.enabled = false;
  for (const s of [slow, other]) s.stop(true);
  collector.stop();
});

describe("connection-pool metrics", () => {
  test("waits for a per-host slot and new connections are recorded by destination and pushed as OTLP", async () => {
    const telemetry = new ServerTelemetry(collector.url, { "nemo.gym.server.name": "my_agent" }, 60_000);
    telemetry.start();
    const http = new HttpClient({ retryBudgetSeconds: 5, limits: { limit: 0, limitPerHost: 1 }, debug: false });
    const sc = new ServerClient({ weather: { resources_servers: { w: { host: "127.0.0.1", port: slow.port } } } }, { http });
    // Three at once through a per-host limit of one: two of them queue.
    await Promise.all([1, 2, 3].map(() => sc.exchange("weather", "/x", { json: {} })));
    // A model call to an endpoint no config names: the pool carries it when no proxy variable is set.
    const proxyVars = ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"];
    const saved = proxyVars.map((k) => [k, envVar(k)] as const);
    for (const k of proxyVars) setEnvVar(k, undefined);
    try {
      await http.exchange(`http://127.0.0.1:${other.port}/v1/responses`, { json: {} });
    } finally {
      for (const [k, v] of saved) setEnvVar(k, v);
    }
    await telemetry.stop();

    expect(collector.received.at(-1)!.contentType).toBe("application/x-protobuf");
    const body = collector.received.at(-1)!.body as Body;
    const resource = attrsOf(body.resourceMetrics[0]!.resource);
    expect(resource["nemo.gym.server.name"]).toBe("my_agent");
    const metrics = Object.fromEntries(body.resourceMetrics[0]!.scopeMetrics[0]!.metrics.map((m) => [m.name, m]));
    const queue = metrics["gym.http.connection_pool.queue_duration_ms"]!;
    expect(queue.unit).toBe("ms");
    const weatherWaits = queue.histogram!.dataPoints.find((p) => attrsOf(p)["nemo.gym.http.destination.server.name"] === "weather")!;
    expect(attrsOf(weatherWaits)).toEqual({
      "nemo.gym.http.connection_pool.queue_constraint": "per_host",
      "nemo.gym.http.connection_pool.queue_outcome": "ok",
      "nemo.gym.http.destination.server.name": "weather",
    });
    expect(weatherWaits.count).toBe("2");
    // The waits were real (one and two 40 ms answers): none fell in the 0 ms bucket.
    expect(weatherWaits.bucketCounts![0]).toBe("0");
    const connects = metrics["gym.http.connection_pool.connect_total"]!;
    expect(connects.sum!.isMonotonic).toBe(true);
    const byDest = Object.fromEntries(connects.sum!.dataPoints.map((p) => [attrsOf(p)["nemo.gym.http.destination.server.name"], Number(p.asInt)]));
    expect(byDest.weather).toBeGreaterThanOrEqual(1);
    // The unnamed host is counted under its destination (external, unless an earlier test in this
    // process named a server at a port the OS has since reused).
    expect(byDest[poolMetrics.destinationOf(`127.0.0.1:${other.port}`)]).toBeGreaterThanOrEqual(1);
  });

  test("a request whose caller gives up while it waits for a slot leaves the queue unsent and is recorded as abandoned", async () => {
    poolMetrics.enabled = true;
    let hits = 0;
    const counting = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: async () => (hits++, await Bun.sleep(80), Response.json({})) });
    try {
      const http = new HttpClient({ retryBudgetSeconds: 5, limits: { limit: 0, limitPerHost: 1 }, debug: false });
      const sc = new ServerClient({ judge: { resources_servers: { j: { host: "127.0.0.1", port: counting.port } } } }, { http });
      const first = sc.exchange("judge", "/x", { json: {} });
      const ac = new AbortController();
      const second = sc.exchange("judge", "/x", { json: {}, signal: ac.signal });
      // The first call holds the one slot once the server saw it; only then is the second surely queued.
      for (const t0 = performance.now(); hits === 0 && performance.now() - t0 < 10_000; ) await Bun.sleep(1);
      ac.abort(new Error("caller gave up"));
      await expect(second).rejects.toThrow("caller gave up");
      expect((await first).status).toBe(200);
      // The abandoned request never reached the server, and the slot it waited for is free again.
      expect(hits).toBe(1);
      expect((await sc.exchange("judge", "/x", { json: {} })).status).toBe(200);
      const queue = (poolMetrics.otlp("1") as { name: string; histogram?: { dataPoints: { attributes: { key: string; value: { stringValue: string } }[]; count: string }[] } }[])
        .find((m) => m.name === "gym.http.connection_pool.queue_duration_ms")!;
      const abandoned = queue.histogram!.dataPoints.find((p) => attrsOf(p)["nemo.gym.http.destination.server.name"] === "judge" && attrsOf(p)["nemo.gym.http.connection_pool.queue_outcome"] === "abandoned");
      expect(abandoned?.count).toBe("1");
    } finally {
      counting.stop(true);
    }
  });

  test("a host no config names is external; a named one reports its server, IPv6 brackets and port 80 as URL.host writes them", () => {
    expect(poolMetrics.destinationOf("203.0.113.7:8000")).toBe("external");
    poolMetrics.nameDestination("::1", 18123, "v6_server");
    poolMetrics.nameDestination("example.internal", 80, "plain");
    expect(poolMetrics.destinationOf("[::1]:18123")).toBe("v6_server");
    expect(poolMetrics.destinationOf("example.internal")).toBe("plain");
  });
});
