/** OTLP/HTTP export encodings: the protobuf writer checked against protobufjs, the protocol choice, and both over the wire. */
import { describe, expect, test } from "bun:test";
import { encodeMetricsRequest } from "../../../src/runtime/http/otlp-proto.ts";
import { otlpProtocol, postOtlp } from "../../../src/runtime/http/otlp-push.ts";
import { decodeMetricsRequest, otlpCollector } from "../../helpers/otlp.ts";

const attr = (key: string, v: string) => ({ key, value: { stringValue: v } });
// Everything gym emits: resource and point attributes, a scope, an int sum (zero included), a double
// gauge (zero included), a histogram, and nanosecond times beyond 2^53.
const body = {
  resourceMetrics: [
    {
      resource: { attributes: [attr("service.name", "gym"), attr("nemo.gym.server.name", "my_agent")] },
      scopeMetrics: [
        {
          scope: { name: "gym.http" },
          metrics: [
            { name: "gym.http.connection_pool.connect_total", unit: "1", sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [
              { attributes: [attr("nemo.gym.http.destination.server.name", "policy_model")], startTimeUnixNano: "1795953980123456789", timeUnixNano: "1795953990987654321", asInt: "4096" },
              { attributes: [attr("nemo.gym.http.destination.server.name", "external")], startTimeUnixNano: "1795953980123456789", timeUnixNano: "1795953990987654321", asInt: "0" },
            ] } },
            { name: "gym.rollouts.mean_reward", unit: "1", gauge: { dataPoints: [{ timeUnixNano: "1795953990987654321", asDouble: 0 }, { timeUnixNano: "1795953990987654321", asDouble: 0.75 }] } },
            { name: "gym.http.connection_pool.queue_duration_ms", unit: "ms", histogram: { aggregationTemporality: 2, dataPoints: [
              { attributes: [attr("nemo.gym.http.connection_pool.queue_constraint", "per_host")], startTimeUnixNano: "1", timeUnixNano: "2", count: "3", sum: 12.5, bucketCounts: ["1", "0", "2"], explicitBounds: [5, 10.5] },
            ] } },
          ],
        },
      ],
    },
  ],
};

/** The body as protobufjs decodes it: an empty repeated field comes back as [] (the JSON body just omits it). */
function withEmptyAttributes(b: typeof body): unknown {
  return JSON.parse(JSON.stringify(b, (k, v) => (v && typeof v === "object" && !Array.isArray(v) && ("asDouble" in v || "asInt" in v) && !("attributes" in v) ? { attributes: [], ...v } : v)));
}

describe("OTLP export", () => {
  test("the protobuf encoding decodes (protobufjs) to exactly the JSON-mapped body", () => {
    expect(decodeMetricsRequest(encodeMetricsRequest(body))).toEqual(withEmptyAttributes(body) as Record<string, unknown>);
  });

  test("protocol: http/json when asked; http/protobuf by default, as OTel; anything else falls back to http/protobuf", () => {
    expect(otlpProtocol("http/json")).toBe("http/json");
    expect(otlpProtocol(undefined)).toBe("http/protobuf");
    expect(otlpProtocol("HTTP/PROTOBUF")).toBe("http/protobuf");
    expect(otlpProtocol("grpc")).toBe("http/protobuf");
  });

  test("both encodings over the wire carry the same metrics, with their content types", async () => {
    const c = otlpCollector();
    try {
      await postOtlp(c.url, body, "http/protobuf");
      await postOtlp(c.url, body, "http/json");
      expect(c.received.map((r) => r.contentType)).toEqual(["application/x-protobuf", "application/json"]);
      expect(c.received[0]!.body).toEqual(withEmptyAttributes(body));
      expect(c.received[1]!.body).toEqual(body);
    } finally {
      c.stop();
    }
  });

  test("a collector answering non-2xx is an error the caller reports", async () => {
    const down = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("no", { status: 503 }) });
    try {
      await expect(postOtlp(`http://127.0.0.1:${down.port}/v1/metrics`, body, "http/protobuf")).rejects.toThrow("HTTP 503");
    } finally {
      down.stop(true);
    }
  });
});
