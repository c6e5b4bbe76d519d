import { afterAll, describe, expect, test } from "bun:test";
import { ServerClient } from "../../../src/runtime/http/client.ts";
import { innerClientFrom } from "../../../src/servers/inner-client.ts";
import { JudgeClient, judgeMessages } from "../../../src/verify/judge/judge-client.ts";
import { JudgeError } from "../../../src/verify/judge/judge-error.ts";
import { chatText, firstLabel, lastMessageText } from "../../../src/verify/judge/labels.ts";
import { JudgePrompt, JudgePromptError } from "../../../src/verify/judge/prompt.ts";

// A local judge endpoint speaking the Responses / chat API; the request's `mode` (in the user text) picks a fault.
let active = 0;
let peak = 0;

const waiting: (() => void)[] = [];
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req) {
    const body = (await req.json()) as { input?: { content: string }[]; messages?: { content: string }[] };
    const text = (body.input ?? body.messages ?? []).map((m) => m.content).join("\n");
    if (text.includes("mode=500")) return new Response("boom", { status: 500 });
    if (text.includes("mode=badjson")) return new Response("{not json", { status: 200 });
    if (text.includes("mode=partial")) return Response.json({ output: [] });
    if (text.includes("mode=hang")) await new Promise((r) => setTimeout(r, 5000));
    if (text.includes("mode=hold")) {
      active++;
      peak = Math.max(peak, active);
      await new Promise<void>((r) => waiting.push(r));

      active--;
    }
    if (body.messages) return Response.json({ id: "c", object: "chat.completion", created: 1, model: "j", choices: [{ index: 0, message: { role: "assistant", content: "Judgement: [[A=B]]" } }] });
    return Response.json({
      id: "r", created_at: 1, model: "j", object: "response", parallel_tool_calls: true, tool_choice: "auto", tools: [],
      output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: `echo ${text.length} [[A=B]]` }] }],
    });
  },
});

function judge(maxConcurrency: number | null = 64, extra: Record<string, unknown> = {}): JudgeClient {
  const dict = { request_timeout_seconds: 1, request_retry_budget_seconds: 0, judge: { responses_api_models: { openai_model: { host: "127.0.0.1", port: server.port } } }, ...extra };
  return new JudgeClient({ transport: innerClientFrom(new ServerClient(dict)), server: "judge", createParams: { input: [], max_output_tokens: 16 }, maxConcurrency });
}

afterAll(() => server.stop(true));

describe("JudgeClient", () => {
  test("asks over /v1/responses with the base params and records the call", async () => {
    const ev = await judge().respond(judgeMessages("hello", "sys"));
    expect(ev.responses_create_params).toEqual({ input: [{ role: "system", content: "sys" }, { role: "user", content: "hello" }], max_output_tokens: 16 });
    expect(lastMessageText(ev.response)).toBe("echo 9 [[A=B]]");
  });

  test("the system message is left out when empty", () => {
    expect(judgeMessages("u", "")).toEqual([{ role: "user", content: "u" }]);
    expect(judgeMessages("u", null)).toEqual([{ role: "user", content: "u" }]);
  });

  test.each([
    ["mode=500", "answered 500"],
    ["mode=badjson", "not JSON"],
    ["mode=partial", "lacks required field(s) id, created_at"],
    ["mode=hang", ""],
  ])("%s is a JudgeError", async (mode, msg) => {
    const err = await judge().respond(judgeMessages(mode)).catch((e) => e);
    expect(err).toBeInstanceOf(JudgeError);
    expect(String(err.message)).toContain(msg);
  });

  test("an unreachable judge is a JudgeError", async () => {
    const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = dead.port;
    dead.stop(true);
    const dict = { request_timeout_seconds: 2, request_retry_budget_seconds: 0, judge: { responses_api_models: { x: { host: "127.0.0.1", port } } } };
    const j = new JudgeClient({ transport: innerClientFrom(new ServerClient(dict)), server: "judge", createParams: {}, maxConcurrency: 1 });
    expect(await j.respond(judgeMessages("x")).catch((e) => e)).toBeInstanceOf(JudgeError);
  });

  test("judge_endpoint_max_concurrency bounds calls in flight", async () => {
    active = 0;
    peak = 0;
    const j = judge(2);
    const calls = Array.from({ length: 6 }, () => j.respond(judgeMessages("mode=hold")));
    // Release held calls one at a time as they arrive; each release lets the gate admit the next.
    let released = 0;
    while (released < 6) {
      if (waiting.length > 0) {
        waiting.shift()!();
        released++;
      } else await Bun.sleep(5);
    }
    await Promise.all(calls);
    expect(peak).toBe(2);
    expect(j.inFlight).toBe(0);
  });

  test("chat path: request built from the responses params, text read from choices[0]", async () => {
    const j = new JudgeClient({ transport: judge().opts.transport, server: "judge", createParams: { max_output_tokens: 0, temperature: 0.3 }, maxConcurrency: null });
    const params = j.chatParams([{ role: "user", content: "q" }], { max_tokens: 64, temperature: 0, top_p: 1 });
    expect(params).toEqual({ messages: [{ role: "user", content: "q" }], max_tokens: 64, temperature: 0.3, top_p: 1 });
    const { completion } = await j.chat(params);
    expect(chatText(completion)).toBe("Judgement: [[A=B]]");
  });
});

describe("labels and prompts", () => {
  test.each([
    ["x [[A=B]] y [[A!=B]]", "[[A=B]]"],
    ["x [[A!=B]] y [[A=B]]", "[[A!=B]]"],
    ["no verdict here", undefined],
  ])("firstLabel(%p)", (text, want) => {
    expect(firstLabel(text, ["[[A=B]]", "[[A!=B]]"])).toBe(want as string | undefined);
  });

  test("same offset: the longer label wins", () => {
    expect(firstLabel("INCORRECT", ["INCORRECT", "INCORRECT_X", "CORRECT"])).toBe("INCORRECT");
  });

  test("lastMessageText reads only a final message", () => {
    expect(lastMessageText({ output: [{ type: "message", content: [{ text: "a" }, { text: "b" }] }] })).toBe("b");
    expect(lastMessageText({ output: [{ type: "message", content: [] }, { type: "reasoning" }] })).toBeUndefined();
  });

  test("a placeholder the server does not supply fails at construction", () => {
    expect(() => new JudgePrompt("{question} {gold}", ["question", "expected_answer"])).toThrow(JudgePromptError);
    expect(() => new JudgePrompt("{question} {gold}", ["question", "expected_answer"])).toThrow("{gold}");
    expect(new JudgePrompt("{{x}} {question}", ["question"]).render({ question: "q" })).toBe("{x} q");
  });
});
