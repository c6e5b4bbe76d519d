/**
 * string_match's extraction and grading cascade as tables: upstream's tests/test_app.py cases plus
 * cases whose outcomes were computed once with upstream's own Python functions (CPython 3).
 */
import { describe, expect, test } from "bun:test";
import { extractAnswer, gradeStringMatch, gradeStringMatchRow, type ExtractionMode } from "../../src/verify/rules/string-match.ts";

// [ground truth, prediction, upstream's _grade_string_match]
const GRADE: [string, string, number][] = [["oven", "oven", 1.0], ["oven", "Oven", 1.0], ["oven", "  oven  ", 1.0], ["oven", "stove", 0.0], ["42", "42.0", 1.0], ["1,000", "1000", 1.0], ["1000", "1,000.0", 0.98], ["$5", "5", 1.0], ["50%", "50\\%", 1.0], ["\\text{Paris}", "Paris", 1.0], ["\\boxed{7}", "7", 1.0], ["red, green and blue", "red green blue", 0.0], ["New York", "NY", 1.0], ["north carolina, texas", "NC TX", 1.0], ["3.14159", "3.14", 0.98], ["100", "99.5", 0.98], ["100", "98", 0.0], ["90\u00b0", "90", 0.98], ["5 cm", "5", 0.98], ["x\u00b2", "x^2", 0.0], ["'quoted'", "quoted", 1.0], ["Done!", "done", 1.0], ["nan", "NaN", 1.0], ["-0", "0", 0.98], ["\uff46\uff55\uff4c\uff4c", "full", 1.0], ["1e3", "1000", 1.0], ["inf", "infinity", 1.0], ["A and B", "A, B", 0.0], ["orange", "range", 0.0]];
// [response text, extraction mode, upstream's _extract_answer]
const EXTRACT: [string, ExtractionMode, string | null][] = [["The answer is \\boxed{42}.", "boxed", "42"], ["\\boxed{\\text{ oven }} then \\boxed{x", "boxed", "oven"], ["\\boxed{a{b}c}", "boxed", "a{b}c"], ["no box", "boxed", null], ["Answer: Paris.\nFinal answer: London.", "final_answer", "London"], ["final   ANSWER\uff1a  42 .", "final_answer", "42"], ["see \\boxed{9}", "final_answer", "9"], ["answer: a.b.", "final_answer", "a.b"], ["first\n\nlast line  \n\n", "last_line", "last line"], ["one\rtwo", "last_line", "two"], ["a\u2028b", "last_line", "b"], ["  \n ", "last_line", null], ["  whole thing ", "full_response", "whole thing"], ["   ", "full_response", null], ["Answer: x\r y", "final_answer", "x\r y"]];

describe("string_match", () => {
  test.each(GRADE)("grade(%p, %p) = %p", (gt, pred, want) => expect(gradeStringMatch(gt, pred)).toBe(want));
  test.each(EXTRACT)("extract(%p, %s) = %p", (text, mode, want) => expect(extractAnswer(text, mode)).toBe(want));
  test.each([
    ["Blue", "blue", false, 1], ["Blue", "blue", true, 0], ["blue", "blue", true, 1], [" blue ", "blue", true, 1],
  ] as const)("answers_match(%p, %p, case_sensitive=%p) = %p", (extracted, expected, cs, want) => expect(gradeStringMatchRow(`Answer: ${extracted}`, expected, "final_answer", cs).reward).toBe(want));
  test("no extraction or an empty expected answer is 0", () => {
    expect(gradeStringMatchRow("nothing here", "x", "boxed", false)).toEqual({ reward: 0, expected_answer: "x", extracted_answer: null });
    expect(gradeStringMatchRow("Answer: x", "", "final_answer", false).reward).toBe(0);
  });
  test("a 1 MB response with an unbalanced \\boxed{ is handled", () => {
    expect(extractAnswer("\\boxed{" + "{".repeat(500_000) + " \\boxed{ok}", "boxed")).toBe("ok");
  });
});
