/**
 * imo_gradingbench: upstream's tests (resources_servers/imo_gradingbench/tests/test_app.py) as data —
 * last-word grade extraction, gold normalisation, assistant-text reading, verify verdicts, MAE and
 * key metrics — with verify and aggregate_metrics over a real server.
 */
import { describe, expect, test } from "bun:test";
import { gradingComputeMetrics, gradingKeyMetrics } from "../../src/components/resources/imo-gradingbench.ts";
import { assistantMessagesText } from "../../src/components/resources/_proof-support.ts";
import { extractGrade, GRADE_TO_SCORE, normalizeExpectedGrade } from "../../src/verify/proof/grading.ts";
import { postJson, startStack } from "../servers/_stack.ts";

test("grade points", () => expect(GRADE_TO_SCORE).toEqual({ correct: 7, almost: 6, partial: 1, incorrect: 0 }));

const VALID: [string, string][] = [
  ["Final answer: correct", "correct"], ["So my grade is incorrect", "incorrect"], ["almost", "almost"], ["partial", "partial"],
  ["**correct**", "correct"], ["*partial.*", "partial"], ["`incorrect.`", "incorrect"], ["...almost...", "almost"],
  ["CORRECT", "correct"], ["Correct", "correct"], ["\n  almost  \n", "almost"],
  ["[correct]", "correct"], ["(incorrect)", "incorrect"], ["{partial}", "partial"], ["almost,", "almost"], ["correct;", "correct"],
  ["incorrect:", "incorrect"], ["partial!", "partial"], ["correct?", "correct"],
];
test.each(VALID)("extractGrade(%p) = %p", (text, want) => expect(extractGrade(text)).toBe(want));
test.each(["", null, "   ", "almost done", "Final: brilliant", "\n\n\t", "...", "score: 7", 123, []].map((t) => [t]) as [unknown][])("extractGrade(%p) = null", (text) => expect(extractGrade(text)).toBeNull());

test.each([["correct", "correct"], ["CORRECT", "correct"], ["  almost  ", "almost"], ["Partial", "partial"]])("normalizeExpectedGrade(%p) = %p", (raw, want) => expect(normalizeExpectedGrade(raw)).toBe(want));
test.each(["", null, "perfect", "7", "yes", "  "] as unknown[])("normalizeExpectedGrade(%p) = null", (raw) => expect(normalizeExpectedGrade(raw)).toBeNull());

const msg = (text: string) => ({ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
test.each([
  ["string content", { output: [{ type: "message", role: "assistant", content: "my answer is correct" }] }, "my answer is correct"],
  ["list of parts", { output: [msg("the grade is almost")] }, "the grade is almost"],
  ["reasoning items skipped", { output: [{ id: "rs", type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "lots of CoT mentioning incorrect" }] }, msg("Final grade: correct")] }, "Final grade: correct"],
  ["empty", { output: [] }, ""],
] as [string, unknown, string][])("assistant text: %s", (_n, response, want) => expect(assistantMessagesText(response)).toBe(want));

const rollout = (pred: string | null, gold: string, exact: boolean, binary: boolean, sd: number | null) => ({ reward: exact ? 1.0 : 0.0, extracted_grade: pred, expected_answer: gold, binary_match: binary, score_diff: sd });
const good = rollout("correct", "correct", true, true, 0.0);
const almost = rollout("almost", "correct", false, true, 1.0);
const bad = rollout(null, "correct", false, false, null);

describe("compute_metrics", () => {
  test("empty", () => expect(gradingComputeMetrics([])).toEqual({}));
  test("all correct, one rollout", () => {
    const m = gradingComputeMetrics([[good], [good]]);
    expect([m["pass@1[avg-of-1]/exact_accuracy"], m["pass@1[avg-of-1]/binarized_accuracy"], m["pass@1[avg-of-1]/mae"], m["pass@1[avg-of-1]/mae_count"], m.mae, m.mae_count]).toEqual([100, 100, 0, 2, 0, 2]);
  });
  test("mixed rollouts", () => {
    const m = gradingComputeMetrics([[good, almost], [almost, good]]);
    expect(m["pass@1[avg-of-2]/exact_accuracy"]).toBeCloseTo(50);
    expect([m["pass@2/exact_accuracy"], m["pass@1[avg-of-2]/binarized_accuracy"], m["pass@1[avg-of-2]/mae"], m["pass@1[avg-of-2]/mae_count"], m["pass@2/mae"], m["pass@2/mae_count"]]).toEqual([100, 100, 0.5, 4, 0, 2]);
  });
  test("unparseable rollouts add no MAE", () => {
    const m = gradingComputeMetrics([[good, bad]]);
    expect([m["pass@1[avg-of-2]/mae"], m["pass@1[avg-of-2]/mae_count"], m.mae_count]).toEqual([0, 1, 1]);
    expect(m["pass@1[avg-of-2]/exact_accuracy"]).toBeCloseTo(50);
  });
  test("no valid pairs: no mae keys", () => {
    const m = gradingComputeMetrics([[bad, bad]]);
    expect(["mae", "mae_count", "pass@1[avg-of-2]/mae"].filter((k) => k in m)).toEqual([]);
  });
  test("binarized above exact", () => {
    const m = gradingComputeMetrics([[almost], [almost], [almost]]);
    expect([m["pass@1[avg-of-1]/exact_accuracy"], m["pass@1[avg-of-1]/binarized_accuracy"], m["pass@1[avg-of-1]/mae"]]).toEqual([0, 100, 1]);
  });
  test("key metrics surface the highest k and MAE", () => {
    const am = {
      "mean/reward": 0.5, "pass@1[avg-of-2]/exact_accuracy": 50.0, "pass@1[avg-of-2]/binarized_accuracy": 80.0, "pass@1[avg-of-2]/mae": 1.5,
      "pass@1[avg-of-2]/no_answer": 5.0, "pass@2/exact_accuracy": 75.0, "pass@2/binarized_accuracy": 90.0, "pass@2/mae": 0.5,
      "majority@2/exact_accuracy": 60.0, "majority@2/binarized_accuracy": 85.0, mae: 1.5, mae_count: 4.0,
    };
    const k = gradingKeyMetrics(am);
    expect([k["mean/reward"], k["pass@1[avg-of-2]/exact_accuracy"], k["pass@1[avg-of-2]/binarized_accuracy"], k["pass@1[avg-of-2]/mae"], k["pass@2/exact_accuracy"], k["pass@2/mae"], k["majority@2/binarized_accuracy"], k.mae, k.mae_count]).toEqual([0.5, 50, 80, 1.5, 75, 0.5, 85, 1.5, 4]);
  });
});

// [model text, gold, reward, extracted_grade, binary_match, score_diff]
const VERIFY: [string, string | null, number, string | null, boolean, number | null][] = [
  ["My final grade: correct", "correct", 1, "correct", true, 0],
  ["So my answer is almost", "correct", 0, "almost", true, 1],
  ["answer: partial", "incorrect", 0, "partial", true, 1],
  ["done. correct", "partial", 0, "correct", false, 6],
  ["I cannot decide.", "correct", 0, null, false, null],
  ["correct", "perfect", 0, "correct", false, null],
  ["correct", null, 0, "correct", false, null],
];

test("verify over a real server: upstream's verdicts, row fields echoed", async () => {
  await using s = await startStack([{ name: "gb", serverType: "resources_servers", impl: "imo_gradingbench", leaf: {} }]);
  for (const [text, gold, reward, grade, binary, diff] of VERIFY) {
    const body = { responses_create_params: { input: [{ role: "user", content: "grade this" }] }, response: { id: "r", created_at: 0, model: "m", object: "response", output: [msg(text)], parallel_tool_calls: true, tool_choice: "auto", tools: [] }, expected_answer: gold, grading_id: "g1" };
    const r = (await postJson(`${s.url.gb}/verify`, body)).json;
    expect([text, r.reward, r.extracted_grade, r.binary_match, r.score_diff, r.expected_answer, r.grading_id]).toEqual([text, reward, grade, binary, diff, gold, "g1"]);
  }
  expect((await postJson(`${s.url.gb}/verify`, { responses_create_params: {}, response: {}, expected_answer: 7 })).status).toBe(422);
}, 60_000);
