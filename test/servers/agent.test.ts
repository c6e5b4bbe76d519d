/** simple_agent's loop against a model that misbehaves on purpose (bad arguments, unknown tool), over loopback. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serveApp } from "../../src/runtime/http/http.ts";
import { modelServerApp } from "../../src/servers/model.ts";
import { postJson, startStack, type Stack } from "./_stack.ts";

type Obj = Record<string, any>;

const usage = (cached: number | null) => ({ input_tokens: 10, input_tokens_details: { cached_tokens: cached }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 });
const resp = (output: Obj[], u: Obj) => ({ id: "resp_x", object: "response", created_at: 1, model: "fake", output, parallel_tool_calls: true, tool_choice: "auto", tools: [], usage: u, status: "completed", incomplete_details: null });

const seen: Obj[] = [];
const model = serveApp(
  modelServerApp({
    className: "FakeModel",
    instanceName: "policy_model",
    backend: {
      async responses(params) {
        seen.push(params);
        const n = (params.input as Obj[]).filter((i) => i.type === "function_call_output").length;
        if (n === 0) {
          return resp([
            { type: "function_call", call_id: "a", name: "get_weather", arguments: "{oops" },
            { type: "function_call", call_id: "b", name: "../seed_session?x=", arguments: "{}" },
          ], usage(3));
        }
        if (n === 2) return resp([{ type: "function_call", call_id: "c", name: "get_weather", arguments: '{"city":"Paris"}' }], usage(null));
        return resp([{ type: "message", id: "m", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done", annotations: [] }] }], usage(1));
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
  const ref = (name: string, type: string) => ({ type, name });
  stack = await startStack(
    [
      { name: "weather", serverType: "resources_servers", impl: "example_single_tool_call", leaf: { domain: "agent" } },
      { name: "agent", serverType: "responses_api_agents", impl: "simple_agent", leaf: { resources_server: ref("weather", "resources_servers"), model_server: ref("policy_model", "responses_api_models") } },
      { name: "agent_one_step", serverType: "responses_api_agents", impl: "simple_agent", leaf: { resources_server: ref("weather", "resources_servers"), model_server: ref("policy_model", "responses_api_models"), max_steps: 1 } },
      { name: "agent_skip", serverType: "responses_api_agents", impl: "simple_agent", leaf: { resources_server: ref("weather", "resources_servers"), model_server: ref("policy_model", "responses_api_models"), skip_verification: true, skip_verification_reward: 0.25 } },
    ],
    { policy_model: { responses_api_models: { fake: { host: "127.0.0.1", port: model.port } } } },
  );
});
afterAll(async () => {
  await stack.stop();
  model.stop(true);
});

describe("simple_agent /v1/responses", () => {
  test("bad arguments → Python json.dumps error text; unknown tool → its 404 body; results fed back until a message", async () => {
    seen.length = 0;
    const r = await postJson(`${stack.url.agent}/v1/responses`, { input: "weather?", tools: [] });
    expect(r.status).toBe(200);
    const out = r.json.output as Obj[];
    expect(out.map((o) => o.type)).toEqual(["function_call", "function_call", "function_call_output", "function_call_output", "function_call", "function_call_output", "message"]);
    expect(out[2]!.output).toBe(`{"error": "Invalid tool call arguments: JSONDecodeError('Expecting property name enclosed in double quotes: line 1 column 2 (char 1)')"}`);
    // A model-made name is one path segment: "../seed_session?x=" cannot reach another route.
    expect(out[3]!.output).toBe('{"detail":"Not Found"}');
    expect(JSON.parse(out[5]!.output)).toEqual({ city: "Paris", weather_description: "The weather in Paris is cold." });
    // Usage is summed; a null detail anywhere makes that detail null.
    expect(r.json.usage).toMatchObject({ input_tokens: 30, output_tokens: 6, total_tokens: 36, input_tokens_details: { cached_tokens: null } });
    // The string input became an easy user message; each turn resends input + all new outputs.
    expect(seen).toHaveLength(3);
    expect(seen[0]!.input).toEqual([{ role: "user", content: "weather?" }]);
    expect(seen[2]!.input).toHaveLength(1 + 6);
    // Resources and model cookies are copied onto the agent's answer (§6.2).
    expect(Object.keys(r.cookies)).toEqual(expect.arrayContaining(["SimpleWeatherResourcesServer___weather", "SimpleAgent___agent"]));
  });

  test("max_steps stops the loop after that many model calls", async () => {
    const r = await postJson(`${stack.url.agent_one_step}/v1/responses`, { input: "weather?" });
    expect((r.json.output as Obj[]).map((o) => o.type)).toEqual(["function_call", "function_call", "function_call_output", "function_call_output"]);
  });
});

describe("simple_agent /run", () => {
  test("skip_verification returns the row, the response and the configured reward", async () => {
    const r = await postJson(`${stack.url.agent_skip}/run`, { responses_create_params: { input: "weather?" }, extra: 1 });
    expect(r.json).toMatchObject({ reward: 0.25, verification_skipped: true, extra: 1 });
    expect(r.json.response.output.at(-1).type).toBe("message");
    const agg = await postJson(`${stack.url.agent_skip}/aggregate_metrics`, { verify_responses: [] });
    expect(agg.json).toEqual({ group_level_metrics: [], agent_metrics: {}, key_metrics: {} });
  });

  test("a failing inner call becomes upstream's 500 JSON string naming the agent", async () => {
    // Its "resources server" is the model server, which answers /seed_session with 404.
    const down = await startStack([{ name: "lonely", serverType: "responses_api_agents", impl: "simple_agent", leaf: { resources_server: { type: "resources_servers", name: "policy_model" }, model_server: { type: "responses_api_models", name: "policy_model" } } }], {
      policy_model: { responses_api_models: { fake: { host: "127.0.0.1", port: model.port } } },
    });
    try {
      const r = await postJson(`${down.url.lonely}/run`, { responses_create_params: { input: "x" } });
      expect(r.status).toBe(500);
      expect(r.json).toBe(`Hit an exception in SimpleAgent___lonely calling an inner server: b'{"detail":"Not Found"}'`);
      expect(Object.keys(r.cookies)).toContain("SimpleAgent___lonely");
    } finally {
      await down.stop();
    }
  });
});
