/**
 * citation_if's gate sequence as tables: every scorer call upstream's tests make (test_citation_if,
 * test_reward_hack_matrix; a sample of test_residual_fuzz), with the verdicts upstream's scorer.py
 * gave under CPython (test/fixtures/citation-if/cases.json), plus the response-shape contract and bad input.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GRAMMARS, responseShape, scoreCitationIf } from "../../src/verify/rules/citation-if.ts";

type Obj = Record<string, unknown>;
const FIX = JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "citation-if", "cases.json"), "utf8")) as {
  verifiers: Obj[];
  cases: [string, string, number, number, number, Obj][];
};

describe("citation_if scorer (upstream's test calls, verdicts from upstream's scorer)", () => {
  for (const suite of ["citation_if", "reward_hack_matrix", "residual_fuzz"]) {
    test(`${suite}: reward and details as upstream`, () => {
      const cases = FIX.cases.filter((c) => c[0] === suite);
      expect(cases.length).toBeGreaterThan(20);
      let agree = 0;
      for (const [, text, fcc, vi, reward, want] of cases) {
        const got = scoreCitationIf(text, fcc, FIX.verifiers[vi]!);
        const picked = Object.fromEntries(Object.keys(want).map((k) => [k, got.details[k]]));
        expect([text, got.reward, picked]).toEqual([text, reward, want]);
        agree++;
      }
      process.stderr.write(`citation_if ${suite}: ${agree}/${cases.length} as upstream\n`);
    });
  }

  test("nine trained grammars and two holdouts", () => {
    expect(Object.entries(GRAMMARS).filter(([, g]) => !g.holdout).map(([n]) => n).length).toBe(9);
    expect(Object.entries(GRAMMARS).filter(([, g]) => g.holdout).map(([n]) => n)).toEqual(["curly_double", "angle_pipe"]);
  });

  const msg = (text: string) => ({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
  test.each([
    [{ output: [msg("Answer. [citation_ab12]")] }, "Answer. [citation_ab12]", 0],
    [{ output: [msg("  a  "), { type: "function_call", name: "web_search", arguments: "{}", call_id: "c" }, msg("b")] }, "a  \nb", 1],
    [{ output: [{ type: "message", role: "user", content: [{ type: "output_text", text: "no" }] }, msg("")] }, "", 0],
    [{ output: [{ type: "reasoning", summary: [] }, { type: "message", role: "assistant", content: [{ type: "text", text: "x" }, { type: "refusal", refusal: "r" }, "junk", { type: "output_text", text: 5 }] }] }, "x", 0],
    [{ output: null }, "", 0],
    [{}, "", 0],
  ])("response shape %#", (response, text, calls) => expect(responseShape(response)).toEqual({ text, functionCalls: calls }));

  test("bad input: unknown grammar scores 0 with a reason; bad id_regex and bad counts throw", () => {
    expect(scoreCitationIf("x", 0, { grammar: "nope" })).toEqual({ reward: 0, details: { gate_failed: "unknown_grammar", grammar: "nope" } });
    expect(scoreCitationIf("x", 0, { grammar: 7 }).details.gate_failed).toBe("unknown_grammar");
    expect(() => scoreCitationIf("Claim <cite>citation_1</cite>", 0, { grammar: "cite_xml", id_regex: "citation_(" })).toThrow(/citation_\(/);
    expect(() => scoreCitationIf("Claim <cite>citation_1</cite>", 0, { grammar: "cite_xml", min_valid_citations: "many" })).toThrow(/int\(\)/);
    // A 1 MB answer is scored without trouble.
    const big = `${"word ".repeat(200_000)}<cite>citation_1</cite>`;
    expect(scoreCitationIf(big, 0, { grammar: "cite_xml", valid_id_set: ["citation_1"] }).reward).toBe(1);
  });
});
