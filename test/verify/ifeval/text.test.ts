import { describe, expect, test } from "bun:test";
import { punktSentences, countSentences } from "../../../src/verify/ifeval/punkt.ts";
import { treebankTokens, wordTokenize } from "../../../src/verify/ifeval/treebank.ts";
import { countWords, splitIntoSentences } from "../../../src/verify/ifeval/text.ts";
import cases from "../../fixtures/ifeval/tokenize.json";

const rows = cases as { text: string; sentences: string[]; words: string[]; rule_sentences: string[]; word_count: number }[];

describe("Punkt English sentence splitter (recorded from nltk)", () => {
  test.each(rows.map((r, i) => [i, r] as const))("case %d", (_i, r) => {
    expect(punktSentences(r.text)).toEqual(r.sentences);
    expect(countSentences(r.text)).toBe(r.sentences.length);
  });

  test("documented Punkt example: abbreviations and initials do not break, lower-case starts do", () => {
    const text = "Punkt knows that the periods in Mr. Smith and Johann S. Bach\ndo not mark sentence boundaries.  And sometimes sentences\ncan start with non-capitalized words.  i is a good variable\nname.";
    expect(punktSentences(text)).toEqual([
      "Punkt knows that the periods in Mr. Smith and Johann S. Bach\ndo not mark sentence boundaries.",
      "And sometimes sentences\ncan start with non-capitalized words.",
      "i is a good variable\nname.",
    ]);
  });

  test("closing quotes and brackets stay with their sentence (realignment)", () => {
    expect(punktSentences('(How does it deal with this parenthesis?)  "It should be part of the\nprevious sentence."')).toEqual([
      "(How does it deal with this parenthesis?)",
      '"It should be part of the\nprevious sentence."',
    ]);
  });

  test("decimals and ellipses", () => {
    expect(punktSentences("It costs $3.50 today. Wait... what?")).toEqual(["It costs $3.50 today.", "Wait... what?"]);
  });

  test("empty and blank text have no sentences", () => {
    expect(punktSentences("")).toEqual([]);
    expect(punktSentences("   \n ")).toEqual([]);
  });
});

describe("NLTK word_tokenize (Treebank rules)", () => {
  test.each(rows.map((r, i) => [i, r] as const))("case %d", (_i, r) => {
    expect(wordTokenize(r.text)).toEqual(r.words);
  });

  test("documented Treebank example", () => {
    expect(treebankTokens("Good muffins cost $3.88\nin New York.  Please buy me\ntwo of them.\nThanks.")).toEqual(
      ["Good", "muffins", "cost", "$", "3.88", "in", "New", "York.", "Please", "buy", "me", "two", "of", "them.", "Thanks", "."],
    );
  });

  test("contractions and quotes", () => {
    expect(wordTokenize(`They'll say "I can't" -- won't they?`)).toEqual(["They", "'ll", "say", "``", "I", "ca", "n't", "''", "--", "wo", "n't", "they", "?"]);
    expect(wordTokenize("I cannot gonna")).toEqual(["I", "can", "not", "gon", "na"]);
  });
});

describe("upstream's rule-based split_into_sentences and \\w+ word count", () => {
  test.each(rows.map((r, i) => [i, r] as const))("case %d", (_i, r) => {
    expect(splitIntoSentences(r.text)).toEqual(r.rule_sentences);
    expect(countWords(r.text)).toBe(r.word_count);
  });

  test("\\w+ is Unicode: accented and CJK words count, punctuation splits", () => {
    expect(countWords("naïve café, don't 東京")).toBe(5);
  });
});
