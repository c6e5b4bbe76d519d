/**
 * simpleqa: upstream's tests (resources_servers/simpleqa/tests/test_app.py) as data — grade
 * parsing, F1 — plus verify over both judge paths against a local judge endpoint.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { parseAbcGrade, simpleqaMetrics } from "../../src/verify/judge/simpleqa.ts";
import { postJson, startStack } from "../servers/_stack.ts";

describe("parseAbcGrade (upstream TestParseJudgeGrade)", () => {
  test.each([
    ["A", "A"], ["B", "B"], ["C", "C"], ["Some reasoning\nA", "A"], ["The grade is A based on analysis", "A"],
    ["no clear grade here", "C"], ["  B  ", "B"], ["A: CORRECT", "A"], ["B - INCORRECT", "B"], ["C, NOT_ATTEMPTED", "C"],
  ])("%p → %p", (text, want) => {
    expect(parseAbcGrade(text)).toBe(want as "A");
  });
});

describe("simpleqa metrics (upstream TestSimpleQAComputeMetrics)", () => {
  const task = (verdict: string, i: number) => [{ verdict, extracted_answer: `answer_${i}` }];
  test.each([
    ["all correct", ["correct", "correct", "correct", "correct"], 100, 100],
    ["all incorrect", ["incorrect", "incorrect", "incorrect", "incorrect"], 0, 0],
    ["all not attempted", ["not_attempted", "not_attempted", "not_attempted"], 0, 0],
    ["mixed", ["correct", "correct", "incorrect", "not_attempted"], (100 * 4) / 7, (100 * 2) / 3],
  ])("%s", (_n, verdicts, f1, agt) => {
    const m = simpleqaMetrics(verdicts.map(task));
    const f1Keys = Object.keys(m).filter((k) => k.endsWith("/f1"));
    expect(f1Keys.length).toBeGreaterThan(0);
    for (const k of f1Keys) expect(m[k] as number).toBeCloseTo(f1, 6);
    for (const k of Object.keys(m).filter((k) => k.endsWith("/accuracy_given_attempted"))) expect(m[k] as number).toBeCloseTo(agt, 6);
  });
});

const seen: { path: string; body: any }[] = [];
let reply = "A";
const judge = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    const body = await req.json();
    seen.push({ path, body });
    if (path.endsWith("/chat/completions")) return Response.json({ id: "c", object: "chat.completion", created: 1, model: "j", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: reply } }] });
    return Response.json({ id: "r", created_at: 1, model: "j", object: "response", parallel_tool_calls: false, tool_choice: "none", tools: [], output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: reply, annotations: [] }] }] });
  },
});
afterAll(() => judge.stop(true));

const row = { responses_create_params: { input: [{ role: "user", content: "Who?" }] }, response: { id: "r", created_at: 0, model: "m", object: "response", parallel_tool_calls: false, tool_choice: "none", tools: [], output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "<think>x</think>Michio Sugeno", annotations: [] }] }] }, id: "ex0", question: "Who received it?", expected_answer: "Michio Sugeno", metadata: { topic: "t" } };

describe("simpleqa verify", () => {
  test.each([
    [false, "A", "correct", 1],
    [true, "B", "incorrect", 0],
    [true, "unsure", "not_attempted", 0],
  ])("chat=%p, judge %p → %p", async (chat, judgeSays, verdict, reward) => {
    await using s = await startStack(
      [{ name: "sq", serverType: "resources_servers", impl: "simpleqa", leaf: { judge_model_server: { type: "responses_api_models", name: "judge" }, judge_responses_create_params: { input: [], max_output_tokens: 2048, temperature: 0.0 }, use_chat_completions_for_judge: chat } }],
      { judge: { responses_api_models: { openai_model: { host: "127.0.0.1", port: judge.port } } } },
    );
    reply = judgeSays;
    const before = seen.length;
    const r = await postJson(`${s.url.sq}/verify`, row);
    expect(r.json).toMatchObject({ reward, verdict, judge_output: judgeSays, extracted_answer: "<think>x</think>Michio Sugeno", expected_answer: "Michio Sugeno", id: "ex0", question: "Who received it?", metadata: { topic: "t" } });
    const call = seen[before]!;
    expect(call.path).toBe(chat ? "/v1/chat/completions" : "/v1/responses");
    const prompt: string = chat ? call.body.messages[0].content : call.body.input[0].content;
    expect(prompt).toContain("Who received it?");
    expect(prompt).toContain("<think>x</think>Michio Sugeno");
    if (chat) expect(call.body).toMatchObject({ max_tokens: 2048, temperature: 0, top_p: 1 });
  });

  test("an empty judge answer is a judge_failed row", async () => {
    await using s = await startStack(
      [{ name: "sq", serverType: "resources_servers", impl: "simpleqa", leaf: { judge_model_server: { type: "responses_api_models", name: "judge" }, judge_responses_create_params: { input: [] }, use_chat_completions_for_judge: true } }],
      { judge: { responses_api_models: { openai_model: { host: "127.0.0.1", port: judge.port } } } },
    );
    reply = "   ";
    const r = await postJson(`${s.url.sq}/verify`, row);
    expect(r.json._ng_failure_class).toBe("judge_failed");
    expect(r.json._ng_failure_judge_error).toContain("empty judge response");
  });
});
