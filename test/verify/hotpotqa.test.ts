/** hotpotqa_qa scoring as tables: every call upstream's tests/test_app.py makes plus extra inputs, outcomes computed once by upstream's scoring.py (CPython). */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { answerExactMatch, answerF1, isCorrect, isCorrectStrict, normalizeAnswer, normalizeGt, parseGeneration, scoreHotpotqa } from "../../src/verify/rules/hotpotqa.ts";

type Case = { fn: string; args: any[]; out: any };
const CASES = (JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "library", "hotpotqa.json"), "utf8")) as { cases: Case[] }).cases;

const RUN: Record<string, (...a: any[]) => unknown> = {
  normalize_answer: (s) => normalizeAnswer(s),
  answer_f1_score: (p, g) => answerF1(p, g),
  answer_exact_match: (p, g) => answerExactMatch(p, g),
  // Upstream returns (answer, supporting_facts); the server reads only the answer.
  parse_generation: (g) => [parseGeneration(g)],
  normalize_gt: (g) => normalizeGt(g),
  is_correct: (a, p) => isCorrect(a, p),
  is_correct_strict: (a, p) => isCorrectStrict(a, p),
};

describe("hotpotqa scoring (outcomes from upstream's scoring.py)", () => {
  for (const fn of Object.keys(RUN)) {
    test(fn, () => {
      const cases = CASES.filter((c) => c.fn === fn);
      expect(cases.length).toBeGreaterThan(5);
      for (const c of cases) {
        const want = fn === "parse_generation" ? [c.out[0]] : c.out;
        const got = RUN[fn]!(...c.args);
        if (fn === "answer_f1_score") (got as number[]).forEach((v, i) => expect([c.args, v]).toEqual([c.args, expect.closeTo(want[i], 12)]));
        else expect([c.args, got]).toEqual([c.args, want]);
      }
      process.stderr.write(`hotpotqa ${fn}: ${cases.length}/${cases.length} as upstream\n`);
    });
  }

  test("verify fields (upstream TestVerify cases)", () => {
    expect(scoreHotpotqa('{"answer": "Paris"}', "Paris")).toEqual({ reward: 1, extracted_answer: "Paris", answer_em: 1, answer_f1: 1, is_correct: 1, is_correct_strict: 1, gt_should_remove: false, gt_remove_reason: "" });
    const sub = scoreHotpotqa('{"answer": "The city of Paris"}', "Paris");
    expect([sub.reward, sub.answer_em, sub.is_correct]).toEqual([1, 0, 1]);
    expect(scoreHotpotqa('{"answer": "London"}', "Paris").reward).toBe(0);
    expect(scoreHotpotqa("I think the answer is Paris", "Paris").extracted_answer).toBe("I think the answer is Paris");
    expect(scoreHotpotqa("", "Paris")).toMatchObject({ reward: 0, extracted_answer: null, answer_em: 0, answer_f1: 0 });
  });
});
