import { describe, expect, test } from "bun:test";
import { checkOne, evaluateInstructions } from "../../../src/verify/ifeval/evaluate.ts";
import { buildInstruction, InstructionError, instructionIds } from "../../../src/verify/ifeval/registry.ts";
import fuzz from "../../fixtures/ifeval/cases-fuzz.json";
import google from "../../fixtures/ifeval/cases-google.json";
import own from "../../fixtures/ifeval/cases-own.json";
import gpt4 from "../../fixtures/ifeval/gpt4-responses.json";

interface Case { id: string; kwargs: unknown; text: string; expected: boolean | string }

// upstream's INSTRUCTION_DICT (verifiable-instructions), written out so a dropped id fails here.
const UPSTREAM_IDS = [
  "keywords:existence", "keywords:frequency", "keywords:forbidden_words", "keywords:letter_frequency", "language:response_language",
  "length_constraints:number_sentences", "length_constraints:number_paragraphs", "length_constraints:number_words",
  "length_constraints:nth_paragraph_first_word", "detectable_content:number_placeholders", "detectable_content:postscript",
  "detectable_format:number_bullet_lists", "detectable_format:constrained_response", "detectable_format:number_highlighted_sections",
  "detectable_format:multiple_sections", "detectable_format:json_format", "detectable_format:title", "combination:two_responses",
  "combination:repeat_prompt", "startend:end_checker", "change_case:capital_word_frequency", "change_case:english_capital",
  "change_case:english_lowercase", "punctuation:no_comma", "startend:quotation", "copy:repeat_phrase", "copy:copy",
  "new:copy_span_idx", "detectable_format:sentence_hyphens", "keywords:no_adjacent_consecutive", "detectable_format:square_brackets",
  "keywords:word_once", "keywords:word_count_different_numbers", "keywords:exclude_word_harder", "paragraphs:paragraphs",
  "paragraphs:paragraphs2", "first_word:first_word_sent", "first_word:first_word_answer", "last_word:last_word_sent",
  "last_word:last_word_answer", "detectable_format:bigram_wrapping", "copy:copying_simple", "copy:copying_multiple",
  "punctuation:punctuation_dot", "punctuation:punctuation_exclamation", "count:lowercase_counting", "letters:letter_counting",
  "letters:letter_counting2", "count:counting_composition", "count:count_unique", "count:count_increment_word",
  "keywords:palindrome", "keywords:keyword_specific_position", "keywords:start_end",
];

function run(name: string, cases: Case[]) {
  describe(name, () => {
    test.each(cases.map((c, i) => [i, c.id, c] as const))("#%d %s", (_i, _id, c) => {
      const r = checkOne(c.id, c.kwargs, c.text);
      if (typeof c.expected === "string") {
        // Upstream raised: the instruction is not followed, and we say why.
        expect(r.ok).toBe(false);
        expect(r.error).toBeString();
      } else {
        expect(r.error).toBeUndefined();
        expect(r.ok).toBe(c.expected);
      }
    });
  });
}

run("google-research instructions_test.py cases", google as Case[]);
run("hand-written cases for every id", own as Case[]);
run("generated cases for every id", fuzz as Case[]);

describe("registry", () => {
  test("holds exactly upstream's 54 ids", () => {
    expect(instructionIds()).toEqual([...UPSTREAM_IDS].sort());
  });

  test("every id has hand-written cases with both verdicts or an upstream error", () => {
    const seen = new Map<string, Set<string>>();
    for (const c of own as Case[]) seen.set(c.id, (seen.get(c.id) ?? new Set()).add(String(c.expected)));
    for (const id of UPSTREAM_IDS) expect(seen.has(id)).toBe(true);
  });

  test("an unknown id is a clear error naming the id", () => {
    expect(() => buildInstruction("detectable_format:nope", {})).toThrow(InstructionError);
    expect(checkOne("detectable_format:nope", {}, "x")).toEqual({ ok: false, error: expect.stringContaining("detectable_format:nope: unknown instruction id") });
  });

  test("an unexpected kwarg is rejected like Python's TypeError, naming the accepted ones", () => {
    const r = checkOne("length_constraints:number_words", { num_words: 3, relation: "at least", typo: 1 }, "a b c");
    expect(r.ok).toBe(false);
    expect(r.error).toContain("unexpected keyword argument 'typo'");
    expect(r.error).toContain("num_words, relation");
  });

  test("null-valued kwargs are dropped before building (as upstream filters them)", () => {
    expect(checkOne("detectable_format:title", { anything: null }, "<<T>>")).toEqual({ ok: true });
  });

  test("wrong-typed kwargs: clear error, never a throw", () => {
    for (const [id, kw] of [
      ["length_constraints:number_words", { num_words: "ten", relation: "at least" }],
      ["keywords:existence", { keywords: 42 }],
      ["language:response_language", { language: ["en"] }],
      ["detectable_format:number_bullet_lists", { num_bullets: { n: 1 } }],
      ["new:copy_span_idx", { prompt_to_repeat: "abc", n_start: 0.5, n_end: 2 }],
      ["keywords:forbidden_words", { forbidden_words: [["x"]] }],
    ] as const) {
      const r = checkOne(id, kw, "some text");
      expect(r.ok).toBe(false);
      expect(r.error).toStartWith(id);
    }
    expect(checkOne("detectable_format:title", "not an object", "<<T>>").error).toContain("kwargs must be an object or null");
  });

  test("missing kwargs that upstream draws at random give one fixed verdict", () => {
    const first = checkOne("length_constraints:number_words", {}, "one two three four five").ok;
    for (let i = 0; i < 20; i++) expect(checkOne("length_constraints:number_words", {}, "one two three four five").ok).toBe(first);
  });
});

describe("evaluateInstructions", () => {
  test("binary: all must hold; fraction: the share that holds", () => {
    const ids = ["detectable_format:title", "punctuation:no_comma"];
    const text = "<<My Great Title>>\n\n with a comma here, okay.";
    expect(evaluateInstructions(ids, [{}, {}], text)).toMatchObject({ reward: 0, followAll: false, followList: [true, false] });
    expect(evaluateInstructions(ids, [{}, {}], text, "fraction")).toMatchObject({ reward: 0.5, followList: [true, false] });
    expect(evaluateInstructions(ids, [{}, {}], "<<T>> fine", "binary")).toMatchObject({ reward: 1, followAll: true });
  });

  test("lists of different lengths are zipped (the shorter wins); empty lists: binary 1, fraction 0", () => {
    expect(evaluateInstructions(["punctuation:no_comma", "detectable_format:title"], [null], "a, b").followList).toEqual([false]);
    expect(evaluateInstructions([], [], "x").reward).toBe(1);
    expect(evaluateInstructions([], [], "x", "fraction").reward).toBe(0);
  });

  test("a non-string id is a per-instruction failure", () => {
    const v = evaluateInstructions([7, "punctuation:no_comma"], [null, null], "ok");
    expect(v.followList).toEqual([false, true]);
    expect(v.errors[0]!.message).toContain("must be a string");
  });
});

describe("google-research IFEval: 541 GPT-4 responses, verdicts recorded from upstream", () => {
  const rows = (gpt4 as { key: number; instruction_id_list: string[]; kwargs: unknown[]; response: string; expected: boolean[] }[]);
  // key 1129 asks for `letter: "!"`, which upstream replaces with a *random* letter (unseeded): its
  // verdict depends on the draw, so it is the one row we cannot match by construction.
  const RANDOM_DRAW = new Set([1129]);
  test("every deterministic row gets upstream's per-instruction verdicts", () => {
    let agree = 0;
    for (const r of rows) {
      const v = evaluateInstructions(r.instruction_id_list, r.kwargs, r.response);
      if (RANDOM_DRAW.has(r.key)) continue;
      expect({ key: r.key, list: v.followList }).toEqual({ key: r.key, list: r.expected });
      agree++;
    }
    expect(agree).toBe(540);
  }, 120_000);
});
