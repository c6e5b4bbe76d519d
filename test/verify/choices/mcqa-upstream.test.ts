/**
 * Upstream's mcqa tests (resources_servers/mcqa/tests/test_app.py) as data: each case is a fact
 * about upstream's verdicts. Columns: name, answer text, options, expected letter, row grading
 * mode, server grading mode, template_metadata, upstream's extracted_answer, upstream's reward.
 */
import { describe, expect, test } from "bun:test";
import { gradeChoice, type ChoiceRow, type GradingMode } from "../../../src/verify/choices/grade.ts";

type Case = [string, string, string | Record<string, string>[], string, GradingMode | undefined, GradingMode | null, Record<string, unknown> | undefined, string | null, number];

const opts = (letters: string) => [...letters].map((l) => ({ [l]: `opt${l}` }));
const OPTIONS_AJ = Array.from({ length: 10 }, (_, i) => ({ [String.fromCharCode(65 + i)]: `option ${String.fromCharCode(65 + i)} text` }));
const S = "strict_single_letter_boxed" as const;
const MD = "lenient_answer_colon_md" as const;

export const UPSTREAM_CASES: Case[] = [
  // test_verify_correct
  ["strict: plain letter is not boxed", "The answer is C.", "ABCD", "C", S, null, undefined, null, 0],
  ["strict: boxed [C]", "Final: \\boxed{ [C] }", "ABCD", "C", S, null, undefined, "C", 1],
  ["lenient_boxed: option text in box", "Final: \\boxed{ optC }", "ABCD", "C", "lenient_boxed", null, undefined, "C", 1],
  ["lenient_answer_colon: lower-case letter", "Answer: c", "ABCD", "C", "lenient_answer_colon", null, undefined, "C", 1],
  ["lenient_answer_colon: exact option text", "Answer: optC", "ABCD", "C", "lenient_answer_colon", null, undefined, "C", 1],
  // template_metadata
  ["tm: basic", "Option Selected: B", "AB", "B", S, null, { output_regex: "Option Selected:\\s*([A-Za-z])" }, "B", 1],
  ["tm: case-insensitive", "ANSWER IS b", "AB", "B", undefined, null, { output_regex: "ANSWER IS\\s*([A-Za-z])" }, "B", 1],
  ["tm: list tried in order", "Antwort: B", "AB", "B", undefined, null, { output_regex: ["Answer\\s*:\\s*([A-Za-z])", "Antwort\\s*:\\s*([A-Za-z])"] }, "B", 1],
  ["tm: Arabic letter", "الإجابة: ب", "AB", "B", undefined, null, { output_regex: ["الإجابة:\\s*([أ-د])"] }, "B", 1],
  ["tm: rightmost match", "Maybe Answer: A? Let me reconsider. Final Answer: B", "AB", "B", undefined, null, { output_regex: "Answer:\\s*([A-Za-z])" }, "B", 1],
  ["tm: beats grading mode", "Final Choice: B", "AB", "B", S, null, { output_regex: "Final Choice:\\s*([A-Za-z])" }, "B", 1],
  ["tm: invalid regex falls back", "\\boxed{B}", "AB", "B", S, null, { output_regex: "([" }, "B", 1],
  ["tm: no options, regex trusted", "Selected: B", [], "B", undefined, null, { output_regex: "Selected:\\s*([A-Za-z])" }, "B", 1],
  // TestGradingModeConfig
  ["config mode beats row", "I think the answer is B.\n\nAnswer: B", "ABCD", "B", S, "lenient_answer_colon", undefined, "B", 1],
  ["row default strict", "I think the answer is B.\n\nAnswer: B", "ABCD", "B", S, null, undefined, null, 0],
  // TestGradingModeAnswerColonMD
  ["md: plain", "The answer is B.\n\nAnswer: B", "ABCD", "B", S, MD, undefined, "B", 1],
  ["md: bold", "Reasoning here.\n\n**Answer: C**", "ABCD", "C", S, MD, undefined, "C", 1],
  ["answer_colon: bold not read", "**Answer: C**", "ABCD", "C", S, "lenient_answer_colon", undefined, null, 0],
  ["md: underscores", "__Answer__: A", "ABCD", "A", S, MD, undefined, "A", 1],
  ["md: leading letter", "Answer: B because C is not valid", "ABCD", "B", S, MD, undefined, "B", 1],
  ["md: repeated letter", "Answer: B/B", "ABCD", "B", S, MD, undefined, "B", 1],
  ["md: $D$", "Answer: $D$", "ABCD", "D", S, MD, undefined, "D", 1],
  ["md: (D)", "Answer: (D)", "ABCD", "D", S, MD, undefined, "D", 1],
  ["md: boxed text answer", "\\boxed{\\text{Answer: G}}", "ABCDEFGHIJ", "G", S, MD, undefined, "G", 1],
  ["md: unknown", "Answer: unknown", "ABCD", "B", S, MD, undefined, null, 0],
  ["md: disallowed", "Answer: G", "ABCD", "B", S, MD, undefined, null, 0],
  ["md: A/B/C", "Answer: A/B/C", "ABCD", "A", S, MD, undefined, null, 0],
  ["md: B/I", "Answer: B/I", "ABCDEFGHIJ", "B", S, MD, undefined, null, 0],
  ["md: **D/H**", "**Answer: D/H**", "ABCDEFGHIJ", "D", S, MD, undefined, null, 0],
  ["md: A or B", "Answer: A or B", "ABCD", "A", S, MD, undefined, null, 0],
  ["md: A and B", "Answer: A and B", "ABCD", "A", S, MD, undefined, null, 0],
  ["md: A, B", "Answer: A, B", "ABCD", "A", S, MD, undefined, null, 0],
  ["md: rightmost", "Answer: A\nAnswer: B", "ABCD", "B", S, MD, undefined, "B", 1],
  ["md: invalid last falls back (unknown)", "Answer: B\nAnswer: unknown", "ABCD", "B", S, MD, undefined, "B", 1],
  ["md: invalid last falls back (G)", "Answer: B\nAnswer: G", "ABCD", "B", S, MD, undefined, "B", 1],
  ["md: invalid last falls back (A/B/C)", "Answer: B\nAnswer: A/B/C", "ABCD", "B", S, MD, undefined, "B", 1],
  ["md: no Answer:", "I think it might be B but I'm not sure", "ABCD", "B", S, MD, undefined, null, 0],
  // TestStrictBoxedLatexExtraction
  ["strict: \\text{E}", "\\boxed{\\text{E}}", OPTIONS_AJ, "E", S, S, undefined, "E", 1],
  ["strict: \\text{I: …}", "\\boxed{\\text{I: NGS can detect both coding and non-coding regions of the genome.}}", OPTIONS_AJ, "I", S, S, undefined, "I", 1],
  ["strict: E: \\text{…}", "\\[ \\boxed{E: \\text{A polygenic risk score can provide a probability.}} \\]", OPTIONS_AJ, "E", S, S, undefined, "E", 1],
  ["strict: \\boxed{B}", "\\boxed{B}", "ABCD", "B", S, S, undefined, "B", 1],
  ["strict: bare option text is not a letter", "\\boxed{A polygenic risk score can provide a probability.}", OPTIONS_AJ, "A", S, S, undefined, null, 0],
  ["lenient_boxed: \\text{E}", "\\boxed{\\text{E}}", OPTIONS_AJ, "E", "lenient_boxed", "lenient_boxed", undefined, "E", 1],
  ["strict: unbalanced box", "\\boxed{B", "ABCD", "B", S, S, undefined, null, 0],
  ["strict: last box wins", "Candidate is \\boxed{C}, but on reflection the answer is \\boxed{E}", OPTIONS_AJ, "E", S, S, undefined, "E", 1],
  ["strict: non-letter thinking box", "Thinking: \\boxed{\\text{some idea}}. Final answer: \\boxed{E}", OPTIONS_AJ, "E", S, S, undefined, "E", 1],
];

describe("mcqa grading: upstream's test cases", () => {
  test.each(UPSTREAM_CASES)("%s", (_name, text, options, expected, rowMode, serverMode, tm, wantExtracted, wantReward) => {
    const row: ChoiceRow = { options: typeof options === "string" ? opts(options) : options, expected_answer: expected, grading_mode: rowMode, template_metadata: tm };
    const v = gradeChoice(text, row, serverMode);
    expect(v.extracted_answer).toBe(wantExtracted);
    expect(v.reward).toBe(wantReward);
    expect(v.expected_answer).toBe(expected);
  });
});
