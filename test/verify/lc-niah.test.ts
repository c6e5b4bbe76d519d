/** lc_niah's answer F1 and overlap signals as tables; outcomes computed once with upstream's own functions (CPython 3). */
import { describe, expect, test } from "bun:test";
import { answerScore, gradeLcNiah, inputText, overlaps } from "../../src/verify/rules/lc-niah.ts";

const WORDS = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => `w${a + i}`).join(" ");

describe("lc_niah", () => {
  test.each([
    ["reasoning\nFinal Answer: [a, b]", '["a", "b"]', 1.0],
    ["Final Answer: ['a', \"c\"]\n\n", '["a", "b"]', 0.5],
    ["Final Answer: []", "[]", 1.0],
    ["Final Answer: []", '["a"]', 0.0],
    ["no answer", "[]", 0.0],
    ["Final Answer: [a]\nthanks", '["a"]', 0.0],
    ["Final Answer: [x]", "not json", 0.0],
    ["Final Answer: [a,,b, ]", '["a","b","c"]', 0.8],
    ["Final Answer:[1]", "[1]", 0.0],
  ])("answer %p vs %p → %p", (r, a, want) => expect(answerScore(r, a)).toBeCloseTo(want, 12));

  test.each([
    ["the cat sat on the mat", "The cat sat on the mat. The dog sat too.", 0.7096774193548387, 0.0, 1.0],
    ["", "anything", 0.0, 0.0, 0.0],
    [WORDS(0, 40), WORDS(10, 30), 0.6929824561403509, 0.2, 0.5302013422818792],
  ])("overlaps(%p, %p)", (r, i, seq, ngram, lcs) => {
    const o = overlaps(r, i);
    expect(o.overlap_seq_match).toBeCloseTo(seq, 12);
    expect(o.overlap_ngram16).toBeCloseTo(ngram, 12);
    expect(o.overlap_lcs).toBeCloseTo(lcs, 12);
  });

  test("input text from strings and content blocks; reward rules", () => {
    expect(inputText([{ role: "user", content: "a" }, { role: "user", content: [{ type: "input_text", text: "b" }, { type: "input_image" }] }])).toBe("a\nb");
    const response = { output: [{ type: "reasoning", summary: [{ type: "summary_text", text: "the cat sat on the mat" }] }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "Final Answer: [a]" }] }] };
    const input = "The cat sat on the mat. The dog sat too.";
    expect(gradeLcNiah(response, input, '["a"]', "lcs", "multiply").reward).toBe(0);
    expect(gradeLcNiah(response, input, '["a"]', "lcs", "base").reward).toBe(1);
    expect(gradeLcNiah(response, input, '["a"]', "ngram16", "minus").reward).toBe(1);
  });
});
