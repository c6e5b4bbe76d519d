/** The official `openai` client against gym's model servers over real loopback sockets. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { postJson, startStack, type Stack } from "./_stack.ts";

type Obj = Record<string, any>;

const weatherTool = { type: "function" as const, name: "get_weather", strict: true, parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false } };

/** A fake vLLM endpoint: records requests; answers with reasoning + two parallel tool calls, or text once a tool result is present. */
function fakeVllm() {
  const seen: Obj[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = (await req.json()) as Obj;
      seen.push({ path: url.pathname, body });
      if (url.pathname === "/tokenize") return Response.json({ tokens: [11, 12, 13] });
      const hasTool = body.messages.some((m: Obj) => m.role === "tool");
      const message = hasTool
        ? { role: "assistant", content: "Both are cold.", reasoning_content: "summarise" }
        : { role: "assistant", content: null, reasoning_content: "need weather", tool_calls: [{ id: "t1", type: "function", function: { name: "get_weather", arguments: '{"city":"SF"}' } }, { id: "t2", type: "function", function: { name: "get_weather", arguments: '{"city":"NY"}' } }] };
      const choice: Obj = { index: 0, message, finish_reason: hasTool ? "stop" : "tool_calls" };
      if (body.logprobs) choice.logprobs = { content: [{ token: "token_id:42", logprob: -0.5 }, { token: "token_id:43", logprob: -0.25 }] };
      return Response.json({ id: "chatcmpl-1", object: "chat.completion", created: 1700000000, model: body.model, choices: [choice], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } });
    },
  });
  return { server, seen, url: `http://127.0.0.1:${server.port}/v1` };
}

let stack: Stack;
let vllm: ReturnType<typeof fakeVllm>;

beforeAll(async () => {
  vllm = fakeVllm();
  const scripted = await startStack([{ name: "policy_model", serverType: "responses_api_models", impl: "scripted_model" }]);
  stack = await startStack([
    { name: "vllm", serverType: "responses_api_models", impl: "vllm_model", leaf: { base_url: vllm.url, api_key: "k", model: "served-model", uses_reasoning_parser: true } },
    { name: "vllm_train", serverType: "responses_api_models", impl: "vllm_model", leaf: { base_url: [vllm.url, vllm.url], api_key: "k", model: "served-model", uses_reasoning_parser: true, return_token_id_information: true } },
    { name: "openai", serverType: "responses_api_models", impl: "openai_model", leaf: { openai_base_url: `${scripted.url.policy_model}/v1`, openai_api_key: "k", openai_model: "scripted_model" } },
  ]);
  stack.url.scripted = scripted.url.policy_model!;
  const stopBoth = stack.stop;
  stack.stop = async () => {
    await stopBoth();
    await scripted.stop();
  };
});

afterAll(async () => {
  await stack.stop();
  vllm.server.stop(true);
});

const client = (name: string) => new OpenAI({ baseURL: `${stack.url[name]}/v1`, apiKey: "unused", maxRetries: 0, timeout: 20_000 });

describe("openai client → scripted_model", () => {
  test("responses.create: tool call first, text after the tool result", async () => {
    const c = client("scripted");
    const r1 = await c.responses.create({ model: "scripted_model", input: "weather in SF?", tools: [weatherTool] });
    const call = r1.output[0] as Obj;
    expect(call).toMatchObject({ type: "function_call", name: "get_weather", arguments: '{"city":"test"}' });
    const r2 = await c.responses.create({ model: "scripted_model", input: [{ role: "user", content: "weather in SF?" }, call as never, { type: "function_call_output", call_id: call.call_id, output: "cold" }], tools: [weatherTool] });
    expect(r2.output_text).toContain("scripted");
  });

  test("chat.completions.create: tool_calls, then text; models.list", async () => {
    const c = client("scripted");
    const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } } }];
    const c1 = await c.chat.completions.create({ model: "scripted_model", messages: [{ role: "user", content: "find" }], tools });
    const tc = c1.choices[0]!.message.tool_calls![0]! as Obj;
    expect(tc.function).toEqual({ name: "lookup", arguments: '{"q":"test"}' });
    expect(c1.choices[0]!.finish_reason).toBe("tool_calls");
    const c2 = await c.chat.completions.create({ model: "scripted_model", messages: [{ role: "user", content: "find" }, c1.choices[0]!.message, { role: "tool", tool_call_id: tc.id, content: "found" }], tools });
    expect(c2.choices[0]!.message.content).toContain("scripted");
    const models = await c.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["scripted_model"]);
  });

  test("streaming: chat chunks and Responses events end in a completed answer", async () => {
    const c = client("scripted");
    let text = "";
    for await (const chunk of await c.chat.completions.create({ model: "scripted_model", messages: [{ role: "user", content: "hi" }], stream: true })) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text).toContain("scripted");
    const types: string[] = [];
    for await (const ev of await c.responses.create({ model: "scripted_model", input: "hi", stream: true })) types.push(ev.type);
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.output_text.delta");
    expect(types[types.length - 1]).toBe("response.completed");
  });
});

describe("openai client → openai_model (pass-through to scripted_model)", () => {
  test("responses.create and chat.completions.create pass through, model forced", async () => {
    const c = client("openai");
    const r = await c.responses.create({ model: "anything", input: "weather?", tools: [weatherTool] });
    expect(r.output[0]).toMatchObject({ type: "function_call", name: "get_weather" });
    const cc = await c.chat.completions.create({ model: "anything", messages: [{ role: "user", content: "hi" }] });
    expect(cc.model).toBe("scripted_model");
  });
});

describe("openai client → vllm_model (fake vLLM)", () => {
  test("reasoning + parallel tool calls come back as Responses items; history goes back as one assistant message", async () => {
    const c = client("vllm");
    const r1 = await c.responses.create({ model: "x", input: "two cities", tools: [weatherTool] });
    expect(r1.output.map((o) => o.type)).toEqual(["reasoning", "function_call", "function_call"]);
    const calls = r1.output.filter((o) => o.type === "function_call") as Obj[];
    const r2 = await c.responses.create({
      model: "x",
      input: [{ role: "user", content: "two cities" }, ...(r1.output as never[]), ...calls.map((fc) => ({ type: "function_call_output" as const, call_id: fc.call_id, output: "cold" }))],
      tools: [weatherTool],
    });
    expect(r2.output_text).toBe("Both are cold.");
    const sent = vllm.seen.filter((s) => s.path === "/v1/chat/completions").at(-1)!.body;
    expect(sent.model).toBe("served-model");
    const assistant = sent.messages.filter((m: Obj) => m.role === "assistant");
    expect(assistant).toHaveLength(1);
    expect(assistant[0].tool_calls).toHaveLength(2);
    // With the reasoning parser on, think spans leave the content and travel as reasoning_content.
    expect(assistant[0].reasoning_content).toBe("need weather");
    expect(sent.messages.filter((m: Obj) => m.role === "tool")).toHaveLength(2);
  });

  test("token ids: prompt ids from /tokenize, generation ids and log probs from logprobs, on the last output item and on the chat message", async () => {
    const r = await client("vllm_train").responses.create({ model: "x", input: "q", tools: [weatherTool] });
    const last = r.output.at(-1) as Obj;
    expect(last).toMatchObject({ prompt_token_ids: [11, 12, 13], generation_token_ids: [42, 43], generation_log_probs: [-0.5, -0.25] });
    const cc = await client("vllm_train").chat.completions.create({ model: "x", messages: [{ role: "user", content: "q" }] });
    expect((cc.choices[0]!.message as Obj).generation_token_ids).toEqual([42, 43]);
    expect(vllm.seen.some((s) => s.path === "/tokenize")).toBe(true);
  });
});

describe("/v1/messages (Anthropic) → scripted_model", () => {
  test("tool_use first, text after the tool_result; SSE when streaming; 422 without max_tokens", async () => {
    const base = `${stack.url.scripted}/v1/messages`;
    const tools = [{ name: "get_weather", description: "w", input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];
    const first = await postJson(base, { model: "m", max_tokens: 64, system: "be brief", messages: [{ role: "user", content: "weather?" }], tools });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ type: "message", role: "assistant", stop_reason: "tool_use", content: [{ type: "tool_use", name: "get_weather", input: { city: "test" } }] });
    const use = first.json.content[0];
    const second = await postJson(base, { max_tokens: 64, messages: [{ role: "user", content: "weather?" }, { role: "assistant", content: [use] }, { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "cold" }] }], tools });
    expect(second.json).toMatchObject({ stop_reason: "end_turn", content: [{ type: "text" }] });
    const sse = await (await fetch(base, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ max_tokens: 8, messages: [{ role: "user", content: "hi" }], stream: true }) })).text();
    const events = [...sse.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe("message_start");
    expect(events).toContain("content_block_delta");
    expect(events.at(-1)).toBe("message_stop");
    const bad = await postJson(base, { messages: [{ role: "user", content: "hi" }] });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0]).toMatchObject({ type: "missing", loc: ["body", "max_tokens"] });
  });
});

describe("malformed bodies → upstream-shaped 422, server stays up", () => {
  test("every model endpoint", async () => {
    for (const name of ["scripted", "vllm", "openai"]) {
      const base = stack.url[name]!;
      const bad1 = await postJson(`${base}/v1/responses`, { input: "x", not_a_field: 1 });
      expect(bad1.status).toBe(422);
      expect(bad1.json.detail[0]).toMatchObject({ type: "extra_forbidden", loc: ["body", "not_a_field"] });
      const bad2 = await postJson(`${base}/v1/responses`, "{not json");
      expect(bad2.status).toBe(422);
      expect(bad2.json.detail[0].type).toBe("json_invalid");
      const bad3 = await postJson(`${base}/v1/chat/completions`, { messages: "nope" });
      expect(bad3.status).toBe(422);
      expect(bad3.json.detail[0].loc).toEqual(["body", "messages"]);
      const ok = await fetch(`${base}/`);
      expect(ok.status).toBe(200);
    }
  });
});
