/**
 * swerl_llm_judge's `<solution>` reading and grading as tables: upstream's tests/test_app.py cases
 * (options A–D, expected C) plus edge cases whose outcomes follow upstream's app.py functions.
 */
import { describe, expect, test } from "bun:test";
import { allowedLetters, expectedLetters, extractLenient, extractStrict, gradeSwerlChoice, type SwerlGradingMode } from "../../src/verify/rules/swerl-choice.ts";

const OPTIONS = [{ A: "optA" }, { B: "optB" }, { C: "optC" }, { D: "optD" }];
const resp = (...texts: string[]) => ({ output: texts.map((text) => ({ type: "message", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] })) });

// upstream tests/test_app.py::test_verify_correct, in order: [text, grading mode, reward]
const UPSTREAM: [string, SwerlGradingMode, number][] = [
  ["The answer is C.", "strict", 0],
  ["<solution>C</solution>", "strict", 1],
  ["<solution>[C]</solution>", "strict", 1],
  ["<solution>c</solution>", "strict", 1],
  ["<solution>Answer: C</solution>", "strict", 0],
  ["<solution>Answer: C</solution>", "lenient", 1],
];

// [text, lenient extraction over A–D]
const LENIENT: [string, string | null][] = [
  ["<solution>B</solution> then <solution> [d] </solution>", "D"], // the last block wins
  ["<SOLUTION>\n a \n</Solution>", "A"], // tags case-insensitive, content across lines
  ["<solution>Option E</solution>", null], // first standalone letter E is not an option: no fallback to later letters
  ["<solution>Cats</solution>", null], // letters inside words do not count
  ["<solution>   </solution>", null],
  ["<solution>é C</solution>", null], // é is a standalone letter (Unicode isalpha) and not an option
  ["<solution>1) b</solution>", "B"],
  ["no block at all: C", null],
  ["<solution>\u3000C\u3000</solution>", "C"], // Python's \s covers U+3000
];

// [text, strict extraction over A–D]
const STRICT: [string, string | null][] = [
  ["<solution> [b] </solution>", "B"],
  ["<solution>C</solution><solution>D</solution>", "C"], // strict takes the first block
  ["<SOLUTION>C</SOLUTION>", null], // strict tags are case-sensitive
  ["<solution>[[C]]</solution>", null],
  ["<solution>E</solution>", null],
  ["<solution>é</solution>", null], // only ASCII letters
];

describe("swerl_llm_judge", () => {
  test.each(UPSTREAM)("upstream: %p (%s) → %p", (text, mode, reward) => {
    expect(gradeSwerlChoice(resp(text), { options: OPTIONS, expected_answer: "C", grading_mode: mode }).reward).toBe(reward);
  });
  test.each(LENIENT)("lenient %p → %p", (text, want) => expect(extractLenient(text, allowedLetters(OPTIONS))).toBe(want));
  test.each(STRICT)("strict %p → %p", (text, want) => expect(extractStrict(text, allowedLetters(OPTIONS))).toBe(want));

  test("allowed letters: each entry's first single-letter key, upper-cased", () => {
    expect([...allowedLetters([{ a: "x" }, { BB: "y", C: "z" }, { "1": "w" }, {}, { é: "v" }])].sort()).toEqual(["A", "É"]);
    expect(allowedLetters(null).size).toBe(0);
  });
  test("expected letters: stripped, upper-cased, single letters only, first occurrence kept", () => {
    expect(expectedLetters([" b ", "B", "AB", "1", "c"])).toEqual(["B", "C"]);
    expect(expectedLetters(null)).toEqual([]);
    expect(expectedLetters("d")).toEqual(["D"]);
  });
  test("golds outside the options are dropped; expected_answer is a list unless exactly one gold", () => {
    expect(gradeSwerlChoice(resp("<solution>A</solution>"), { options: OPTIONS, expected_answer: ["A", "C"] })).toEqual({ reward: 1, expected_answer: ["A", "C"], extracted_answer: "A" });
    expect(gradeSwerlChoice(resp("<solution>A</solution>"), { options: OPTIONS, expected_answer: "E" })).toEqual({ reward: 0, expected_answer: [], extracted_answer: "A" });
  });
  test("no options: nothing can be extracted, so the reward is 0", () => {
    expect(gradeSwerlChoice(resp("<solution>A</solution>"), { expected_answer: "A" })).toEqual({ reward: 0, expected_answer: "A", extracted_answer: null });
  });
  test("every assistant message is read, joined by newlines; other items are ignored", () => {
    const r = { output: [{ type: "reasoning", summary: [{ type: "summary_text", text: "<solution>B</solution>" }] }, ...resp("<solution>", "C</solution>").output, { type: "message", role: "assistant", content: "<solution>D</solution>" }] };
    expect(gradeSwerlChoice(r, { options: OPTIONS, expected_answer: "D" }).extracted_answer).toBe("D");
    expect(gradeSwerlChoice({ output: resp("<solution>", "C</solution>").output }, { options: OPTIONS, expected_answer: "C", grading_mode: "strict" }).reward).toBe(1);
  });
});
