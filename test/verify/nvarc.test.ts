/** nvarc's transductive grid parsing: upstream's tests/ cases as data, plus Python-semantics cases of our own. */
import { describe, expect, test } from "bun:test";
import { assistantText, parseGrid, sameGrid, stripThinking } from "../../src/verify/rules/nvarc.ts";

describe("nvarc grid parsing", () => {
  test.each([
    ["\\boxed{1 2\n3 4}", [[1, 2], [3, 4]]],
    ["0 1 0\n1 1 1\n0 1 0", [[0, 1, 0], [1, 1, 1], [0, 1, 0]]],
    ["<think>reasoning</think>\\boxed{0 1\n1 0}", [[0, 1], [1, 0]]],
    ["no grid here at all", null],
    ["", null],
    ["0 1 2\n3 4", null],
    ["I don't know the answer, sorry!", null],
    ["1 2 3", [[1, 2, 3]]],
    // Punctuation goes first, so "[1, 2]" rows read as digits; a word that is not a digit 0-9 is dropped.
    ["[[1, 2],\n [3, 4]]", [[1, 2], [3, 4]]],
    // "row" and "10" are dropped, leaving ragged rows: no answer.
    ["row: 10 2 3\nrow: 4 5 6", null],
    // The boxed span is greedy up to the LAST closing brace, as upstream's regex (computed once with its code).
    ["\\boxed{1} then \\boxed{2}", [[1]]],
  ])("%p", (text, want) => expect(parseGrid(text as string)).toEqual(want as number[][] | null));

  test("thinking blocks are dropped across lines; text parts of assistant messages are joined by newlines", () => {
    expect(stripThinking("<think>a\nb</think>  x ")).toBe("x");
    const response = { output: [{ type: "reasoning", summary: [] }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "0 1" }, { type: "output_text", text: "1 0" }] }] };
    expect(parseGrid(assistantText(response))).toEqual([[0, 1], [1, 0]]);
  });

  test("grid equality is Python list equality", () => {
    expect(sameGrid([[1]], [[1]])).toBe(true);
    expect(sameGrid([[1, 2]], [[1], [2]])).toBe(false);
    expect(sameGrid(null, [[1]])).toBe(false);
  });
});
