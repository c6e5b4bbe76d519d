/** non_executing_simple_agent and tool_simulation_agent: one model call, its tool calls left unexecuted and graded as the action. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

let stack: Stack;
const ref = (name: string, type: string) => ({ type, name });
beforeAll(async () => {
  stack = await startStack([
    { name: "policy_model", serverType: "responses_api_models", impl: "scripted_model" },
    { name: "judge", serverType: "resources_servers", impl: "single_step_tool_use_with_argument_comparison", leaf: { tool_call_comparator_config: { word_count_similarity_threshold: 0.1 } } },
    ...["non_executing_simple_agent", "tool_simulation_agent"].map((impl) => ({
      name: impl, serverType: "responses_api_agents" as const, impl,
      leaf: { resources_server: ref("judge", "resources_servers"), model_server: ref("policy_model", "responses_api_models") },
    })),
  ]);
});
afterAll(async () => stack.stop());

const tools = [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];
const row = (expected: unknown) => ({ responses_create_params: { input: "weather in Paris?", tools }, expected_action: expected });

test.each(["non_executing_simple_agent", "tool_simulation_agent"])("%s: the scripted call is graded, never executed", async (agent) => {
  const r = await postJson(`${stack.url[agent]}/run`, row({ type: "function_call", name: "get_weather", arguments: "{}" }));
  expect(r.status).toBe(200);
  const types = (r.json.response.output as { type: string }[]).map((o) => o.type);
  expect(types).toContain("function_call");
  expect(types).not.toContain("function_call_output");
  expect(r.json.category).toMatch(/tool call|argument|keys/);
  // A message was expected, a call was made: graded 0 with upstream's category.
  const m = await postJson(`${stack.url[agent]}/run`, row({ type: "message", content: "hi" }));
  expect([m.json.reward, m.json.category]).toEqual([0, "A tool call was executed when a chat message was expected"]);
});

test("an invalid expected_action is the resources server's 422, surfaced by the agent as a 500", async () => {
  const r = await postJson(`${stack.url.non_executing_simple_agent}/run`, row({ type: "function_call_batch", calls: [] }));
  expect(r.status).toBe(500);
  expect(r.text).toContain("must not have fewer than 1 items");
});

test("aggregate_metrics is proxied to the resources server", async () => {
  const r = await postJson(`${stack.url.tool_simulation_agent}/aggregate_metrics`, { verify_responses: [{ _ng_task_index: 0, _ng_rollout_index: 0, reward: 1 }] });
  expect(r.status).toBe(200);
  expect(r.json.agent_metrics["mean/reward"]).toBe(1);
});
