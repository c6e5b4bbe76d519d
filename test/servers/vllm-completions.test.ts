/** vllm_model `use_completions_api` (raw and chat-template modes) against a recording fake vLLM `/v1/completions` + `/tokenize`. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { component } from "../../src/components/models/vllm-model.ts";
import { GymError } from "../../src/errors.ts";
import { loadChatTemplate } from "../../src/servers/chat-template.ts";
import { postJson, startStack, type Stack } from "./_stack.ts";

type Obj = Record<string, any>;

// A small ChatML-style template exercising what real ones use: special tokens, tools, kwargs, the generation prompt.
const TEMPLATE = [
  "{{ bos_token }}",
  "{%- if tools %}<|im_start|>system\nTools:{% for t in tools %} {{ t.function.name }}{% endfor %}<|im_end|>\n{% endif %}",
  "{%- for m in messages %}<|im_start|>{{ m.role }}\n{% if m.content is string %}{{ m.content }}{% else %}{% for p in m.content %}{{ p.text }}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}",
  "{%- if add_generation_prompt %}<|im_start|>assistant\n{% if enable_thinking is defined and enable_thinking is false %}<think></think>{% endif %}{% endif %}",
].join("");

const dir = mkdtempSync(join(tmpdir(), "gym-vllm-tpl-"));
const tokDir = join(dir, "tok");
mkdirSync(tokDir);
writeFileSync(join(tokDir, "tokenizer_config.json"), JSON.stringify({ bos_token: { content: "<s>", lstrip: false }, eos_token: "</s>", chat_template: TEMPLATE }));
const noTplDir = join(dir, "notpl");
mkdirSync(noTplDir);
writeFileSync(join(noTplDir, "tokenizer_config.json"), JSON.stringify({ eos_token: "</s>" }));

const seen: { path: string; body: Obj }[] = [];
const vllm = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    const body = (await req.json()) as Obj;
    seen.push({ path, body });
    if (path === "/tokenize") {
      if (typeof body.prompt !== "string") return Response.json({ error: "prompt required" }, { status: 400 });
      return Response.json({ tokens: [...body.prompt].slice(0, 4).map((c) => c.charCodeAt(0)) });
    }
    if (path !== "/v1/completions") return new Response("not found", { status: 404 });
    if (typeof body.prompt !== "string" || body.messages !== undefined) return Response.json({ error: "bad completions body" }, { status: 422 });
    if (body.prompt.includes("overflow")) return new Response('{"message":"maximum context length is 8 tokens"}', { status: 400 });
    const choice: Obj = { index: 0, text: body.prompt.includes("please think") ? "<think>hm</think>answer" : "answer", finish_reason: "stop" };
    if (body.logprobs !== undefined) choice.logprobs = { tokens: ["token_id:7", "token_id:8"], token_logprobs: [-0.5, -0.25] };
    if (body.return_token_ids && !body.prompt.includes("old-engine")) {
      choice.prompt_token_ids = [1, 2, 3];
      choice.token_ids = [7, 8];
    }
    return Response.json({ id: "cmpl-1", object: "text_completion", created: 9, model: body.model, choices: [choice], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
  },
});
const base = `http://127.0.0.1:${vllm.port}/v1`;
const last = (path: string) => seen.filter((s) => s.path === path).at(-1)!.body;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack([
    { name: "raw", serverType: "responses_api_models", impl: "vllm_model", leaf: { base_url: base, api_key: "k", model: "base-m", return_token_id_information: false, uses_reasoning_parser: true, use_completions_api: true, extra_body: { top_k: 5, temperature: 0.1 }, sampling_overrides: { top_p: 0.9 } } },
    { name: "tpl", serverType: "responses_api_models", impl: "vllm_model", leaf: { base_url: base, api_key: "k", model: "inst-m", return_token_id_information: true, uses_reasoning_parser: false, use_completions_api: true, render_chat_template: true, tokenizer: tokDir, chat_template_kwargs: { enable_thinking: true } } },
  ]);
});
afterAll(async () => {
  await stack.stop();
  vllm.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

describe("use_completions_api, raw mode", () => {
  test("[system, user] are joined by a blank line and sent as a completions prompt with mapped sampling fields", async () => {
    const r = await postJson(`${stack.url.raw}/v1/chat/completions`, { messages: [{ role: "system", content: "Be brief." }, { role: "user", content: [{ type: "text", text: "2+2" }, { type: "text", text: "?" }] }], max_completion_tokens: 16, temperature: 0.7, logprobs: true, stop: ["\n"] });
    expect(r.status).toBe(200);
    const body = last("/v1/completions");
    // Request keys beat extra_body; sampling_overrides beat everything; logprobs becomes a count.
    expect(body).toEqual({ model: "base-m", prompt: "Be brief.\n\n2+2?", max_tokens: 16, temperature: 0.7, stop: ["\n"], logprobs: 0, top_k: 5, top_p: 0.9 });
    expect(r.json).toMatchObject({ object: "chat.completion", choices: [{ finish_reason: "stop", message: { role: "assistant", content: "answer", tool_calls: null } }], usage: { total_tokens: 5 } });
  });

  test("the Responses route renders its string input and splits <think> with the reasoning parser on", async () => {
    const r = await postJson(`${stack.url.raw}/v1/responses`, { input: "please think" });
    expect(r.status).toBe(200);
    expect(last("/v1/completions").prompt).toBe("please think");
    expect(r.json.output.map((o: Obj) => o.type)).toEqual(["reasoning", "message"]);
    expect(r.json.output[0].summary[0].text).toBe("hm");
    expect(r.json.output[1].content[0].text).toBe("answer");
  });

  test.each([
    ["multi-turn", { messages: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }, { role: "user", content: "c" }] }, "at most one system + one user message"],
    ["wrong pair", { messages: [{ role: "user", content: "a" }, { role: "user", content: "b" }] }, "requires the two-message form to be [system, user]; got ['user', 'user']."],
    ["lone system", { messages: [{ role: "system", content: "a" }] }, "requires a user message; got role='system'."],
    ["null content", { messages: [{ role: "user", content: null }] }, "requires string or text-block-list content; got NoneType for role='user'."],
    ["empty", { messages: [] }, "empty messages list"],
    ["image block", { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }] }, "only accepts text content blocks; got block type 'image_url' for role='user'."],
    ["tools", { messages: [{ role: "user", content: "a" }], tools: [{ type: "function", function: { name: "f" } }] }, "tools are not supported"],
    ["audio", { messages: [{ role: "user", content: "a" }], metadata: { audio_path: "x.wav" } }, "audio metadata ('audio_path')"],
  ])("%s is rejected with upstream's ValueError before any engine call", async (_name, body, message) => {
    const before = seen.length;
    const r = await postJson(`${stack.url.raw}/v1/chat/completions`, body);
    expect(r.status).toBe(500);
    expect(r.text).toContain("ValueError");
    expect(r.text).toContain(message);
    expect(seen.length).toBe(before);
  });

  test("a context-length 400 becomes an empty length completion", async () => {
    const r = await postJson(`${stack.url.raw}/v1/chat/completions`, { messages: [{ role: "user", content: "overflow" }] });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: "chtcmpl-123", choices: [{ finish_reason: "length", message: { content: null } }] });
  });
});

describe("use_completions_api with render_chat_template", () => {
  test("multi-turn history and tools render through the tokenizer's template with the generation prompt and kwargs", async () => {
    const messages = [{ role: "system", content: "sys" }, { role: "user", content: "hi" }, { role: "assistant", content: "yo" }, { role: "user", content: [{ type: "text", text: "again" }] }];
    const tools = [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }];
    const r = await postJson(`${stack.url.tpl}/v1/chat/completions`, { messages, tools, metadata: { chat_template_kwargs: JSON.stringify({ enable_thinking: false }) } });
    expect(r.status).toBe(200);
    const body = last("/v1/completions");
    expect(body.prompt).toBe("<s><|im_start|>system\nTools: lookup<|im_end|>\n<|im_start|>system\nsys<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nyo<|im_end|>\n<|im_start|>user\nagain<|im_end|>\n<|im_start|>assistant\n<think></think>");
    // Token ids requested: logprobs=0 plus vLLM's inline token-id flags; tools are not forwarded.
    expect(body).toMatchObject({ model: "inst-m", logprobs: 0, return_token_ids: true, return_tokens_as_token_ids: true });
    expect(body.tools).toBeUndefined();
    expect(r.json.choices[0].message).toMatchObject({ content: "answer", prompt_token_ids: [1, 2, 3], generation_token_ids: [7, 8], generation_log_probs: [-0.5, -0.25] });
  });

  test("config chat_template_kwargs apply when the request has none; the Responses route carries the token fields on its last item", async () => {
    const r = await postJson(`${stack.url.tpl}/v1/responses`, { input: [{ role: "user", content: "hello" }] });
    expect(r.status).toBe(200);
    expect(last("/v1/completions").prompt).toBe("<s><|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n");
    expect(r.json.output.at(-1)).toMatchObject({ type: "message", prompt_token_ids: [1, 2, 3], generation_token_ids: [7, 8], generation_log_probs: [-0.5, -0.25] });
  });

  test("an engine without inline prompt ids: the prompt ids come from /tokenize on the rendered prompt; generation ids from logprob tokens", async () => {
    const r = await postJson(`${stack.url.tpl}/v1/chat/completions`, { messages: [{ role: "user", content: "old-engine" }] });
    expect(r.status).toBe(200);
    const tok = last("/tokenize");
    expect(tok).toEqual({ model: "inst-m", prompt: "<s><|im_start|>user\nold-engine<|im_end|>\n<|im_start|>assistant\n" });
    expect(r.json.choices[0].message).toMatchObject({ prompt_token_ids: [60, 115, 62, 60], generation_token_ids: [7, 8] });
  });

  test("n > 1 with token ids is refused", async () => {
    const r = await postJson(`${stack.url.tpl}/v1/chat/completions`, { messages: [{ role: "user", content: "x" }], n: 2 });
    expect(r.status).toBe(500);
    expect(r.text).toContain("requires n=1");
  });
});

describe("chat template loading fails at start with the fix", () => {
  const leaf = (extra: Obj) => ({ base_url: base, api_key: "k", model: "m", return_token_id_information: false, uses_reasoning_parser: false, use_completions_api: true, render_chat_template: true, ...extra });
  test.each([
    ["a missing tokenizer directory", { tokenizer: join(dir, "nope") }, "does not exist"],
    ["a tokenizer config without a chat_template", { tokenizer: noTplDir }, "has no chat_template"],
    ["an HF model id instead of a local path (tokenizer unset)", { model: "Qwen/Qwen3-8B" }, "Qwen/Qwen3-8B"],
  ])("%s", async (_name, extra, message) => {
    let err: unknown;
    try {
      await component.create({ instanceName: "pm", config: leaf(extra), globalConfig: {} });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GymError);
    expect((err as GymError).message).toContain(message);
    expect((err as GymError).hint).toContain("render_chat_template: false");
  });

  test("a tokenizer_config.json path works as well as its directory; chat_template.jinja beside it wins; named lists pick tool_use/default", () => {
    const d = join(dir, "named");
    mkdirSync(d);
    writeFileSync(join(d, "tokenizer_config.json"), JSON.stringify({ chat_template: [{ name: "default", template: "D{{ messages|length }}" }, { name: "tool_use", template: "T{{ tools|length }}" }] }));
    const t = loadChatTemplate(join(d, "tokenizer_config.json"), "pm", "tokenizer");
    expect(t.render([{ role: "user", content: "a" }], null, {})).toBe("D1");
    expect(t.render([], [{ type: "function" }, { type: "function" }], {})).toBe("T2");
    writeFileSync(join(d, "chat_template.jinja"), "J{{ add_generation_prompt }}");
    expect(loadChatTemplate(d, "pm", "tokenizer").render([], null, {})).toBe("Jtrue");
  });

  test("a template that does not parse fails at load", () => {
    const d = join(dir, "broken");
    mkdirSync(d);
    writeFileSync(join(d, "tokenizer_config.json"), JSON.stringify({ chat_template: "{% for m in messages %}" }));
    expect(() => loadChatTemplate(d, "pm", "tokenizer")).toThrow(/does not parse/);
  });
});
