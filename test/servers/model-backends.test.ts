/** vllm_model and azure_openai_model against a recording fake endpoint: URLs, headers, overflow and native paths. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { postJson, startStack, type Stack } from "./_stack.ts";

type Obj = Record<string, any>;

const seen: { path: string; query: string; headers: Record<string, string>; body: Obj }[] = [];
const endpoint = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    const body = (await req.json()) as Obj;
    seen.push({ path: url.pathname, query: url.search, headers: Object.fromEntries(req.headers), body });
    const lastUser = JSON.stringify(body.messages?.at(-1) ?? body.input ?? "");
    if (lastUser.includes("overflow")) return new Response('{"object":"error","message":"This model\'s maximum context length is 8 tokens"}', { status: 400 });
    if (lastUser.includes("boom")) return new Response('{"error":"engine died"}', { status: 500 });
    if (url.pathname.endsWith("/responses")) return Response.json({ id: "resp_n", object: "response", created_at: 1, model: body.model, output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] });
    return Response.json({ id: "c", object: "chat.completion", created: 5, model: body.model, choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
  },
});
const base = `http://127.0.0.1:${endpoint.port}`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack([
    { name: "vllm", serverType: "responses_api_models", impl: "vllm_model", leaf: { base_url: `${base}/v1`, api_key: "sk-v", model: "served", default_headers: { "x-team": "rl" }, sampling_overrides: { temperature: 0 } } },
    { name: "strict", serverType: "responses_api_models", impl: "vllm_model", leaf: { base_url: `${base}/v1`, api_key: "k", model: "served", sequential_reasoning_allowed: false } },
    { name: "native", serverType: "responses_api_models", impl: "vllm_model", leaf: { base_url: `${base}/v1`, api_key: "k", model: "served", is_responses_native: true, extra_body: { top_k: 3 } } },
    { name: "azure", serverType: "responses_api_models", impl: "azure_openai_model", leaf: { openai_base_url: `${base}/`, openai_api_key: "az-key", openai_model: "gpt-dep", default_query: { "api-version": "2024-10-21" } } },
  ]);
});
afterAll(async () => {
  await stack.stop();
  endpoint.stop(true);
});

describe("vllm_model", () => {
  test("bearer auth over default headers; sampling_overrides beat the request", async () => {
    const r = await postJson(`${stack.url.vllm}/v1/responses`, { input: "hi", temperature: 0.9 });
    expect(r.status).toBe(200);
    const call = seen.at(-1)!;
    expect(call.path).toBe("/v1/chat/completions");
    expect(call.headers.authorization).toBe("Bearer sk-v");
    expect(call.headers["x-team"]).toBe("rl");
    expect(call.body).toMatchObject({ model: "served", temperature: 0 });
  });

  test("a context-length 400 becomes an incomplete (max_output_tokens) answer; a 500 becomes the inner-server 500 body", async () => {
    const r = await postJson(`${stack.url.vllm}/v1/responses`, { input: "overflow please" });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    const chat = await postJson(`${stack.url.vllm}/v1/chat/completions`, { messages: [{ role: "user", content: "overflow" }] });
    expect(chat.json).toMatchObject({ id: "chtcmpl-123", choices: [{ finish_reason: "length" }] });
    const boom = await postJson(`${stack.url.vllm}/v1/responses`, { input: "boom" });
    expect(boom.status).toBe(500);
    expect(boom.json).toContain("calling an inner server");
    expect(boom.json).toContain("engine died");
  });

  test("sequential_reasoning_allowed: false answers an empty trailing assistant turn without calling the engine", async () => {
    const before = seen.length;
    const r = await postJson(`${stack.url.strict}/v1/chat/completions`, { messages: [{ role: "user", content: "q" }, { role: "assistant", content: "" }] });
    expect(r.json.choices[0].finish_reason).toBe("content_filter");
    expect(seen.length).toBe(before);
  });

  test("is_responses_native posts the Responses body (extra_body under request keys) to /responses", async () => {
    const r = await postJson(`${stack.url.native}/v1/responses`, { input: "hi", top_p: 0.5 });
    expect(r.status).toBe(200);
    expect(seen.at(-1)).toMatchObject({ path: "/v1/responses", body: { input: "hi", top_p: 0.5, top_k: 3, model: "served" } });
  });
});

describe("azure_openai_model", () => {
  test("deployment URL with api-version, api-key header, Responses rebuilt from the chat answer", async () => {
    const r = await postJson(`${stack.url.azure}/v1/responses`, { input: "hi", instructions: "sys", temperature: 0.1 });
    expect(r.status).toBe(200);
    const call = seen.at(-1)!;
    expect(call.path).toBe("/openai/deployments/gpt-dep/chat/completions");
    expect(call.query).toBe("?api-version=2024-10-21");
    expect(call.headers["api-key"]).toBe("az-key");
    expect(call.body.messages[0]).toEqual({ role: "system", content: "sys" });
    expect(r.json).toMatchObject({ object: "response", model: "gpt-dep", temperature: 0.1, output: [{ type: "message", content: [{ text: "ok" }] }] });
  });
});
