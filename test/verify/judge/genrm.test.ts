/** verify/judge/genrm.ts: upstream's genrm_compare tests/test_utils.py as data. */
import { describe, expect, test } from "bun:test";
import {
  aggregateScores, comparisonPairs, conversationHistory, countStyleElements, extractFromResponse, findJsonObjects, GenrmParseError, lowIsBetterWeights, outputTextOf,
  parseGenrmOutput, promptKey, styleDensity, type AggregateOptions, type PairMeta, type Triple,
} from "../../../src/verify/judge/genrm.ts";

const responseObj = (text: string) => ({ output: [{ type: "message", content: [{ type: "output_text", text }] }] });
const opts = (o: Partial<AggregateOptions> = {}): AggregateOptions => ({
  aggregatorMethod: "simple_tiebreaker", defaultScore: 3.0, reasoningBonus: 0, answerBonus: 0, topPercentile: 0.2, reasoningLengthPenalty: 0, answerLengthPenalty: 0, stylePenalty: 0, ...o,
});

describe("comparison pairs", () => {
  test.each([
    ["circular", 3, [[0, 1], [1, 2], [2, 0]]],
    ["circular", 4, [[0, 1], [1, 2], [2, 3], [3, 0]]],
    ["all_pairs", 3, [[0, 1], [0, 2], [1, 2]]],
    ["all_pairs", 4, [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]],
  ])("%s × %p", (s, n, want) => {
    expect(comparisonPairs(s, n)).toEqual(want as [number, number][]);
  });
  test("unknown strategy and fewer than 2 responses are errors", () => {
    expect(() => comparisonPairs("random", 3)).toThrow("Unknown comparison strategy: 'random'");
    expect(() => comparisonPairs("circular", 1)).toThrow("at least 2 responses");
  });
});

describe("GenRM output parsing", () => {
  test.each([
    ["fenced", 'Here\'s my evaluation:\n```json\n{"score_1": 4, "score_2": 3, "ranking": 2}\n```\n', [4, 3, 2]],
    ["unfenced", 'The result is {"score_1": 5, "score_2": 2, "ranking": 1}', [5, 2, 1]],
    ["partial keys take defaults", '{"score_1": 4}', [4, 3, 3.5]],
    ["the last valid object wins outside fences", '{"score_1": 1, "score_2": 1, "ranking": 1} then {"score_1": 2, "score_2": 5, "ranking": 6}', [2, 5, 6]],
    ["a fenced object wins over a later bare one", '```JSON\n{"score_1": 4, "score_2": 4, "ranking": 3}\n```\n{"score_1": 1, "score_2": 1, "ranking": 1}', [4, 4, 3]],
    ["nested overall", '{"rubric_evaluations": [], "overall": {"score_1": 2, "score_2": 4, "ranking": 5}}', [2, 4, 5]],
    ["numeric strings are floats", '{"score_1": "4.5", "score_2": " 2 ", "ranking": true}', [4.5, 2, 1]],
    ["braces inside strings are skipped", '{"note": "a } b {", "score_1": 3, "score_2": 1, "ranking": 2}', [3, 1, 2]],
  ])("%s", (_n, text, want) => {
    expect(parseGenrmOutput(text, 3.0, 3.5)).toEqual(want as Triple);
  });
  test.each([
    ["no JSON", "I think response 1 is better"],
    ["a non-number score", '{"score_1": "not a number"}'],
    ["no expected key", '{"winner": 1}'],
    ["unbalanced", '{"score_1": 4'],
  ])("%s is a parse error (the caller retries, then scores neutral)", (_n, text) => {
    expect(() => parseGenrmOutput(text, 3.0, 3.5)).toThrow(GenrmParseError);
  });
  test("findJsonObjects restarts after an unclosed brace", () => {
    expect(findJsonObjects('{ {"a": 1} x {"b": {"c": 2}}')).toEqual(['{"a": 1}', '{"b": {"c": 2}}']);
  });
});

describe("response text", () => {
  test("message text, reasoning summaries, empty placeholder", () => {
    expect(outputTextOf(responseObj("Hello world"))).toBe("Hello world");
    const r = { output: [{ type: "reasoning", summary: [{ text: "Let me think... ", type: "summary_text" }, { text: "The answer is clear.", type: "summary_text" }] }, { type: "message", content: [{ type: "output_text", text: "Paris" }] }] };
    expect(extractFromResponse(r)).toEqual(["Let me think... The answer is clear.", "Paris"]);
    expect(outputTextOf({ output: [] })).toBe("None");
    expect(outputTextOf(responseObj("  \n"))).toBe("None");
  });
  test("conversation history keeps roles and only output_text parts of list content", () => {
    expect(conversationHistory([{ role: "user", content: "Hi" }, { role: "assistant", content: [{ type: "output_text", text: "a" }, { type: "input_text", text: "x" }, { type: "output_text", text: "b" }] }, { content: null }])).toEqual([
      { role: "user", content: "Hi" }, { role: "assistant", content: "ab" }, { role: "user", content: "None" },
    ]);
  });
  test("prompt keys: same input + principle → same key; a different principle → another", () => {
    const input = [{ role: "user", content: "Hello", type: "message" }];
    expect(promptKey(input, "Be concise")).toBe(promptKey([{ type: "message", content: "Hello", role: "user" }], "Be concise"));
    expect(promptKey(input, "Be concise")).not.toBe(promptKey(input, "Be verbose"));
    expect(promptKey(input, null)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("style control", () => {
  test.each([
    ["supported types", ["# Title", "### Subsection", "1. Ordered", "- Dash", "* Star", "+ Plus", "**bold** and __also bold__", "Nice \u{1f600}\u2705"], [2, 4, 2, 2]],
    ["code blocks excluded", ["```markdown", "# Ignored", "- ignored", "**ignored** \u{1f600}", "```", "# Counted", "- counted", "**counted** \u{1f600}"], [1, 1, 1, 1]],
    ["non-matching edge cases", ["####### h7 should not count", "inline # header should not count", "1.not a list", "-not a list", "**bold"], [0, 0, 0, 0]],
    ["a carriage return is not a line start for Python", ["x\r# not a header"], [0, 0, 0, 0]],
  ])("%s", (_n, lines, [h, l, b, e]) => {
    expect(countStyleElements(lines.join("\n"))).toEqual({ header_count: h!, list_count: l!, bold_count: b!, emoji_count: e! });
  });
  test.each(["", "   ", "```python\n# ignored\n- ignored\n```"])("density of %p is 0", (t) => {
    expect(styleDensity(t)).toBe(0);
  });
  test("density of normal text; weights", () => {
    const t = "# Title\nPlain answer";
    expect(styleDensity(t)).toBeCloseTo(1 / t.length, 12);
    expect(lowIsBetterWeights([0.2, 0.2, 0.2])).toEqual([0, 0, 0]);
    const w = lowIsBetterWeights([0.0, 0.5, 1.0]);
    [0.5, 0, -0.5].forEach((v, i) => expect(w[i]).toBeCloseTo(v, 12));
  });
});

describe("aggregation (simple_tiebreaker)", () => {
  const empty = (n: number) => Array.from({ length: n }, () => ({ output: [] }));
  test.each([
    ["no ties", [[4, 2, 1]], [[0, 1, 0]], empty(2), opts(), [4, 2], undefined],
    ["tiebreaker applied", [[3, 3, 2]], [[0, 1, 0]], empty(2), opts(), [4.5, 1.5], 1],
    ["circular over 3", [[4, 2, 1], [3, 5, 5], [3, 4, 4]], [[0, 1, 0], [1, 2, 0], [2, 0, 0]], empty(3), opts(), [4, 2.5, 4], 0],
    ["a response with no comparison gets default_score", [[4, 2, 1]], [[0, 1, 0]], empty(3), opts({ defaultScore: 2.5 }), [4, 2, 2.5], 0],
    ["style penalty", [[3, 3, 3.5]], [[0, 1, 0]], [responseObj("plain answer"), responseObj("# Title\n- item\n**bold**")], opts({ stylePenalty: 1.0 }), [3.5, 2.5], 1],
    ["answer bonus to the shortest top answer", [[4, 2, 1]], [[0, 1, 0]], [responseObj("short"), responseObj("a much longer answer")], opts({ answerBonus: 0.5, topPercentile: 0.5 }), [4.5, 2], 0],
    ["answer bonus withheld below the top", [[2, 4, 6]], [[0, 1, 0]], [responseObj("short"), responseObj("a much longer answer")], opts({ answerBonus: 0.5, topPercentile: 0.5 }), [2, 4], 0],
    ["group answer-length penalty", [[3, 3, 3.5]], [[0, 1, 0]], [responseObj("ab"), responseObj("abcd")], opts({ answerLengthPenalty: 1.0 }), [3.5, 2.5], 1],
  ])("%s", (_n, results, meta, responses, o, want, tieRate) => {
    const a = aggregateScores(results as Triple[], meta as PairMeta[], responses, o);
    want.forEach((v, i) => expect(a.rewards[i]).toBeCloseTo(v, 12));
    if (tieRate !== undefined) expect(a.metrics.tiebreak_usage_rate).toBeCloseTo(tieRate, 12);
  });
  test("style penalty keeps base scores and reports the adjustments", () => {
    const a = aggregateScores([[3, 3, 3.5]], [[0, 1, 0]], [responseObj("plain answer"), responseObj("# Title\n- item\n**bold**")], opts({ stylePenalty: 1.0 }));
    expect(a.baseScores).toEqual([3, 3]);
    a.bonuses.forEach((b, i) => expect(b).toBeCloseTo([0.5, -0.5][i]!, 12));
    expect(a.metrics.mean_individual_score).toBe(3);
    expect(a.metrics.std_individual_score).toBe(0);
  });
  test("an unknown aggregator is an error", () => {
    expect(() => aggregateScores([], [], [], opts({ aggregatorMethod: "bradley_terry" }))).toThrow("Unsupported aggregator_method");
  });
});
