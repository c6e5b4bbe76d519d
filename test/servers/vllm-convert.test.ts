import { describe, expect, test } from "bun:test";
import { attachTokenIds } from "../../src/servers/token-ids.ts";
import { emptyCompletion, isContextOverflow, preprocessChatParams } from "../../src/servers/vllm-preprocess.ts";
import { responsesToChatParams } from "../../src/servers/vllm-request.ts";
import { chatToResponse as convert } from "../../src/servers/vllm-response.ts";

type Obj = Record<string, any>;
const chatToResponse = (c: Obj, r: Obj, o: { usesReasoningParser: boolean; model: string }): Obj => convert(c, r, o);

const weatherTool = { type: "function", name: "get_weather", description: "Weather", strict: true, parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

describe("Responses → Chat Completions (request)", () => {
  const cases: { name: string; params: Obj; expected: Obj }[] = [
    {
      name: "string input becomes a user message with a text part",
      params: { input: "hello", model: "m" },
      expected: { messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }], model: "m" },
    },
    {
      name: "tools are flattened (type/strict dropped), tool_choice and parallel_tool_calls kept with tools",
      params: { input: [{ role: "user", content: "x" }], tools: [weatherTool], tool_choice: "auto", parallel_tool_calls: false },
      expected: {
        messages: [{ role: "user", content: "x" }],
        tools: [{ type: "function", function: { name: "get_weather", description: "Weather", parameters: weatherTool.parameters } }],
        tool_choice: "auto",
        parallel_tool_calls: false,
      },
    },
    {
      name: "parallel calls: reasoning, assistant text and two function calls merge into one assistant message; outputs follow",
      params: {
        input: [
          { role: "user", content: "two cities" },
          { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "think A" }, { type: "summary_text", text: "" }] },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
          { type: "function_call", call_id: "c1", name: "get_weather", arguments: '{"city":"SF"}' },
          { type: "function_call", call_id: "c2", name: "get_weather", arguments: '{"city":"NY"}' },
          { type: "function_call_output", call_id: "c1", output: "cold" },
          { type: "function_call_output", call_id: "c2", output: [{ type: "input_text", text: "warm" }] },
        ],
      },
      expected: {
        messages: [
          { role: "user", content: "two cities" },
          {
            role: "assistant",
            content: "<think>think A</think>Checking.",
            tool_calls: [
              { id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"SF"}' } },
              { id: "c2", type: "function", function: { name: "get_weather", arguments: '{"city":"NY"}' } },
            ],
          },
          { role: "tool", tool_call_id: "c1", content: "cold" },
          { role: "tool", tool_call_id: "c2", content: [{ type: "text", text: "warm" }] },
        ],
      },
    },
    {
      name: "instructions become the leading system message, merged with leading system/developer messages; max_output_tokens → max_tokens; reasoning.effort → reasoning_effort",
      params: { input: [{ role: "developer", content: "be brief" }, { role: "user", content: [{ type: "input_text", text: "q" }, { type: "input_image", image_url: "http://i" }] }], instructions: "sys", max_output_tokens: 7, reasoning: { effort: "low" }, text: { format: { type: "text" } } },
      expected: {
        messages: [
          { role: "system", content: "sys\n\nbe brief" },
          { role: "user", content: [{ type: "text", text: "q" }, { type: "image_url", image_url: { url: "http://i", detail: "auto" } }] },
        ],
        max_tokens: 7,
        reasoning_effort: "low",
      },
    },
    {
      name: "no tools: tool_choice and parallel_tool_calls are dropped",
      params: { input: "x", tool_choice: "auto", parallel_tool_calls: true },
      expected: { messages: [{ role: "user", content: [{ type: "text", text: "x" }] }] },
    },
    {
      name: "token fields on history items ride on the rebuilt assistant message",
      params: { input: [{ role: "user", content: "q" }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "a" }], prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.5] }] },
      expected: { messages: [{ role: "user", content: "q" }, { role: "assistant", content: "a", prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.5] }] },
    },
  ];
  for (const c of cases) test(c.name, () => expect(responsesToChatParams(c.params)).toEqual(c.expected));

  test("tool_choice required without tools, and item types with no chat form, are errors", () => {
    expect(() => responsesToChatParams({ input: "x", tool_choice: "required" })).toThrow(/required/);
    expect(() => responsesToChatParams({ input: [{ type: "web_search_call", id: "w" }] })).toThrow(/no Chat Completions representation/);
  });
});

describe("Chat Completion → Responses (response)", () => {
  const chat = (message: Obj, finish = "stop", extra: Obj = {}): Obj => ({ id: "c", created: 123, choices: [{ index: 0, message, finish_reason: finish }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 2 } }, ...extra });

  test("reasoning (parser on) → reasoning item, then message, then parallel function calls; usage and echo", () => {
    const r = chatToResponse(
      chat({ role: "assistant", reasoning_content: "hmm", content: "Sure.", tool_calls: [{ id: "t1", type: "function", function: { name: "a", arguments: "{}" } }, { id: "t2", type: "function", function: { name: "b", arguments: '{"x":1}' } }] }, "tool_calls"),
      { input: "q", tools: [weatherTool], temperature: 0.2 },
      { usesReasoningParser: true, model: "served" },
    );
    expect(r.output.map((o: Obj) => o.type)).toEqual(["reasoning", "message", "function_call", "function_call"]);
    expect(r.output[0].summary).toEqual([{ type: "summary_text", text: "hmm" }]);
    expect(r.output[0].id).toMatch(/^rs_[0-9a-f]{32}$/);
    expect(r.output[1].content[0]).toEqual({ type: "output_text", text: "Sure.", annotations: [] });
    expect(r.output[3]).toMatchObject({ type: "function_call", id: "t2", call_id: "t2", name: "b", arguments: '{"x":1}', status: "completed" });
    expect(r).toMatchObject({ object: "response", model: "served", created_at: 123, status: "completed", incomplete_details: null, tool_choice: "auto", parallel_tool_calls: true, temperature: 0.2 });
    expect(r.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(r.usage).toEqual({ input_tokens: 10, input_tokens_details: { cached_tokens: 2 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: null }, total_tokens: 15 });
  });

  test("think tags in content are split out with the parser on, kept with it off", () => {
    const on = chatToResponse(chat({ role: "assistant", content: "<think>plan</think>Answer" }), { input: "q" }, { usesReasoningParser: true, model: "m" });
    expect(on.output.map((o: Obj) => o.type)).toEqual(["reasoning", "message"]);
    expect(on.output[1].content[0].text).toBe("Answer");
    const off = chatToResponse(chat({ role: "assistant", content: "<think>plan</think>Answer" }), { input: "q" }, { usesReasoningParser: false, model: "m" });
    expect(off.output).toHaveLength(1);
    expect(off.output[0].content[0].text).toBe("<think>plan</think>Answer");
    expect(() => chatToResponse(chat({ role: "assistant", content: "x", reasoning_content: "r" }), { input: "q" }, { usesReasoningParser: false, model: "m" })).toThrow(/reasoning parser/);
  });

  test("finish_reason length/content_filter → incomplete; an empty answer still yields one empty message", () => {
    const len = chatToResponse(chat({ role: "assistant", content: null }, "length"), { input: "q" }, { usesReasoningParser: false, model: "m" });
    expect(len).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    expect(len.output).toHaveLength(1);
    expect(len.output[0].content[0].text).toBe("");
    expect(chatToResponse(chat({ role: "assistant", content: "x" }, "content_filter"), { input: "q" }, { usesReasoningParser: false, model: "m" }).incomplete_details).toEqual({ reason: "content_filter" });
  });

  test("only the first of multiple choices is converted", () => {
    const c = chat({ role: "assistant", content: "first" });
    c.choices.push({ index: 1, message: { role: "assistant", content: "second" }, finish_reason: "stop" });
    const r = chatToResponse(c, { input: "q" }, { usesReasoningParser: false, model: "m" });
    expect(r.output).toHaveLength(1);
    expect(r.output[0].content[0].text).toBe("first");
  });

  test("token fields land on the last output item", () => {
    const r = chatToResponse(chat({ role: "assistant", content: "a", tool_calls: [{ id: "t", type: "function", function: { name: "f", arguments: "{}" } }], prompt_token_ids: [1], generation_token_ids: [2, 3], generation_log_probs: [-1, -2] }), { input: "q" }, { usesReasoningParser: false, model: "m" });
    expect(r.output[0].generation_token_ids).toBeUndefined();
    expect(r.output[1]).toMatchObject({ type: "function_call", prompt_token_ids: [1], generation_token_ids: [2, 3], generation_log_probs: [-1, -2] });
  });
});

describe("pre-send processing", () => {
  test("precedence: extra_body < request keys < sampling_overrides; metadata JSON strings merge into chat_template_kwargs and extra_body", () => {
    const out = preprocessChatParams(
      { messages: [{ role: "developer", content: "d" }], temperature: 0.5, metadata: { chat_template_kwargs: '{"enable_thinking":false}', extra_body: '{"seed":7}' }, top_logprobs: null },
      { model: "served", extraBody: { temperature: 0.9, top_k: 5 }, samplingOverrides: { top_k: 1 }, chatTemplateKwargs: { a: 1 }, replaceDeveloperRoleWithSystem: true },
    );
    expect(out).toMatchObject({ model: "served", temperature: 0.5, top_k: 1, seed: 7, chat_template_kwargs: { a: 1, enable_thinking: false } });
    expect(out.messages).toEqual([{ role: "system", content: "d" }]);
    expect("top_logprobs" in out).toBe(false);
  });

  test("token ids requested: logprobs flags set; n must be 1", () => {
    const out = preprocessChatParams({ messages: [] }, { model: "m", returnTokenIdInformation: true, requestPromptAndGenerationTokenIds: true });
    expect(out).toMatchObject({ logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true, return_token_ids: true });
    expect(() => preprocessChatParams({ messages: [], n: 2 }, { model: "m", returnTokenIdInformation: true })).toThrow(/n must be 1/);
  });

  test("reasoning parser: think spans leave assistant history and go to reasoning_content", () => {
    const out = preprocessChatParams({ messages: [{ role: "assistant", content: "<think>r</think>a" }] }, { model: "m", usesReasoningParser: true });
    expect(out.messages).toEqual([{ role: "assistant", content: "a", reasoning_content: "r", reasoning: "r" }]);
  });

  test("context overflow 400 → empty length completion", () => {
    expect(isContextOverflow(400, "This model's maximum context length is 4096")).toBe(true);
    expect(isContextOverflow(500, "context length")).toBe(false);
    expect(emptyCompletion("length", "m")).toMatchObject({ id: "chtcmpl-123", choices: [{ finish_reason: "length", message: { content: null } }] });
  });
});

describe("training token ids", () => {
  const lp = (ids: number[]) => ({ content: ids.map((id, i) => ({ token: `token_id:${id}`, logprob: -0.1 * (i + 1) })) });

  test("source 1: a complete bundle on the message is kept, logprobs stay", async () => {
    const chat: Obj = { choices: [{ message: { role: "assistant", content: "x", prompt_token_ids: [1], generation_token_ids: [2], generation_log_probs: [-0.3] }, logprobs: lp([2]) }] };
    await attachTokenIds(chat, async () => { throw new Error("no tokenize"); });
    expect(chat.choices[0].logprobs).toBeDefined();
    expect(chat.choices[0].message.generation_token_ids).toEqual([2]);
  });

  test("source 2: prompt_token_ids + choices[0].token_ids, log probs from logprobs; transport keys removed", async () => {
    const chat: Obj = { prompt_token_ids: [5, 6], choices: [{ message: { role: "assistant", content: "x" }, token_ids: [7, 8], logprobs: lp([7, 8]) }] };
    const b = await attachTokenIds(chat, async () => { throw new Error("no tokenize"); });
    expect(b).toEqual({ prompt_token_ids: [5, 6], generation_token_ids: [7, 8], generation_log_probs: [-0.1, -0.2] });
    expect(chat.prompt_token_ids).toBeUndefined();
    expect(chat.choices[0].token_ids).toBeUndefined();
    expect(chat.choices[0].logprobs).toBeUndefined();
    expect(chat.choices[0].message.prompt_token_ids).toEqual([5, 6]);
  });

  test("source 2 disagreeing with the logprob ids is an error", async () => {
    const chat: Obj = { prompt_token_ids: [5], choices: [{ message: {}, token_ids: [9], logprobs: lp([7]) }] };
    await expect(attachTokenIds(chat, async () => [])).rejects.toThrow(/disagree/);
  });

  test("source 3: token_id logprobs + /tokenize for the prompt", async () => {
    const chat: Obj = { choices: [{ message: { role: "assistant", content: "x" }, logprobs: lp([3, 4, 5]) }] };
    let called = 0;
    const b = await attachTokenIds(chat, async () => {
      called++;
      return [1, 2];
    });
    expect(called).toBe(1);
    expect(b.generation_token_ids).toEqual([3, 4, 5]);
    expect(b.prompt_token_ids).toEqual([1, 2]);
  });
});
