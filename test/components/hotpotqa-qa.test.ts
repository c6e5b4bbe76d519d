/** hotpotqa_qa metrics: upstream's TestComputeMetricsFilteredAndUnfiltered cases as data, and /verify over a real server (row echoed, bad body 422). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hotpotqaKeyMetrics, hotpotqaMetrics } from "../../src/components/resources/hotpotqa-qa.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

const rec = (o: Record<string, unknown>, t = 0) => ({ answer_em: 0, answer_f1: 0, is_correct: 0, is_correct_strict: 0, gt_should_remove: false, reward: 0, _ng_task_index: t, _ng_rollout_index: 0, ...o });

describe("hotpotqa_qa", () => {
  test("filtered metrics leave out unreliable golds; off when disabled; empty", () => {
    const tasks = [[rec({ expected_answer: "Paris", extracted_answer: "Paris", answer_em: 1, answer_f1: 1, is_correct: 1, is_correct_strict: 1 })], [rec({ expected_answer: "John Doe Smith", extracted_answer: "someone else", gt_should_remove: true }, 1)]];
    const m = hotpotqaMetrics(tasks, true);
    expect([m.unfiltered_num_tasks, m.filtered_num_tasks, m["pass@1[avg-of-1]/is_correct_strict"], m["filtered_pass@1[avg-of-1]/is_correct_strict"]]).toEqual([2, 1, 50, 100]);
    expect(Object.keys(hotpotqaMetrics(tasks.slice(0, 1), false)).some((k) => k.startsWith("filtered_"))).toBe(false);
    const none = hotpotqaMetrics([[rec({ expected_answer: "John Doe Smith", extracted_answer: "x", gt_should_remove: true })]], true);
    expect([none.filtered_num_tasks, none.unfiltered_num_tasks]).toEqual([0, 1]);
    expect(hotpotqaMetrics([], true)).toEqual({ filtered_num_tasks: 0, unfiltered_num_tasks: 0 });
  });

  test("key metrics pick the highest k, plain and filtered", () => {
    const key = hotpotqaKeyMetrics({ "mean/input_tokens": 100, "mean/output_tokens": 50, "pass@1/is_correct_strict": 70, "pass@2/is_correct_strict": 80, "pass@1[avg-of-2]/is_correct_strict": 75, "majority@2/is_correct_strict": 78, "filtered_pass@2/is_correct_strict": 82 });
    for (const k of ["mean/input_tokens", "mean/output_tokens", "pass@2/is_correct_strict", "pass@1[avg-of-2]/is_correct_strict", "majority@2/is_correct_strict", "filtered_pass@2/is_correct_strict"]) expect(key).toHaveProperty([k]);
    expect(key).not.toHaveProperty(["pass@1/is_correct_strict"]);
  });

  describe("server", () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack([{ name: "hotpotqa_qa", serverType: "resources_servers", impl: "hotpotqa_qa", leaf: { report_filtered_metrics: true } }]);
    });
    afterAll(async () => {
      await stack.stop();
    });
    const body = (text: string, extra: Record<string, unknown> = {}) => ({ responses_create_params: { input: [{ role: "user", content: "q" }] }, response: { id: "r", created_at: 0, model: "m", object: "response", output: [{ id: "m1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }], parallel_tool_calls: false, tool_choice: "auto", tools: [] }, ...extra });

    test("verify scores and echoes the row", async () => {
      const r = await postJson(`${stack.url.hotpotqa_qa}/verify`, body('Thinking... {"answer": "The city of Paris"}', { expected_answer: "Paris", id: 7 }));
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ id: 7, expected_answer: "Paris", reward: 1, extracted_answer: "The city of Paris", answer_em: 0, is_correct: 1, is_correct_strict: 1, gt_should_remove: false });
    });
    test("bad input: no expected_answer → 422; a non-text output scores 0 with no answer", async () => {
      expect((await postJson(`${stack.url.hotpotqa_qa}/verify`, body("x"))).status).toBe(422);
      const b = body("", { expected_answer: "Paris" });
      b.response.output = [{ type: "function_call", name: "f", arguments: "{}", call_id: "c" } as never];
      const r = await postJson(`${stack.url.hotpotqa_qa}/verify`, b);
      expect([r.status, r.json.reward, r.json.extracted_answer]).toEqual([200, 0, null]);
    });
  });
});
