/** speed_bench_agent: per-turn replay of trailing user messages against a recording model server (real loopback servers). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assistantText, trailingUserTurns } from "../../src/components/agents/speed-bench-agent.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

type Obj = Record<string, any>;
const modelCalls: Obj[] = [];
const usage = { input_tokens: 10, output_tokens: 2, total_tokens: 12, input_tokens_details: { cached_tokens: 1 }, output_tokens_details: { reasoning_tokens: 0 } };

const model = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = (await req.json()) as Obj;
    modelCalls.push(body);
    const n = modelCalls.length;
    return Response.json({ id: `resp_${n}`, object: "response", created_at: 1, model: "m", output: [{ id: `msg_${n}`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: `reply ${body.input.length}`, annotations: [] }] }], parallel_tool_calls: true, tool_choice: "auto", tools: [], usage });
  },
});
const resources = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    const body = (await req.json()) as Obj;
    if (path === "/seed_session") return Response.json({}, { headers: { "set-cookie": "rs=1; Path=/" } });
    if (path === "/verify") return Response.json({ ...body, reward: req.headers.get("cookie")?.includes("rs=1") ? 1.0 : 0.0 });
    return Response.json({ group_level_metrics: [], agent_metrics: {}, key_metrics: {} });
  },
});

let stack: Stack;
beforeAll(async () => {
  stack = await startStack(
    [{ name: "agent", serverType: "responses_api_agents", impl: "speed_bench_agent", leaf: { resources_server: { type: "resources_servers", name: "res" }, model_server: { type: "responses_api_models", name: "policy" } } }],
    { res: { resources_servers: { fake: { host: "127.0.0.1", port: resources.port } } }, policy: { responses_api_models: { fake: { host: "127.0.0.1", port: model.port } } } },
  );
});
afterAll(async () => {
  await stack.stop();
  model.stop(true);
  resources.stop(true);
});

const u = (c: string) => ({ role: "user", content: c });
describe("speed_bench_agent", () => {
  const turnCases: [Obj[], number[]][] = [
    [[u("a")], [0]],
    [[{ role: "system", content: "s" }, u("a"), u("b"), u("c")], [1, 2, 3]],
    [[u("a"), { role: "assistant", content: "x" }, u("b")], [2]],
    [[u("a"), { role: "assistant", content: "x" }], [1]],
    [[], []],
  ];
  for (const [msgs, want] of turnCases) test(`trailing user turns of ${msgs.map((m) => m.role).join(",") || "nothing"}`, () => expect(trailingUserTurns(msgs)).toEqual(want));

  test("assistant text joins output_text parts of assistant messages only", () => {
    expect(assistantText({ output: [{ type: "reasoning" }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "a" }, { type: "refusal" }, { type: "output_text", text: "b" }] }] })).toBe("ab");
  });

  test("three user turns → three model calls, each with the replies so far; outputs and usage accumulate", async () => {
    modelCalls.length = 0;
    const r = await postJson(`${stack.url.agent}/v1/responses`, { input: [{ role: "system", content: "sys" }, u("t1"), u("t2"), u("t3")], temperature: 0 });
    expect(r.status).toBe(200);
    expect(modelCalls.map((c) => c.input.map((m: Obj) => `${m.role}:${m.content}`))).toEqual([
      ["system:sys", "user:t1"],
      ["system:sys", "user:t1", "assistant:reply 2", "user:t2"],
      ["system:sys", "user:t1", "assistant:reply 2", "user:t2", "assistant:reply 4", "user:t3"],
    ]);
    expect(modelCalls.every((c) => c.temperature === 0)).toBe(true);
    expect(r.json.output.map((o: Obj) => o.content[0].text)).toEqual(["reply 2", "reply 4", "reply 6"]);
    expect(r.json.usage).toEqual({ input_tokens: 30, output_tokens: 6, total_tokens: 36, input_tokens_details: { cached_tokens: 3 }, output_tokens_details: { reasoning_tokens: 0 } });
  });

  test("a string input is one turn, one call", async () => {
    modelCalls.length = 0;
    await postJson(`${stack.url.agent}/v1/responses`, { input: "hello" });
    expect(modelCalls).toHaveLength(1);
  });

  test("/run seeds, replays and verifies on the seeded session", async () => {
    const r = await postJson(`${stack.url.agent}/run`, { responses_create_params: { input: [u("q1"), u("q2")] }, extra: 1 });
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(1.0);
    expect(r.json.extra).toBe(1);
    expect(r.json.response.output).toHaveLength(2);
  });
});
