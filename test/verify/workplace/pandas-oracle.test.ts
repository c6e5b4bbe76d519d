/**
 * Differential check against upstream's own Python: test/fixtures/workplace/pandas-oracle.jsonl.gz holds
 * 700 random sessions (1–5 tool calls each, well- and ill-formed arguments) with the answers upstream's
 * tools gave under pandas, and a predicted/gold action pair per session with upstream's is_correct
 * verdict (gen-oracle.py beside it made them). Every answer and verdict must be reproduced; for a
 * Python exception only the "Error executing tool '<name>':" prefix is compared, as the exception
 * wording (e.g. re.error's) is not always Python's.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sameFinalState } from "../../../src/verify/rules/workplace/state-diff.ts";
import { copyState, routeToolCall } from "../../../src/verify/rules/workplace/tools.ts";
import { stateWith } from "./_state.ts";

type Session = { calls: [string, Record<string, unknown>][]; outputs: unknown[]; pred: unknown[]; gold: unknown[]; verdict: boolean };
const SESSIONS: Session[] = new TextDecoder()
  .decode(Bun.gunzipSync(readFileSync(join(import.meta.dir, "..", "..", "fixtures", "workplace", "pandas-oracle.jsonl.gz"))))
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

const errorPrefix = (v: unknown) => (typeof v === "string" && v.startsWith("Error executing tool '") ? v.slice(0, v.indexOf("':") + 2) : undefined);

describe("workplace: upstream's Python answers (pandas oracle)", () => {
  const base = stateWith();

  test("the fixture covers both verdicts and many tools", () => {
    expect(SESSIONS.length).toBe(700);
    expect(SESSIONS.filter((s) => s.verdict).length).toBeGreaterThan(100);
    expect(SESSIONS.filter((s) => !s.verdict).length).toBeGreaterThan(100);
    expect(new Set(SESSIONS.flatMap((s) => s.calls.map((c) => c[0]))).size).toBe(27);
  });

  test("every tool answer", () => {
    let n = 0;
    for (const [i, s] of SESSIONS.entries()) {
      const state = copyState(base);
      s.calls.forEach(([name, args], j) => {
        const got = routeToolCall(state, name, args);
        const want = s.outputs[j];
        const prefix = errorPrefix(want);
        if (prefix) expect([i, j, errorPrefix(got)]).toEqual([i, j, prefix]);
        else expect([i, j, got]).toEqual([i, j, want]);
        n++;
      });
    }
    expect(n).toBeGreaterThan(2000);
  }, 60_000);

  test("every is_correct verdict", () => {
    for (const [i, s] of SESSIONS.entries()) expect([i, sameFinalState(base, s.pred, s.gold)]).toEqual([i, s.verdict]);
  }, 60_000);
});
