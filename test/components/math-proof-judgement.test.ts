/**
 * math_proof_judgement: upstream's tests (resources_servers/math_proof_judgement/tests/test_app.py) as
 * data — Judgement parsing, verdict selectors, confusion counters, precision/recall/F1 — with verify
 * over a real server.
 */
import { describe, expect, test } from "bun:test";
import { judgementComputeMetrics, judgementKeyMetrics } from "../../src/components/resources/math-proof-judgement.ts";
import { majorityVerdict, parseJudgement, passVerdict } from "../../src/verify/proof/judgement.ts";
import { postJson, startStack } from "../servers/_stack.ts";

const PARSE: [string, boolean][] = [
  ["Judgement: Yes", true], ["Judgement: No", false], ["judgement: yes", true], ["JUDGEMENT: NO", false],
  ["**Judgement**: Yes", true], ["**Judgement: Yes**", true], ["  Judgement  :  Yes", true],
  ["<summary>Great</summary><judgement>Judgement: Yes</judgement>", true], ["I think Judgement: No because the proof skips steps.", false],
  ["Judgement: yesh it's complicated", true], ["Judgement: no, the proof omits steps", false],
];
test.each(PARSE)("parseJudgement(%p) = %p", (text, want) => expect(parseJudgement(text)).toBe(want));
test.each(["", null, "No judgement here", "Judgement: maybe", "This proof has issues."].map((t) => [t]) as [unknown][])("parseJudgement(%p) = null", (t) => expect(parseJudgement(t)).toBeNull());

test("verdict selectors", () => {
  expect(passVerdict([false, true], true)).toBe(true);
  expect(passVerdict([null, false, true], null)).toBe(false);
  expect(passVerdict([null, null], true)).toBeNull();
  expect(majorityVerdict([true, true, false])).toBe(true);
  expect(majorityVerdict([false, false, true])).toBe(false);
  expect(majorityVerdict([true, false])).toBe(true);
  expect(majorityVerdict([false, true])).toBe(false);
  expect(majorityVerdict([null, null])).toBeNull();
});

const r = (pred: string | null, gold: string, reward: number, tp: number, fp: number, fn: number, tn: number) => ({ reward, extracted_judgement: pred, expected_judgement: gold, tp, fp, fn, tn });
const yesRight = r("Yes", "Judgement: Yes", 1, 1, 0, 0, 0);
const noRight = r("No", "Judgement: No", 1, 0, 0, 0, 1);
const falsePos = r("Yes", "Judgement: No", 0, 0, 1, 0, 0);

describe("compute_metrics", () => {
  test("empty", () => expect(judgementComputeMetrics([])).toEqual({}));
  test("every task empty: no classification block", () => {
    const m = judgementComputeMetrics([[]]);
    expect(["pass@1[avg-of-1]/accuracy", "total_positives"].filter((k) => k in m)).toEqual([]);
  });
  test("an empty task counts as no gold", () => expect(judgementComputeMetrics([[yesRight], []]).total_positives).toBe(1));
  test("all correct Yes", () => {
    const m = judgementComputeMetrics([[yesRight, yesRight], [yesRight, yesRight]]);
    expect([m["pass@1[avg-of-2]/accuracy"], m["pass@2/accuracy"], m["pass@1[avg-of-2]/precision"], m["pass@1[avg-of-2]/recall"], m["pass@1[avg-of-2]/f1"], m.total_positives]).toEqual([100, 100, 100, 100, 100, 2]);
  });
  test("mixed positives and negatives", () => {
    const m = judgementComputeMetrics([[yesRight], [noRight]]);
    expect([m["pass@1[avg-of-1]/accuracy"], m["pass@1[avg-of-1]/precision"], m["pass@1[avg-of-1]/recall"], m["pass@1[avg-of-1]/f1"], m.total_positives]).toEqual([100, 100, 100, 100, 1]);
  });
  test("a false positive lowers precision", () => {
    const m = judgementComputeMetrics([[yesRight], [falsePos]]);
    expect(m["pass@1[avg-of-1]/precision"]).toBeCloseTo(50);
    expect(m["pass@1[avg-of-1]/recall"]).toBeCloseTo(100);
    expect(m["pass@1[avg-of-1]/f1"]).toBeCloseTo(200 / 3, 5);
  });
  test("key metrics", () => {
    const am = {
      "mean/reward": 0.75, "pass@1[avg-of-2]/accuracy": 80.0, "pass@1[avg-of-2]/f1": 70.0, "pass@1[avg-of-2]/precision": 85.0, "pass@1[avg-of-2]/recall": 60.0,
      "pass@1[avg-of-2]/no_answer": 5.0, "pass@2/accuracy": 90.0, "pass@2/f1": 85.0, "majority@2/accuracy": 85.0, "majority@2/f1": 80.0, "pass@1[avg-of-1]/accuracy": 70.0,
    };
    const k = judgementKeyMetrics(am);
    expect(k).toEqual({
      "mean/reward": 0.75, "pass@1[avg-of-2]/accuracy": 80.0, "pass@1[avg-of-2]/f1": 70.0, "pass@1[avg-of-2]/precision": 85.0, "pass@1[avg-of-2]/recall": 60.0,
      "pass@1[avg-of-2]/no_answer": 5.0, "pass@2/accuracy": 90.0, "pass@2/f1": 85.0, "majority@2/accuracy": 85.0, "majority@2/f1": 80.0,
    });
  });
});

const msg = (text: string) => ({ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
// [model text, gold, reward, extracted, [tp, fp, fn, tn]]
const VERIFY: [string, string, number, string | null, number[]][] = [
  ["Judgement: Yes", "Judgement: Yes", 1, "Yes", [1, 0, 0, 0]],
  ["Judgement: No", "Judgement: No", 1, "No", [0, 0, 0, 1]],
  ["Judgement: Yes", "Judgement: No", 0, "Yes", [0, 1, 0, 0]],
  ["Judgement: No", "Judgement: Yes", 0, "No", [0, 0, 1, 0]],
  ["I cannot decide.", "Judgement: Yes", 0, null, [0, 0, 0, 0]],
];

test("verify over a real server; reasoning items are not read", async () => {
  await using s = await startStack([{ name: "pj", serverType: "resources_servers", impl: "math_proof_judgement", leaf: {} }]);
  const call = (output: unknown[], gold: string) => postJson(`${s.url.pj}/verify`, { responses_create_params: { input: [{ role: "user", content: "judge this" }] }, response: { id: "r", created_at: 0, model: "m", object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools: [] }, expected_judgement: gold, problem_id: "p1" });
  for (const [text, gold, reward, extracted, counts] of VERIFY) {
    const got = (await call([msg(text)], gold)).json;
    expect([text, got.reward, got.extracted_judgement, [got.tp, got.fp, got.fn, got.tn], got.problem_id]).toEqual([text, reward, extracted, counts, "p1"]);
  }
  const cot = (await call([{ id: "rs", type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "speculation Judgement: No" }] }, msg("Judgement: Yes")], "Judgement: Yes")).json;
  expect([cot.reward, cot.extracted_judgement]).toEqual([1, "Yes"]);
}, 60_000);
