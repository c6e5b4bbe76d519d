/** single_agent_turn failure paths and the agent timeout, plus vllm replica stickiness, on loopback. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { replicaIndex } from "../../src/components/models/vllm-model.ts";
import { serveApp } from "../../src/runtime/http/http.ts";
import { modelServerApp } from "../../src/servers/model.ts";
import { postJson, startStack, type Stack } from "./_stack.ts";

type Obj = Record<string, any>;

// A model that takes 8 s per answer: far longer than the 0.3 s agent timeout, so a run that
// returns well before it was cut, even on a loaded machine.
const slow = serveApp(
  modelServerApp({
    className: "SlowModel",
    instanceName: "slow_model",
    backend: {
      async responses(_p, ctx) {
        await Bun.sleep(8000);
        if (ctx.signal.aborted) throw new Error("aborted");
        return { id: "r", object: "response", created_at: 1, model: "slow", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] };
      },
      async chatCompletions() {
        throw new Error("unused");
      },
    },
  }),
  { host: "127.0.0.1", port: 0 },
);

let stack: Stack;
beforeAll(async () => {
  const ref = (type: string, name: string) => ({ type, name });
  stack = await startStack(
    [
      { name: "policy_model", serverType: "responses_api_models", impl: "scripted_model" },
      { name: "weather", serverType: "resources_servers", impl: "example_single_tool_call", leaf: { domain: "agent" } },
      { name: "agent", serverType: "responses_api_agents", impl: "simple_agent", leaf: { model_server: ref("responses_api_models", "policy_model") } },
      { name: "slow_agent", serverType: "responses_api_agents", impl: "simple_agent", leaf: { model_server: ref("responses_api_models", "slow_model") } },
      { name: "bad_seed", serverType: "environment_servers", impl: "single_agent_turn", leaf: { resources_server: ref("resources_servers", "policy_model"), agent_server: ref("responses_api_agents", "agent"), resources_tool_transports: ["direct_http"] } },
      { name: "timeout_env", serverType: "environment_servers", impl: "single_agent_turn", leaf: { resources_server: ref("resources_servers", "weather"), agent_server: ref("responses_api_agents", "slow_agent"), resources_tool_transports: ["direct_http"] } },
    ],
    { slow_model: { responses_api_models: { fake: { host: "127.0.0.1", port: slow.port } } } },
  );
});
afterAll(async () => {
  await stack.stop();
  slow.stop(true);
});

const episode = (taskInput: Obj) => ({ episode_id: { rollout_id: "7-0", attempt: 1 }, task: { task_id: { taskset: "w", task_id: "7" }, task_input: { responses_create_params: { input: "weather?" }, ...taskInput } } });

describe("single_agent_turn", () => {
  test("a resources server that rejects the seed is a terminal seed failure (4xx), with no result", async () => {
    const r = await postJson(`${stack.url.bad_seed}/run`, episode({}));
    expect(r.status).toBe(200);
    expect(r.json.result).toBeNull();
    expect(r.json.failure).toMatchObject({ stage: "seed", terminal: true });
    expect(r.json.failure.failure_reason).toContain("404");
    expect(r.json.episode_id).toEqual({ rollout_id: "7-0", attempt: 1 });
  });

  test("agent_timeout_seconds: the turn is cut, the agent closed, and an empty incomplete envelope graded", async () => {
    const started = performance.now();
    const r = await postJson(`${stack.url.timeout_env}/run`, episode({ agent_timeout_seconds: 0.3 }));
    // Generous: the model would take 8 s; anything well below it means the turn was cut.
    expect(performance.now() - started).toBeLessThan(6000);
    expect(r.json.failure).toBeNull();
    // Graded by the resources server's verify: example_single_tool_call rewards every response 1.0, as upstream.
    expect(r.json.result).toMatchObject({ agent_timed_out: true, agent_timeout_seconds: 0.3, reward: 1 });
    expect(r.json.result.response).toMatchObject({ status: "incomplete", output: [], metadata: { agent_timed_out: "true", response_source: "environment_timeout_envelope" } });
  });
});

describe("vllm_model replica stickiness", () => {
  test("uint64_be(sha256(session_id)[0:8]) mod N, as upstream (values computed with Python's hashlib)", () => {
    expect(replicaIndex("abc", 3)).toBe(0);
    expect(replicaIndex("session-1", 2)).toBe(0);
    expect(replicaIndex("00000000-0000-4000-8000-000000000000", 7)).toBe(5);
  });
});
