/** `gym eval run` with gym telemetry on: every server process and the driver push OTLP metrics, pool metrics included (runtime §14). */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { otlpCollector } from "../helpers/otlp.ts";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

type Attr = { key: string; value: { stringValue: string } };
type Metric = { name: string; sum?: { dataPoints: { attributes?: Attr[]; asInt: string }[] } };
type Body = { resourceMetrics: { resource: { attributes: Attr[] }; scopeMetrics: { metrics: Metric[] }[] }[] };
const attrs = (a: Attr[] = []) => Object.fromEntries(a.map((x) => [x.key, x.value.stringValue]));

describe("gym eval run: OTLP telemetry", () => {
  test("servers and the driver export their connection-pool metrics with the seed's names", async () => {
    await using dir = await tempDir();
    const collector = otlpCollector();
    try {
      const r = await runGym(
        ["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "--split", "example", "-o", "out/r.jsonl", "+head_server.port=0"],
        { cwd: dir.path, env: { NEMO_GYM_OTEL_ENABLED: "1", NEMO_GYM_OTEL_RUN_ID: "job-9", OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: collector.url } },
      );
      expect(r.code).toBe(0);
      expect(readJsonl(join(dir.path, "out", "r.jsonl")).length).toBe(5);
      // One resource per pushing process: the last body of each, by server name.
      const byServer = new Map<string, Record<string, Metric>>();
      // OTel's default encoding, as submit's gym telemetry asks for.
      expect(collector.received.every((r) => r.contentType === "application/x-protobuf")).toBe(true);
      for (const { body } of collector.received) {
        const rm = (body as Body).resourceMetrics[0]!;
        const res = attrs(rm.resource.attributes);
        expect(res["nemo.gym.run.id"]).toBe("job-9");
        byServer.set(res["nemo.gym.server.name"]!, Object.fromEntries(rm.scopeMetrics.flatMap((s) => s.metrics).map((m) => [m.name, m])));
      }
      const connectsOf = (server: string) =>
        Object.fromEntries((byServer.get(server)?.["gym.http.connection_pool.connect_total"]?.sum?.dataPoints ?? []).map((p) => [attrs(p.attributes)["nemo.gym.http.destination.server.name"], Number(p.asInt)]));
      // The agent reached the resources server and the policy model by their configured names.
      const agent = connectsOf("example_single_tool_call_simple_agent");
      expect(agent.example_single_tool_call).toBeGreaterThanOrEqual(1);
      expect(agent.policy_model).toBeGreaterThanOrEqual(1);
      // The driver's own metrics, with its connections to the environment server.
      const driver = byServer.get("rollout_collection")!;
      expect(driver["gym.rollouts.completed"]!.sum!.dataPoints[0]!.asInt).toBe("5");
      expect(Object.keys(connectsOf("rollout_collection")).some((d) => d.endsWith("legacy_agent"))).toBe(true);
    } finally {
      collector.stop();
    }
  }, 60_000);
});
