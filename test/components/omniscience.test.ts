/** omniscience: upstream's tests (resources_servers/omniscience/tests/test_app.py) as data. */
import { describe, expect, test } from "bun:test";
import { omniscienceMetrics, parseAbcdGrade, stripThinkingTraces } from "../../src/verify/judge/omniscience.ts";

describe("omniscience", () => {
  test.each([
    ["<think>some reasoning</think>The answer is 42", "The answer is 42"],
    ["<thinking>deep thought</thinking>Result: yes", "Result: yes"],
    ["reasoning here</think>The actual answer", "The actual answer"],
    ["reasoning here</thinking>The actual answer", "The actual answer"],
    ["plain text", "plain text"],
    ["<think>\nline1\nline2\n</think>\nAnswer", "Answer"],
  ])("stripThinkingTraces(%p)", (text, want) => {
    expect(stripThinkingTraces(text)).toBe(want);
  });

  test.each([
    ["A", "A"], ["B", "B"], ["C", "C"], ["D", "D"], ["Some reasoning\nA", "A"], ["The grade is A based on analysis", "A"],
    ["no clear grade here", "B"], ["  D  ", "D"], ["reasoning\nmore reasoning\nD", "D"],
  ])("parseAbcdGrade(%p) → %p", (text, want) => {
    expect(parseAbcdGrade(text)).toBe(want as "A");
  });

  test("omni index and hallucination rate", () => {
    const tasks = ["correct", "incorrect", "partial", "not_attempted"].map((verdict, i) => [{ verdict, extracted_answer: `a${i}` }]);
    const m = omniscienceMetrics(tasks);
    expect(m["pass@1/judge_omni_index"]).toBeCloseTo(0, 10); // 25 % correct − 25 % incorrect
    expect(m["pass@1/judge_omni_hallucination"]).toBeCloseTo(100 / 3, 10); // incorrect among the non-correct
  });
});
