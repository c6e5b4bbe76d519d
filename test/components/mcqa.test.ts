/** mcqa and gpqa_diamond as servers: request validation, per-row errors, metrics, reverify mode, a 1 MB answer. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack([
    { name: "mcqa", serverType: "resources_servers", impl: "mcqa", leaf: { grading_mode: null } },
    { name: "mcqa_md", serverType: "resources_servers", impl: "mcqa", leaf: { grading_mode: "lenient_answer_colon_md" } },
    { name: "gpqa", serverType: "resources_servers", impl: "gpqa_diamond" },
  ]);
});
afterAll(async () => stack.stop());

const OPTIONS = [{ A: "red" }, { B: "green" }, { C: "blue" }, { D: "white" }];
const body = (text: string, extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: "Q?" }] },
  response: { id: "r", created_at: 0, model: "m", object: "response", output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }], parallel_tool_calls: true, tool_choice: "auto", tools: [] },
  options: OPTIONS,
  expected_answer: "C",
  ...extra,
});

describe("mcqa server", () => {
  test("verify answers reward, expected and extracted answers; the row's other fields are not echoed", async () => {
    const r = await postJson(`${stack.url.mcqa}/verify`, body("so \\boxed{C}", { uuid: "u1", subject: "x" }));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ reward: 1, expected_answer: "C", extracted_answer: "C" });
    expect(r.json.uuid).toBeUndefined();
    expect(r.json.subject).toBeUndefined();
  });

  test("the server's grading_mode beats the row's", async () => {
    const r = await postJson(`${stack.url.mcqa_md}/verify`, body("**Answer: C**", { grading_mode: "strict_single_letter_boxed" }));
    expect(r.json.extracted_answer).toBe("C");
  });

  test.each([
    ["no options", body("\\boxed{C}", { options: null }), 0, null],
    ["letter outside the options", body("\\boxed{E}"), 0, null],
    ["empty answer", body(""), 0, null],
  ])("%s → a clear per-row outcome", async (_n, b, reward, extracted) => {
    const r = await postJson(`${stack.url.mcqa}/verify`, b);
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(reward);
    expect(r.json.extracted_answer).toBe(extracted);
  });

  test("an untranslatable regex is a 422 naming the field; the server keeps answering", async () => {
    const r = await postJson(`${stack.url.mcqa}/verify`, body("x", { template_metadata: { output_regex: "(?>C)" } }));
    expect(r.status).toBe(422);
    expect(r.text).toContain("template_metadata.output_regex");
    expect(r.text).toContain("atomic group");
    expect((await postJson(`${stack.url.mcqa}/verify`, body("\\boxed{C}"))).json.reward).toBe(1);
  });

  test("invalid row fields are a 422 as upstream's model: md at row level, non-string option text, numeric expected answer", async () => {
    expect((await postJson(`${stack.url.mcqa}/verify`, body("x", { grading_mode: "lenient_answer_colon_md" }))).status).toBe(422);
    expect((await postJson(`${stack.url.mcqa}/verify`, body("x", { options: [{ A: 1 }] }))).status).toBe(422);
    expect((await postJson(`${stack.url.mcqa}/verify`, body("x", { expected_answer: 3 }))).status).toBe(422);
  });

  test("a 1 MB answer is graded", async () => {
    const r = await postJson(`${stack.url.mcqa_md}/verify`, body("x ".repeat(500_000) + "\nAnswer: C"));
    expect(r.json.extracted_answer).toBe("C");
  });

  test("reverify mode: mcqa stateless, gpqa_diamond unknown", async () => {
    expect(await (await fetch(`${stack.url.mcqa}/reverify_mode`)).json()).toBe("stateless");
    expect(await (await fetch(`${stack.url.gpqa}/reverify_mode`)).json()).toBe("unknown");
  });

  test("aggregate metrics: pass@k, majority@k and the key metrics upstream selects", async () => {
    const verify_responses = [
      { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1.0, extracted_answer: "A" },
      { _ng_task_index: 0, _ng_rollout_index: 1, reward: 1.0, extracted_answer: "A" },
      { _ng_task_index: 1, _ng_rollout_index: 0, reward: 0.0, extracted_answer: "B" },
      { _ng_task_index: 1, _ng_rollout_index: 1, reward: 1.0, extracted_answer: "C" },
    ];
    const r = await postJson(`${stack.url.mcqa}/aggregate_metrics`, { verify_responses });
    const am = r.json.agent_metrics;
    expect(am["pass@2/accuracy"]).toBe(100);
    expect(am["pass@1[avg-of-2]/accuracy"]).toBe(75);
    expect(am["majority@2/accuracy"]).toBe(75);
    expect(Object.keys(r.json.key_metrics).sort()).toEqual(["majority@2/accuracy", "mean/reward", "pass@1/accuracy", "pass@1[avg-of-2]/accuracy", "pass@1[avg-of-2]/no_answer", "pass@2/no_answer"].sort());
  });
});

describe("gpqa_diamond server", () => {
  test("boxed or Answer: letters, restricted to the options; a per-row regex is trusted", async () => {
    expect((await postJson(`${stack.url.gpqa}/verify`, body("Answer: C"))).json.reward).toBe(1);
    expect((await postJson(`${stack.url.gpqa}/verify`, body("\\boxed{E}"))).json.extracted_answer).toBeNull();
    expect((await postJson(`${stack.url.gpqa}/verify`, body("pick: Z", { template_metadata: { output_regex: "pick: ([A-Z])" } }))).json.extracted_answer).toBe("Z");
  });
});
