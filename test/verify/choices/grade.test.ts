/** Our own grading cases: the spec's examples, native scripts, ambiguity, and bad input. */
import { describe, expect, test } from "bun:test";
import { ChoiceRowError, gradeChoice, type ChoiceRow } from "../../../src/verify/choices/grade.ts";
import { gpqaLetter } from "../../../src/verify/choices/gpqa.ts";
import type { Options } from "../../../src/verify/choices/letters.ts";

const ABCD: Options = [{ A: "red" }, { B: "green" }, { C: "blue" }, { D: "light blue" }];
const row = (extra: Partial<ChoiceRow> = {}): ChoiceRow => ({ options: ABCD, expected_answer: "C", ...extra });

// [name, text, row overrides, server mode, extracted]
const CASES: [string, string, Partial<ChoiceRow>, ChoiceRow["grading_mode"] | null, string | null][] = [
  ["boxed X) label", "so \\boxed{C) blue}", {}, null, "C"],
  ["boxed X. label", "\\boxed{C. blue}", {}, null, "C"],
  ["boxed X- label", "\\boxed{C - blue}", {}, null, "C"],
  ["boxed nested braces", "\\boxed{\\text{\\textbf{x}} C}", {}, null, null],
  ["boxed letter outside options", "\\boxed{E}", {}, null, null],
  ["lenient_boxed: two options' texts match → none", "\\boxed{light blue}", {}, "lenient_boxed", null],
  ["lenient_boxed: one option's text", "\\boxed{ The  RED one }", { expected_answer: "A" }, "lenient_boxed", "A"],
  ["answer colon: first match wins", "Answer: C\nAnswer: A", {}, "lenient_answer_colon", "C"],
  ["answer colon: \\text wrapper", "Answer: \\text{blue}", {}, "lenient_answer_colon", "C"],
  ["md: Bengali letter", "Answer: ড", {}, "lenient_answer_colon_md", "C"],
  ["md: full-width letter", "**Answer:** Ｃ", {}, "lenient_answer_colon_md", "C"],
  ["md: last standalone capital", "Answer: probably the third, C", {}, "lenient_answer_colon_md", "C"],
  ["md: A|C ambiguous", "Answer: A | C", {}, "lenient_answer_colon_md", null],
  ["md: A;C ambiguous", "Answer: A;C", {}, "lenient_answer_colon_md", null],
  ["tm: full-width capture", "答案：Ｃ", { template_metadata: { output_regex: "答案：\\s*(\\S)" } }, null, "C"],
  ["tm: option text capture", "Final: blue", { template_metadata: { output_regex: "Final:\\s*(.+)" } }, null, "C"],
  ["tm: no group → whole match", "pick C", { template_metadata: { output_regex: "(?<=pick )[A-D]" } }, null, "C"],
  ["tm: Python named group + \\Z", "…so: C", { template_metadata: { output_regex: "(?P<a>[A-D])\\Z" } }, null, "C"],
  ["empty answer", "   \n", {}, null, null],
  ["no options, no regex", "\\boxed{C}", { options: [] }, null, null],
  ["null option text is not an option", "\\boxed{C}", { options: [{ A: "x" }, { C: null }] }, null, null],
];

describe("gradeChoice: our cases", () => {
  test.each(CASES)("%s", (_n, text, extra, mode, want) => {
    const r = row(extra);
    const v = gradeChoice(text, r, mode ?? null);
    expect(v.extracted_answer).toBe(want);
    expect(v.reward).toBe(want !== null && want === r.expected_answer ? 1 : 0);
  });

  test("expected answer is stripped and upper-cased; missing expected scores 0", () => {
    expect(gradeChoice("\\boxed{c}", row({ expected_answer: " c " })).reward).toBe(0); // strict wants a capital in the box
    expect(gradeChoice("\\boxed{C}", row({ expected_answer: " c " }))).toEqual({ reward: 1, expected_answer: "C", extracted_answer: "C" });
    expect(gradeChoice("\\boxed{C}", row({ expected_answer: null }))).toEqual({ reward: 0, expected_answer: "", extracted_answer: "C" });
  });

  test.each([
    ["(?>atomic)", "cannot be translated"],
    ["(a)(b)", "2 capturing groups"],
  ])("untranslatable or multi-group regex %p is a per-row error", (re, msg) => {
    expect(() => gradeChoice("x", row({ template_metadata: { output_regex: re } }))).toThrow(ChoiceRowError);
    expect(() => gradeChoice("x", row({ template_metadata: { output_regex: re } }))).toThrow(msg);
  });

  test("a non-string output_regex is a per-row error", () => {
    expect(() => gradeChoice("x", row({ template_metadata: { output_regex: 5 } }))).toThrow("must be a string or a list of strings");
  });

  test("a 1 MB answer grades in every mode without blowing up", () => {
    const big = "A B ".repeat(250_000) + "\nAnswer: C\n\\boxed{C}";
    for (const mode of ["strict_single_letter_boxed", "lenient_boxed", "lenient_answer_colon", "lenient_answer_colon_md"] as const) {
      expect(gradeChoice(big, row(), mode).extracted_answer).toBe("C");
    }
    const oneLine = "Answer: " + "so ".repeat(350_000) + "C";
    expect(gradeChoice(oneLine, row(), "lenient_answer_colon_md").extracted_answer).toBe("C");
  });
});

describe("gpqa_diamond extraction", () => {
  test.each([
    ["\\boxed{B}", "B"],
    ["\\boxed{ (C) }", "C"],
    ["\\boxed{b}", undefined],
    ["**Answer**: d because", "D"],
    ["Answer: Dog", undefined],
    ["no answer", undefined],
  ])("%p", (text, want) => {
    expect(gpqaLetter(text)).toBe(want as string | undefined);
  });
});
