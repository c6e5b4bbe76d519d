/**
 * vllm_model training token ids end to end: simple_agent /run over a recording fake vLLM —
 * the engine flags sent, chat_template_kwargs merged, token fields on the rollout's output items,
 * sent back in history on the next turn, the /tokenize fallback body, and the monotonicity check.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assertPrefixContiguity, attachTokenIds } from "../../src/servers/token-ids.ts";
import { postJson, startStack, type Stack } from "./_stack.ts";

type Obj = Record<string, any>;

const lp = (ids: number[]) => ({ content: ids.map((id, i) => ({ token: `token_id:${id}`, logprob: -(i + 1) / 10 })) });

const seen: { path: string; body: Obj }[] = [];
// Turn 1 answers a tool call with ids [4,5] over prompt [1,2,3]; turn 2 answers text over a prompt
// that extends [1,2,3,4,5] — or, when the user asked for it, one that rewrites the history.
const vllm = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    const body = (await req.json()) as Obj;
    seen.push({ path, body });
    if (path === "/tokenize") return Response.json({ count: 2, max_model_len: 64, tokens: [31, 32], token_strs: null });
    const text = JSON.stringify(body.messages);
    const inline = body.return_token_ids === true;
    const turn2 = body.messages.some((m: Obj) => m.role === "tool");
    if (!turn2) {
      const choice: Obj = { index: 0, finish_reason: "tool_calls", logprobs: lp([4, 5]), message: { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"SF"}' } }] } };
      if (inline) choice.token_ids = [4, 5];
      return Response.json({ id: "c1", object: "chat.completion", created: 1, model: body.model, choices: [choice], ...(inline ? { prompt_token_ids: [1, 2, 3] } : {}), usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
    }
    const prompt = text.includes("rewrite") ? [1, 2, 9, 4, 5, 6] : [1, 2, 3, 4, 5, 6, 7];
    const choice: Obj = { index: 0, finish_reason: "stop", logprobs: lp([8]), message: { role: "assistant", content: "Cold." } };
    if (inline) choice.token_ids = [8];
    return Response.json({ id: "c2", object: "chat.completion", created: 2, model: body.model, choices: [choice], ...(inline ? { prompt_token_ids: prompt } : {}), usage: { prompt_tokens: prompt.length, completion_tokens: 1, total_tokens: prompt.length + 1 } });
  },
});
const base = `http://127.0.0.1:${vllm.port}/v1`;
const chats = () => seen.filter((s) => s.path === "/v1/chat/completions").map((s) => s.body);

const weatherTool = { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: false };
const ref = (name: string, type: string) => ({ type, name });

let stack: Stack;
beforeAll(async () => {
  stack = await startStack([
    { name: "policy_model", serverType: "responses_api_models", impl: "vllm_model", leaf: { base_url: base, api_key: "k", model: "policy", return_token_id_information: true, request_prompt_and_generation_token_ids: true, uses_reasoning_parser: true, chat_template_kwargs: { enable_thinking: true, mode: "a" } } },
    { name: "tokenize_model", serverType: "responses_api_models", impl: "vllm_model", leaf: { base_url: base, api_key: "k", model: "policy", return_token_id_information: true, uses_reasoning_parser: false, chat_template_kwargs: { enable_thinking: true }, extra_body: { mm_processor_kwargs: { fps: 2 }, required_prefix_token_ids: [1, 2, 3] } } },
    { name: "weather", serverType: "resources_servers", impl: "example_single_tool_call", leaf: { domain: "agent" } },
    { name: "agent", serverType: "responses_api_agents", impl: "simple_agent", leaf: { resources_server: ref("weather", "resources_servers"), model_server: ref("policy_model", "responses_api_models") } },
  ]);
});
afterAll(async () => {
  await stack.stop();
  vllm.stop(true);
});

describe("return_token_id_information through a rollout", () => {
  test("engine flags and merged chat_template_kwargs are sent; token fields land on the rollout's output items and ride back in history", async () => {
    seen.length = 0;
    const r = await postJson(`${stack.url.agent}/run`, { responses_create_params: { input: "weather in SF?", tools: [weatherTool], metadata: { chat_template_kwargs: '{"mode":"b"}' } } });
    expect(r.status).toBe(200);
    const [first, second] = chats();
    expect(first).toMatchObject({ model: "policy", logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true, return_token_ids: true, chat_template_kwargs: { enable_thinking: true, mode: "b" } });
    // The assistant turn is sent back carrying its own token ids (the monotonic history NeMo RL relies on).
    const assistant = second!.messages.find((m: Obj) => m.role === "assistant");
    expect(assistant).toMatchObject({ tool_calls: [{ id: "call_1" }], prompt_token_ids: [1, 2, 3], generation_token_ids: [4, 5], generation_log_probs: [-0.1, -0.2] });
    expect(seen.some((s) => s.path === "/tokenize")).toBe(false);

    const output = r.json.response.output as Obj[];
    expect(output.map((o) => o.type)).toEqual(["function_call", "function_call_output", "message"]);
    expect(output[0]).toMatchObject({ prompt_token_ids: [1, 2, 3], generation_token_ids: [4, 5], generation_log_probs: [-0.1, -0.2] });
    expect(output[2]).toMatchObject({ prompt_token_ids: [1, 2, 3, 4, 5, 6, 7], generation_token_ids: [8], generation_log_probs: [-0.1] });
    expect(output[1]!.prompt_token_ids).toBeUndefined();
    // Transport keys never reach the rollout.
    expect(JSON.stringify(r.json)).not.toContain("token_id:");
    expect(() => assertPrefixContiguity(r.json.response)).not.toThrow();
  });

  test("a later turn whose prompt ids rewrite the earlier tokens fails the monotonicity check", async () => {
    const r = await postJson(`${stack.url.agent}/run`, { responses_create_params: { input: "rewrite the weather", tools: [weatherTool] } });
    expect(r.status).toBe(200);
    expect(r.json.response.output.at(-1).prompt_token_ids).toEqual([1, 2, 9, 4, 5, 6]);
    expect(() => assertPrefixContiguity(r.json.response)).toThrow("does not extend the tokens seen so far");
  });

  test("without inline ids the prompt ids come from /tokenize with every prompt-affecting chat key (extra_body ones included)", async () => {
    seen.length = 0;
    const messages = [{ role: "user", content: "hi" }];
    const r = await postJson(`${stack.url.tokenize_model}/v1/chat/completions`, { messages, tools: [{ type: "function", function: { name: "get_weather" } }], temperature: 0.5 });
    expect(r.status).toBe(200);
    const chat = chats()[0]!;
    expect(chat.return_token_ids).toBeUndefined();
    const tok = seen.find((s) => s.path === "/tokenize")!.body;
    expect(tok).toEqual({ model: "policy", messages, tools: [{ type: "function", function: { name: "get_weather" } }], chat_template_kwargs: { enable_thinking: true }, mm_processor_kwargs: { fps: 2 }, required_prefix_token_ids: [1, 2, 3] });
    expect(r.json.choices[0].message).toMatchObject({ prompt_token_ids: [31, 32], generation_token_ids: [4, 5], generation_log_probs: [-0.1, -0.2] });
    expect(r.json.choices[0].logprobs ?? null).toBeNull();
  });
});

describe("assertPrefixContiguity (upstream test_trajectory_builder cases)", () => {
  const cases: { name: string; output: Obj[]; ok: boolean }[] = [
    { name: "a gap: the second prompt does not extend [1,2,3,10]", output: [{ type: "message", prompt_token_ids: [1, 2, 3], generation_token_ids: [10] }, { type: "message", prompt_token_ids: [1, 2, 3, 99], generation_token_ids: [11] }], ok: false },
    { name: "content does not break contiguity", output: [{ type: "message", prompt_token_ids: [1, 2, 3], generation_token_ids: [10, 11] }, { type: "message", prompt_token_ids: [1, 2, 3, 10, 11, 4, 5], generation_token_ids: [12] }], ok: true },
    { name: "a leading content-only item and tool outputs are skipped", output: [{ type: "message" }, { type: "function_call", prompt_token_ids: [1], generation_token_ids: [2] }, { type: "function_call_output" }, { type: "message", prompt_token_ids: [1, 2, 3], generation_token_ids: [4] }], ok: true },
    { name: "a shorter later prompt", output: [{ type: "message", prompt_token_ids: [1, 2], generation_token_ids: [3] }, { type: "message", prompt_token_ids: [1, 2], generation_token_ids: [4] }], ok: false },
  ];
  test.each(cases)("$name", ({ output, ok }) => {
    const run = () => assertPrefixContiguity({ output });
    if (ok) expect(run).not.toThrow();
    else expect(run).toThrow(expect.objectContaining({ name: "AssertionError" }));
  });
});

describe("attachTokenIds: upstream's source checks", () => {

  const cases: { name: string; chat: Obj; error: string }[] = [
    { name: "a partial bundle on the message", chat: { choices: [{ message: { prompt_token_ids: [10, 20] }, logprobs: lp([1]) }] }, error: "choice.message returned partial token metadata; missing: generation_log_probs, generation_token_ids." },
    { name: "prompt ids without choice.token_ids", chat: { prompt_token_ids: [1], choices: [{ message: {}, logprobs: lp([1]) }] }, error: "vLLM response returned partial token metadata; missing: choice.token_ids." },
    { name: "choice.token_ids without prompt ids", chat: { choices: [{ message: {}, token_ids: [1], logprobs: lp([1]) }] }, error: "missing: prompt_token_ids." },
    { name: "a message bundle disagreeing with vLLM's inline ids", chat: { prompt_token_ids: [10, 20], choices: [{ message: { prompt_token_ids: [10, 20], generation_token_ids: [123], generation_log_probs: [-0.1] }, token_ids: [999] }] }, error: "Message-level token metadata disagrees with vLLM response token IDs." },
    { name: "a message bundle with mismatched lengths", chat: { choices: [{ message: { prompt_token_ids: [1], generation_token_ids: [2, 3], generation_log_probs: [-0.1] } }] }, error: "mismatched generation token IDs and log probabilities: 2 token IDs and 1 log probabilities." },
    { name: "no logprobs at all", chat: { choices: [{ message: {} }] }, error: "requested per-token logprobs from vLLM" },
    { name: "a logprob token not in token_id form", chat: { choices: [{ message: {}, logprobs: { content: [{ token: "hello", logprob: -1 }] } }] }, error: "choice.logprobs.content[0].token must use the `token_id:<int>` format." },
    { name: "a non-numeric logprob", chat: { choices: [{ message: {}, logprobs: { content: [{ token: "token_id:1", logprob: "x" }] } }] }, error: "choice.logprobs.content[0].logprob must be numeric." },
  ];
  test.each(cases)("$name → RuntimeError", async ({ chat, error }) => {
    const e = await attachTokenIds(chat, async () => [0]).then(() => undefined, (x: Error) => x);
    expect(e?.name).toBe("RuntimeError");
    expect(e?.message).toContain(error);
  });

  test("a complete message bundle wins and keeps the logprobs block; routed_experts is kept", async () => {
    const chat: Obj = { prompt_token_ids: [1], choices: [{ message: { prompt_token_ids: [1], generation_token_ids: [2], generation_log_probs: [-0.5], routed_experts: "abc" }, token_ids: [2], logprobs: lp([2]) }] };
    const b = await attachTokenIds(chat, async () => { throw new Error("must not tokenize"); });
    expect(b).toEqual({ prompt_token_ids: [1], generation_token_ids: [2], generation_log_probs: [-0.5], routed_experts: "abc" });
    expect(chat.choices[0].logprobs).toBeDefined();
    expect(chat.prompt_token_ids).toBeUndefined();
    expect(chat.choices[0].token_ids).toBeUndefined();
  });
});
