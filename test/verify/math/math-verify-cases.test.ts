// Cases from Math-Verify 0.8.0's own test suite (huggingface/Math-Verify, MIT), kept as data in ./cases/*.json:
// each row is (gold, prediction, expected verdict) with the settings the upstream test function used.
import { describe, expect, test } from "bun:test";
import { CASE_FILES, loadCases, runCase } from "./_cases.ts";

for (const file of CASE_FILES) {
  const cases = await loadCases(file);
  describe(`math-verify tests/test_${file}.py`, () => {
    test.each(cases.map((c, i) => [i, c] as const))("case %i", (_i, c) => {
      expect({ gold: c.gold, pred: c.pred, verdict: runCase(c) }).toEqual({ gold: c.gold, pred: c.pred, verdict: c.expected });
    });
  });
}
