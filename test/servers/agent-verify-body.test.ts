/**
 * simple_agent's /verify body: the agent splices its own /v1/responses answer text into the row's
 * JSON instead of parsing and re-serialising it. The bytes must equal `{...row, response}`
 * serialised, including a row that already carries a `response` key (replaced in place).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serveApp } from "../../src/runtime/http/http.ts";
import { modelServerApp } from "../../src/servers/model.ts";
import { postJson, startStack, type Stack } from "./_stack.ts";

type Obj = Record<string, any>;

const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 };
const model = serveApp(
  modelServerApp({
    className: "FakeModel",
    instanceName: "policy_model",
    backend: {
      async responses(params) {
        const called = (params.input as Obj[]).some((i) => i.type === "function_call_output");
        const output = called
          ? [{ type: "message", id: "m", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Zürich: \"cold\" ☃ \u2028", annotations: [] }] }]
          : [{ type: "function_call", call_id: "c", name: "lookup", arguments: '{"city":"Zürich"}' }];
        return { id: "resp_x", object: "response", created_at: 1.5, model: "fake", output, parallel_tool_calls: true, tool_choice: "auto", tools: [], usage, status: "completed", incomplete_details: null };
      },
      async chatCompletions() {
        throw new Error("unused");
      },
    },
  }),
  { host: "127.0.0.1", port: 0 },
);

/** A resources server that keeps the /verify body exactly as it arrived. */
const verifyBodies: string[] = [];
const resources = serveApp(
  {
    className: "RecordingResources",
    instanceName: "recorder",
    sessions: true,
    routes: [
      { method: "POST", path: "/seed_session", handler: () => ({}) },
      { method: "POST", path: "/lookup", handler: (ctx) => ({ city: (ctx.body as Obj).city, weather: "cold" }) },
      {
        method: "POST",
        path: "/verify",
        handler: (ctx) => {
          verifyBodies.push(ctx.rawBody!);
          return { ...(ctx.body as Obj), reward: 1 };
        },
      },
    ],
  },
  { host: "127.0.0.1", port: 0 },
);

let stack: Stack;
beforeAll(async () => {
  const ref = (name: string, type: string) => ({ type, name });
  stack = await startStack(
    [{ name: "agent", serverType: "responses_api_agents", impl: "simple_agent", leaf: { resources_server: ref("recorder", "resources_servers"), model_server: ref("policy_model", "responses_api_models") } }],
    {
      policy_model: { responses_api_models: { fake: { host: "127.0.0.1", port: model.port } } },
      recorder: { resources_servers: { recorder: { host: "127.0.0.1", port: resources.port } } },
    },
  );
});
afterAll(async () => {
  await stack.stop();
  model.stop(true);
  resources.stop(true);
});

const params = { input: [{ role: "user", content: "weather in Zürich?" }], tools: [{ type: "function", name: "lookup", parameters: { type: "object", properties: { city: { type: "string" } } } }] };

describe("simple_agent /verify body", () => {
  test("the row with the agent's own answer appended, byte for byte as {...row, response} serialised", async () => {
    verifyBodies.length = 0;
    const row = { responses_create_params: params, expected: "cold", nested: { a: [1, 2.5, null], "é": "ü" }, _ng_task_index: 3 };
    const own = await postJson(`${stack.url.agent}/v1/responses`, params);
    expect(own.status).toBe(200);
    const r = await postJson(`${stack.url.agent}/run`, row);
    expect(r.status).toBe(200);
    expect(verifyBodies).toHaveLength(1);
    const response = JSON.parse(own.text);
    // The answer's id and timestamps are the model's, so both calls gave the same response object.
    expect(verifyBodies[0]).toBe(JSON.stringify({ ...row, response }));
    expect(r.json.response).toEqual(response);
  });

  test("a row that already has a response key gets it replaced in place, as a spread does", async () => {
    verifyBodies.length = 0;
    const row = { response: "stale", responses_create_params: params, after: true };
    const r = await postJson(`${stack.url.agent}/run`, row);
    expect(r.status).toBe(200);
    const sent = JSON.parse(verifyBodies[0]!);
    expect(Object.keys(sent)).toEqual(["response", "responses_create_params", "after"]);
    expect(verifyBodies[0]).toBe(JSON.stringify({ ...row, response: sent.response }));
    expect(sent.response.output.at(-1).content[0].text).toBe("Zürich: \"cold\" ☃ \u2028");
  });
});
