/** iheval's /aggregate_metrics over a real server: upstream's compute_metrics values (fixture) in agent_metrics, its key metrics, accuracy_mode checked at start. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import "../../src/components/index.ts";
import { findBuiltin } from "../../src/components/registry.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

const FIX = JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "iheval", "metrics.json"), "utf8"));

describe("iheval /aggregate_metrics", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ name: "iheval", serverType: "resources_servers", impl: "iheval", leaf: { accuracy_mode: "hierarchy_sysprompt" } }]);
  });
  afterAll(async () => {
    await stack.stop();
  });

  test("agent_metrics carry upstream's compute_metrics; key_metrics are its headline set", async () => {
    const rows = (FIX.rows as Record<string, unknown>[]).map((r, i) => ({ ...r, _ng_task_index: i, _ng_rollout_index: 0 }));
    const r = await postJson(`${stack.url.iheval}/aggregate_metrics`, { verify_responses: rows });
    expect(r.status).toBe(200);
    for (const [k, v] of Object.entries(FIX.hierarchy_sysprompt.metrics)) expect([k, r.json.agent_metrics[k]]).toEqual([k, v]);
    expect(r.json.key_metrics).toEqual(FIX.hierarchy_sysprompt.key);
  });

  test("an unknown accuracy_mode is a config error naming the key", async () => {
    const comp = (await findBuiltin("resources_servers", "iheval"))!;
    expect(() => comp.checkConfig!({ instanceName: "iheval", config: { accuracy_mode: "strict" } })).toThrow(/accuracy_mode "strict" is not one of hierarchy, hierarchy_sysprompt/);
    expect(() => comp.checkConfig!({ instanceName: "iheval", config: {} })).not.toThrow();
  });
});
