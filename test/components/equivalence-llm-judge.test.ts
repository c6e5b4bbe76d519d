/**
 * equivalence_llm_judge against a local judge endpoint speaking the Responses API. The first table
 * is upstream's tests (resources_servers/equivalence_llm_judge/tests/test_app.py) as data; then our
 * own cases: judge faults (typed failure vs wrong answer) and bad input.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { postJson, startStack } from "../servers/_stack.ts";

type Answer = string | { status: number } | "badjson" | "hang" | "prose";
const queue: Answer[] = [];
const seen: { input: { role: string; content: string }[] }[] = [];
const judge = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req) {
    seen.push((await req.json()) as never);
    const a = queue.shift() ?? "[[A!=B]]";
    if (typeof a === "object") return new Response("judge exploded", { status: a.status });
    if (a === "badjson") return new Response("<html>gateway</html>", { status: 200 });
    if (a === "hang") await new Promise((r) => setTimeout(r, 4000));
    const text = a === "prose" ? "I think they are probably the same thing." : a;
    return Response.json({
      id: "r", created_at: 1, model: "judge", object: "response", parallel_tool_calls: false, tool_choice: "none", tools: [],
      output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }],
    });
  },
});
afterAll(() => judge.stop(true));

async function server(leaf: Record<string, unknown> = {}) {
  return startStack(
    [{ name: "eq", serverType: "resources_servers", impl: "equivalence_llm_judge", leaf: { judge_model_server: { type: "responses_api_models", name: "judge" }, judge_responses_create_params: { input: [] }, ...leaf } }],
    { request_timeout_seconds: 1, request_retry_budget_seconds: 0, judge: { responses_api_models: { openai_model: { host: "127.0.0.1", port: judge.port } } } },
  );
}

const msg = (text: string) => ({ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const body = (user: string, answer: string | null, extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: user }] },
  response: { id: "resp", created_at: 0, model: "m", object: "response", output: answer === null ? [] : [msg(answer)], parallel_tool_calls: false, tool_choice: "none", tools: [] },
  ...extra,
});

// [name, server settings, row, judge answers in order, reward, judge calls]
const UPSTREAM: [string, Record<string, unknown>, ReturnType<typeof body>, Answer[], number, number][] = [
  ["equal, no swap check", {}, body("Q: 1+1?", "It is 2.", { expected_answer: "2" }), ["some text [[A=B]] trailing"], 1, 1],
  ["equal then swap equal", { check_twice_swap: true }, body("Q: 1+1?", "It is 2.", { expected_answer: "2" }), ["[[A=B]]", "[[A=B]]"], 1, 2],
  ["not equal", {}, body("Q: 1+1?", "It is 3.", { expected_answer: "2" }), ["[[A!=B]]"], 0, 1],
  ["no label → not equal", {}, body("", "text", { expected_answer: "x" }), ["no label present"], 0, 1],
  ["swap fails → configured reward", { check_twice_swap: true, reward_if_swap_fails: -1.0 }, body("Q?", "A", { expected_answer: "B" }), ["[[A=B]]", "[[A!=B]]"], -1, 2],
  ["per-record regex", { use_per_record_regex: true }, body("What is 2+2?", "Let me explain: The answer is \\boxed{4} because 2+2=4.", { expected_answer: "4", template_metadata: { output_regex: "\\\\boxed\\{(.*?)\\}" } }), ["[[A=B]]"], 1, 1],
  ["full-generation rescue", { use_per_record_regex: true, check_full_generation_on_fail: true, reward_if_full_generation_succeeds: 0.5 }, body("What is 2+2?", "The final answer is clearly 4", { expected_answer: "4", template_metadata: { output_regex: "ANSWER:\\s*(.+)" } }), ["[[A!=B]]", "[[A=B]]"], 0.5, 2],
  ["length threshold skips regex and second pass", { use_per_record_regex: true, extraction_length_threshold: 50, check_twice_swap: true }, body("Explain photosynthesis.", "Photosynthesis is the process by which plants convert light energy into chemical energy stored in glucose.", { expected_answer: "Photosynthesis is the process by which plants convert light energy into chemical energy stored in glucose.", template_metadata: { output_regex: "\\\\boxed\\{(.*?)\\}" } }), ["[[A=B]]"], 1, 1],
];

describe("equivalence_llm_judge: upstream's test cases", () => {
  test.each(UPSTREAM)("%s", async (_n, leaf, row, answers, reward, calls) => {
    await using s = await server(leaf);
    queue.length = 0;
    queue.push(...answers);
    const before = seen.length;
    const r = await postJson(`${s.url.eq}/verify`, row);
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(reward);
    expect(r.json.judge_evaluations).toHaveLength(calls);
    expect(seen.length - before).toBe(calls);
    expect(r.json.expected_answer).toBe((row as unknown as { expected_answer: string }).expected_answer);
  });

  test("the regex-extracted candidate and the question reach the judge; swap swaps them", async () => {
    await using s = await server({ check_twice_swap: true });
    queue.length = 0;
    queue.push("[[A=B]]", "[[A=B]]");
    const before = seen.length;
    const r = await postJson(`${s.url.eq}/verify`, body("What is 2+2?", "so \\boxed{4}", { expected_answer: "four", template_metadata: { output_regex: "\\\\boxed\\{(.*?)\\}" } }));
    const [first, second] = seen.slice(before).map((x) => x.input.at(-1)!.content);
    expect(first).toContain("QUESTION:\nWhat is 2+2?\n\nGOLD:\nfour\n\nCANDIDATE:\n4");
    expect(second).toContain("GOLD:\n4\n\nCANDIDATE:\nfour");
    expect(r.json.judge_evaluations[0].verdict_label).toBe("[[A=B]]");
    expect(r.json.judge_evaluations[0].responses_create_params.input).toEqual([{ role: "user", content: first }]);
  });

  test("missing assistant text: the configured failure message is judged", async () => {
    await using s = await server({ msg_extraction_failure: "[CUSTOM EXTRACTION FAILURE]" });
    queue.length = 0;
    queue.push("[[A!=B]]");
    const r = await postJson(`${s.url.eq}/verify`, body("", null, { expected_answer: "x" }));
    expect(r.json.reward).toBe(0);
    expect(r.json.judge_evaluations[0].responses_create_params.input.at(-1).content).toContain("[CUSTOM EXTRACTION FAILURE]");
  });

  test("multimodal user content: text blocks joined, the image left out", async () => {
    await using s = await server();
    queue.length = 0;
    queue.push("[[A=B]]");
    const row = body("", "Qh7", { expected_answer: "Qh7" });
    row.responses_create_params.input = [{ role: "system", content: "Answer." }, { role: "user", content: [{ type: "input_text", text: "Which piece delivers mate?" }, { type: "input_image", image_url: "data:image/jpeg;base64,/9j/4AAQ" }] } as never];
    const before = seen.length;
    await postJson(`${s.url.eq}/verify`, row);
    const prompt = seen[before]!.input.at(-1)!.content;
    expect(prompt).toContain("QUESTION:\nWhich piece delivers mate?\n");
    expect(prompt).not.toContain("base64");
  });
});

describe("judge faults and bad input", () => {
  test.each([
    ["500", { status: 500 } as Answer],
    ["timeout", "hang" as Answer],
    ["invalid JSON", "badjson" as Answer],
  ])("judge %s → judge_failed row (reward 0, typed), server keeps answering", async (_n, fault) => {
    await using s = await server();
    queue.length = 0;
    queue.push(fault, "[[A=B]]");
    const row = body("Q?", "2", { expected_answer: "2", uuid: 7 });
    const r = await postJson(`${s.url.eq}/verify`, row);
    expect(r.status).toBe(200);
    expect(r.json._ng_failure_class).toBe("judge_failed");
    expect(r.json.reward).toBe(0);
    expect(typeof r.json._ng_failure_judge_error).toBe("string");
    expect(r.json.uuid).toBe(7);
    const again = await postJson(`${s.url.eq}/verify`, row);
    expect(again.json.reward).toBe(1);
    expect(again.json._ng_failure_class).toBeUndefined();
  });

  test("prose without a label is an ordinary wrong answer, not a failure", async () => {
    await using s = await server();
    queue.length = 0;
    queue.push("prose");
    const r = await postJson(`${s.url.eq}/verify`, body("Q?", "2", { expected_answer: "2" }));
    expect(r.json._ng_failure_class).toBeUndefined();
    expect(r.json.reward).toBe(0);
    expect(r.json.judge_evaluations[0].verdict_label).toBeNull();
  });

  test("an untranslatable per-row regex is a 422 naming the field; a non-string expected_answer is a 422", async () => {
    await using s = await server();
    const r = await postJson(`${s.url.eq}/verify`, body("Q?", "2", { expected_answer: "2", template_metadata: { output_regex: "(?>x)" } }));
    expect(r.status).toBe(422);
    expect(r.text).toContain("template_metadata.output_regex");
    expect((await postJson(`${s.url.eq}/verify`, body("Q?", "2", { expected_answer: 2 }))).status).toBe(422);
  });

  test("a template placeholder the server does not supply fails at start", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "eq-tpl-"));
    writeFileSync(join(dir, "t.txt"), "Q {question} A {answer}");
    await expect(server({ judge_prompt_template_fpath: join(dir, "t.txt") })).rejects.toThrow("{answer}");
  });
});
