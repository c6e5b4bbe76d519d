/**
 * terminal_multi_harness's comparator and action reading as tables. fixtures/swe/terminal-multi-harness-cases.json
 * holds every compare_action / extract_action call that upstream's own tests (tests/common/test_verification_utils.py,
 * tests/common/test_response_utils.py, tests/test_app.py) make, plus gym's extra cases (schema dialect, coercion,
 * typed JSON, sorting, each harness rule), each with upstream's answer (recorded by fixtures/swe/tmh-recorder).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { extractHarnessAction, type HarnessAction } from "../../src/verify/rules/terminal-harness/actions.ts";
import { STEP } from "../../src/verify/rules/terminal-harness/categories.ts";
import { compareHarnessAction, type HarnessComparatorConfig } from "../../src/verify/rules/terminal-harness/compare.ts";

type Any = any;
export const TMH_CASES: { tool_sets: unknown[][]; compare: Any[]; extract: Any[]; verify: Any[] } = JSON.parse(
  readFileSync(join(import.meta.dir, "..", "fixtures", "swe", "terminal-multi-harness-cases.json"), "utf8"),
);
const C = TMH_CASES;
const tools = (i: number | null) => (i === null ? null : C.tool_sets[i]!);
const compare = (c: Any) => compareHarnessAction(c.expected as HarnessAction, c.actual as HarnessAction, c.config as HarnessComparatorConfig, { declaredTools: tools(c.declared_tools), threshold: c.threshold, harness: c.harness });
const label = (c: Any) => `${c.harness} ${c.expected.type === "function_call" ? `${c.expected.name}(${c.expected.arguments})` : c.expected.type} vs ${c.actual.type === "function_call" ? `${c.actual.name}(${c.actual.arguments})` : c.actual.type}`;

// Python's json.loads reads NaN/Infinity; JSON (and gym) does not, so such arguments are a decode error here.
const PY_ONLY_JSON = /\bNaN\b|\bInfinity\b/;

describe("terminal_multi_harness comparator (upstream's answers)", () => {
  const rows = C.compare.map((c, i) => [i, label(c), c] as const);
  test.each(rows.filter(([, , c]) => c.result && !PY_ONLY_JSON.test(c.actual.arguments ?? "")))("#%d %s", (_i, _l, c) => {
    expect(compare(c)).toEqual({ similarity_score: null, ...c.result });
  });
  // Upstream hands back its DecodedArgumentsResult here (no `matches`, so its verify answers 500); gym answers the same category, not matching.
  test.each(rows.filter(([, , c]) => c.decoded_arguments_result))("#%d %s: undecodable arguments", (_i, _l, c) => {
    expect(compare(c)).toEqual({ matches: false, category: c.decoded_arguments_result.category, similarity_score: null });
  });
  test.each(rows.filter(([, , c]) => c.raises))("#%d %s: upstream raises, gym scores 0", (_i, _l, c) => {
    expect(compare(c)).toEqual({ matches: false, category: STEP.ARGUMENTS_DECODE_ERROR, similarity_score: null });
  });
  test("arguments with Python-only JSON (NaN) are a decode error in gym", () => {
    const c = C.compare.find((x) => x.result && PY_ONLY_JSON.test(x.actual.arguments ?? ""));
    expect(c).toBeDefined();
    expect(compare(c).category).toBe(STEP.ARGUMENTS_DECODE_ERROR);
  });
  test("every upstream category string is known", () => {
    const known = new Set<string>(Object.values(STEP));
    for (const c of C.compare) if (c.result) expect(known.has(c.result.category)).toBe(true);
  });
});

describe("terminal_multi_harness action reading (upstream's answers)", () => {
  test.each(C.extract.map((c, i) => [i, c.action?.type ?? "none", c] as const))("#%d → %s", (_i, _t, c) => {
    expect(extractHarnessAction(c.response)).toEqual(c.action);
  });
  test("string content counts; non-output_text parts and non-assistant messages do not", () => {
    expect(extractHarnessAction({ output: [{ type: "message", role: "assistant", content: "plain" }] })).toEqual({ type: "message", content: "plain" });
    expect(extractHarnessAction({ output: [{ type: "message", role: "assistant", content: [{ type: "refusal", refusal: "no" }] }] })).toBeNull();
    expect(extractHarnessAction({ output: [{ type: "message", role: "user", content: "x" }] })).toBeNull();
    expect(extractHarnessAction({ output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "" }] }] })).toEqual({ type: "message", content: "" });
  });
});
