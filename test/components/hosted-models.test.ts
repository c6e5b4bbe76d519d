/**
 * inference_provider, litellm_model, genrm_model and local_vllm_model_proxy against recording fake
 * endpoints on loopback (cases from upstream's tests/test_app.py of each, written as data).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { findBuiltin } from "../../src/components/registry.ts";
import { genrmChatBody } from "../../src/components/models/genrm-model.ts";
import { liteLlmVersionProblem, normalizeLiteLlmResponse, parseLiteLlmVersion } from "../../src/components/models/litellm-model.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

type Obj = Record<string, any>;

const seen: { path: string; headers: Record<string, string>; body: Obj }[] = [];
let litellmVersion: unknown = "1.83.0";
let litellmHealthStatus = 200;
let litellmDowngrade = false;

const endpoint = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/health/readiness/details") {
      seen.push({ path: url.pathname, headers: Object.fromEntries(req.headers), body: {} });
      return Response.json(litellmVersion === undefined ? {} : { litellm_version: litellmVersion }, { status: litellmHealthStatus });
    }
    const body = (await req.json()) as Obj;
    seen.push({ path: url.pathname, headers: Object.fromEntries(req.headers), body });
    const last = JSON.stringify(body.messages?.at(-1) ?? body.input ?? "");
    if (url.pathname.endsWith("/responses")) {
      if (litellmDowngrade) {
        return Response.json({ id: "chatcmpl-x", object: "chat.completion", created: 1700000000, model: "m", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Hi from Opus!" } }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
      }
      return Response.json({ id: "resp_n", object: "response", created_at: 1, model: body.model, output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [], reasoning: { effort: "none" } });
    }
    const message: Obj = { role: "assistant", content: "The answer is 42." };
    if (last.includes("think please")) message.reasoning_content = "Let me think about this...";
    return Response.json({ id: "c", object: "chat.completion", created: 5, model: body.model, choices: [{ index: 0, message, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } });
  },
});
const base = `http://127.0.0.1:${endpoint.port}`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack([
    { name: "provider", serverType: "responses_api_models", impl: "inference_provider", leaf: { base_url: `${base}/v1`, api_key: "sk-p", model: "my-configured-model", extra_body: { frequency_penalty: 0.5, temperature: 0.1 } } },
    { name: "provider_rp", serverType: "responses_api_models", impl: "inference_provider", leaf: { base_url: `${base}/v1`, api_key: "sk-p", model: "m2", uses_reasoning_parser: true } },
    { name: "litellm", serverType: "responses_api_models", impl: "litellm_model", leaf: { openai_base_url: `${base}/v1`, openai_api_key: "dummy_key", openai_model: "dummy_model" } },
    { name: "genrm", serverType: "responses_api_models", impl: "genrm_model", leaf: { base_url: `${base}/v1`, model: "genrm", uses_reasoning_parser: true, supports_principle_role: true } },
  ]);
});
afterAll(async () => {
  await stack.stop();
  endpoint.stop(true);
});

describe("inference_provider", () => {
  test("model forced to the configured one; extra_body under the request's keys; bearer auth", async () => {
    const r = await postJson(`${stack.url.provider}/v1/chat/completions`, { model: "caller-model", messages: [{ role: "user", content: "hi" }], temperature: 0.9 });
    expect(r.status).toBe(200);
    expect(r.json.choices[0].message.content).toBe("The answer is 42.");
    const call = seen.at(-1)!;
    expect(call.path).toBe("/v1/chat/completions");
    expect(call.headers.authorization).toBe("Bearer sk-p");
    expect(call.body).toMatchObject({ model: "my-configured-model", frequency_penalty: 0.5, temperature: 0.9 });
  });

  test("/v1/responses through the official openai client: a Responses object with tool_choice auto", async () => {
    const client = new OpenAI({ baseURL: `${stack.url.provider}/v1`, apiKey: "unused" });
    const resp = await client.responses.create({ model: "x", input: "hello" });
    expect(resp.object).toBe("response");
    expect(resp.model).toBe("my-configured-model");
    expect(resp.status).toBe("completed");
    expect(resp.tool_choice).toBe("auto");
    expect(resp.output).toHaveLength(1);
    expect(resp.output_text).toBe("The answer is 42.");
    expect(Math.abs(resp.created_at - Date.now() / 1000)).toBeLessThan(600);
  });

  test("uses_reasoning_parser strips <think> from the history and wraps reasoning_content in the answer", async () => {
    const r = await postJson(`${stack.url.provider_rp}/v1/chat/completions`, {
      messages: [{ role: "user", content: "q" }, { role: "assistant", content: "<think>secret</think>The answer is 42." }, { role: "user", content: "think please" }],
    });
    expect(seen.at(-1)!.body.messages[1].content).toBe("The answer is 42.");
    expect(r.json.choices[0].message.content).toBe("<think>Let me think about this...</think>The answer is 42.");
    expect(r.json.choices[0].message.reasoning_content).toBeUndefined();
    const resp = await postJson(`${stack.url.provider_rp}/v1/responses`, { input: "think please" });
    expect(resp.json.output.map((o: Obj) => o.type)).toEqual(["reasoning", "message"]);
  });

  test("a missing base_url or model is a config error naming the key", async () => {
    const comp = (await findBuiltin("responses_api_models", "inference_provider"))!;
    expect(() => comp.checkConfig!({ instanceName: "p", config: { model: "m" } })).toThrow(/base_url is not set/);
    expect(() => comp.checkConfig!({ instanceName: "p", config: { base_url: "http://x/v1" } })).toThrow(/model is not set/);
    expect(() => comp.checkConfig!({ instanceName: "p", config: { base_url: "http://x/v1", model: "m", num_concurrent_requests: 0 } })).toThrow(/num_concurrent_requests/);
  });
});

describe("litellm_model", () => {
  const normalizeCases: { name: string; data: Obj; expect: Obj }[] = [
    { name: "native passes through", data: { object: "response", output: [{ type: "message", content: [{ text: "Hello!" }] }] }, expect: { object: "response", output: [{ content: [{ text: "Hello!" }] }] } },
    { name: "reasoning.effort 'none' → null", data: { object: "response", output: [], reasoning: { effort: "none" } }, expect: { reasoning: { effort: null } } },
    { name: "valid effort kept", data: { object: "response", output: [], reasoning: { effort: "high" } }, expect: { reasoning: { effort: "high" } } },
    {
      name: "chat completion normalised",
      data: { id: "c", object: "chat.completion", created: 1700000000, model: "m", choices: [{ finish_reason: "stop", index: 0, message: { content: "Hi from Opus!", role: "assistant" } }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
      expect: { object: "response", created_at: 1700000000, output: [{ content: [{ text: "Hi from Opus!" }] }], usage: { input_tokens: 10, output_tokens: 5, input_tokens_details: { cached_tokens: null }, output_tokens_details: { reasoning_tokens: null } } },
    },
    {
      name: "usage details kept",
      data: { object: "chat.completion", choices: [{ message: { content: "x", role: "assistant" } }], usage: { prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 } } },
      expect: { usage: { total_tokens: 15, input_tokens_details: { cached_tokens: 4 }, output_tokens_details: { reasoning_tokens: 2 } } },
    },
    {
      name: "hybrid (chat.completion with output[])",
      data: { object: "chat.completion", output: [{ id: "msg_h", type: "message", role: "assistant", status: "completed", content: [{ annotations: [], text: "Hybrid text!", type: "output_text" }] }], usage: { input_tokens: 8, output_tokens: 3, total_tokens: 11 } },
      expect: { object: "response", output: [{ content: [{ text: "Hybrid text!" }] }], usage: { input_tokens: 8 } },
    },
    { name: "empty content → empty text", data: { object: "chat.completion", choices: [{ message: { content: null, role: "assistant" } }] }, expect: { output: [{ content: [{ text: "" }] }] } },
    {
      name: "tool calls → function_call items",
      data: { object: "chat.completion", choices: [{ message: { content: null, role: "assistant", tool_calls: [{ id: "call_123", type: "function", function: { name: "lookup_weather", arguments: '{"city":"San Francisco"}' } }] } }], usage: { prompt_tokens: 12, completion_tokens: 4 } },
      expect: { usage: { total_tokens: 16 }, output: [{ type: "function_call", call_id: "call_123", name: "lookup_weather" }] },
    },
  ];
  for (const c of normalizeCases) test(`normalize: ${c.name}`, () => expect(normalizeLiteLlmResponse(structuredClone(c.data))).toMatchObject(c.expect));

  const versions: [unknown, RegExp | null][] = [
    ["1.83.0", null],
    ["v1.83.0-stable", null],
    ["1.83.0-stable.patch.2", null],
    ["1.84.1.post3", null],
    ["1.82.7", /compromised/],
    ["1.82.8", /compromised/],
    ["1.82.6", /minimum safe version/],
    ["0.99.0", /minimum safe version/],
    ["", /did not report litellm_version/],
    [undefined, /did not report litellm_version/],
    ["1.83.0-rc1", /unsupported version/],
    ["latest", /unsupported version/],
  ];
  for (const [v, problem] of versions) {
    test(`version ${JSON.stringify(v)} → ${problem ?? "safe"}`, () => {
      const got = liteLlmVersionProblem(v);
      if (problem === null) expect(got).toBeNull();
      else expect(got).toMatch(problem);
    });
  }
  test("parse", () => expect(parseLiteLlmVersion(" v2.0.10 ")).toEqual([2, 0, 10]));

  test("start-up asks the proxy for its version with both auth headers, then serves", async () => {
    const health = seen.find((s) => s.path === "/health/readiness/details")!;
    expect(health.headers.authorization).toBe("Bearer dummy_key");
    expect(health.headers["x-litellm-key"]).toBe("dummy_key");
    const r = await postJson(`${stack.url.litellm}/v1/responses`, { input: "hi" });
    expect(r.status).toBe(200);
    expect(r.json.reasoning).toEqual({ effort: null });
    expect(seen.at(-1)!.body.model).toBe("dummy_model");
    litellmDowngrade = true;
    try {
      const d = await postJson(`${stack.url.litellm}/v1/responses`, { input: "hi" });
      expect(d.json).toMatchObject({ object: "response", output: [{ content: [{ text: "Hi from Opus!" }] }] });
    } finally {
      litellmDowngrade = false;
    }
  });

  const startCases: [unknown, number, RegExp][] = [
    ["1.82.7", 200, /compromised/],
    ["1.82.6", 200, /minimum safe version/],
    [undefined, 200, /did not report/],
    ["1.83.0", 401, /could not be asked/],
  ];
  for (const [v, status, msg] of startCases) {
    test(`start-up refuses: version ${JSON.stringify(v)} / health ${status}`, async () => {
      const comp = (await findBuiltin("responses_api_models", "litellm_model"))!;
      litellmVersion = v;
      litellmHealthStatus = status;
      try {
        const leaf = { openai_base_url: `${base}/v1`, openai_api_key: "k", openai_model: "m", name: "l2" };
        await expect(comp.create({ instanceName: "l2", config: leaf, globalConfig: {} })).rejects.toThrow(msg);
      } finally {
        litellmVersion = "1.83.0";
        litellmHealthStatus = 200;
      }
    });
  }

  test("an unreachable proxy fails closed with the URL named and the key not printed", async () => {
    const comp = (await findBuiltin("responses_api_models", "litellm_model"))!;
    const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = dead.port;
    dead.stop(true);
    const leaf = { openai_base_url: `http://127.0.0.1:${port}/v1`, openai_api_key: "sk-very-secret", openai_model: "m", name: "l3" };
    const err = await comp.create({ instanceName: "l3", config: leaf, globalConfig: {} }).catch((e: Error) => e);
    expect(String((err as Error).message)).toContain(`http://127.0.0.1:${port}/health/readiness/details`);
    expect(String((err as Error).message)).not.toContain("sk-very-secret");
  });
});

describe("genrm_model", () => {
  const user = { role: "user", content: "Q" };
  const asst = { role: "assistant", content: "prev" };
  const cases: { name: string; body: Obj; principle: boolean; roles: string[]; tail?: Obj[] }[] = [
    { name: "responses appended from metadata", body: { messages: [user, asst], metadata: { response_1: "Response A", response_2: "Response B" } }, principle: true, roles: ["user", "assistant", "response_1", "response_2"], tail: [{ role: "response_1", content: "Response A" }, { role: "response_2", content: "Response B" }] },
    { name: "principle before the responses", body: { messages: [user], metadata: { response_1: "Response A", response_2: "Response B", principle: "Judge impartially." } }, principle: true, roles: ["user", "principle", "response_1", "response_2"], tail: [{ role: "principle", content: "Judge impartially." }] },
    { name: "supports_principle_role false skips it", body: { messages: [user], metadata: { response_1: "A", response_2: "B", principle: "P" } }, principle: false, roles: ["user", "response_1", "response_2"] },
    { name: "no metadata leaves messages unchanged", body: { messages: [user, asst] }, principle: true, roles: ["user", "assistant"] },
    { name: "empty metadata leaves messages unchanged", body: { messages: [user], metadata: {} }, principle: true, roles: ["user"] },
    { name: "system messages untouched", body: { messages: [{ role: "system", content: "You are a helpful assistant." }, { role: "user", content: "Hi" }], metadata: { response_1: "A", response_2: "B" } }, principle: true, roles: ["system", "user", "response_1", "response_2"] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const out = genrmChatBody(structuredClone(c.body), c.principle);
      expect("metadata" in out).toBe(false);
      expect((out.messages as Obj[]).map((m) => m.role)).toEqual(c.roles);
      if (c.tail) expect(out.messages).toEqual(expect.arrayContaining(c.tail));
    });
  }

  test("end to end: the engine receives the comparison roles and no metadata", async () => {
    const r = await postJson(`${stack.url.genrm}/v1/responses`, { input: "Which is better?", metadata: { response_1: "A", response_2: "B", principle: "Be fair." } });
    expect(r.status).toBe(200);
    const call = seen.at(-1)!;
    expect(call.path).toBe("/v1/chat/completions");
    expect(call.body.metadata).toBeUndefined();
    expect(call.body.messages.map((m: Obj) => m.role)).toEqual(["user", "principle", "response_1", "response_2"]);
  });

  test("without base_url: a config error saying gym does not launch vLLM", async () => {
    const comp = (await findBuiltin("responses_api_models", "genrm_model"))!;
    expect(() => comp.checkConfig!({ instanceName: "genrm_model", config: { model: "nvidia/Qwen3-Nemotron-235B-A22B-GenRM-2603" } })).toThrow(/does not launch vLLM/);
  });
});

describe("local_vllm_model_proxy", () => {
  test("waits for the referenced server, then serves vllm_model on its engine", async () => {
    // The referenced local_vllm_model is not listening yet when the proxy starts.
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const enginePort = probe.port;
    probe.stop(true);
    const config: Obj = {
      engine: { responses_api_models: { local_vllm_model: { host: "127.0.0.1", port: enginePort } } },
      proxy: { responses_api_models: { local_vllm_model_proxy: { name: "proxy", uses_reasoning_parser: true, model_server: { type: "responses_api_models", name: "engine" } } } },
    };
    const comp = (await findBuiltin("responses_api_models", "local_vllm_model_proxy"))!;
    let asked = 0;
    const creating = comp.create({ instanceName: "proxy", config: config.proxy.responses_api_models.local_vllm_model_proxy, globalConfig: config });
    await Bun.sleep(300);
    const engine = Bun.serve({
      hostname: "127.0.0.1",
      port: enginePort,
      fetch(req) {
        if (new URL(req.url).pathname !== "/get_inner_vllm_config") return new Response("no", { status: 404 });
        asked++;
        return Response.json({ base_url: [`${base}/v1`], api_key: "engine-key", model: "served-by-engine" });
      },
    });
    try {
      const app = await creating;
      expect(asked).toBe(1);
      const { serveApp } = await import("../../src/runtime/http/http.ts");
      const server = serveApp(app, { host: "127.0.0.1", port: 0 });
      try {
        const r = await postJson(`http://127.0.0.1:${server.port}/v1/responses`, { input: "hi" });
        expect(r.status).toBe(200);
        const call = seen.at(-1)!;
        expect(call.path).toBe("/v1/chat/completions");
        expect(call.headers.authorization).toBe("Bearer engine-key");
        expect(call.body.model).toBe("served-by-engine");
      } finally {
        await server.stop(true);
      }
    } finally {
      engine.stop(true);
    }
  });

  test("model_server.name unset is a config error naming the key", async () => {
    const comp = (await findBuiltin("responses_api_models", "local_vllm_model_proxy"))!;
    expect(() => comp.checkConfig!({ instanceName: "p", config: { model_server: { type: "responses_api_models", name: "???" } } })).toThrow(/model_server.name/);
  });
});
