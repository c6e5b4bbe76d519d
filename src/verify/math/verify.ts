/** The math verifier's entry points: parse (extract candidates) and verify (any gold × pred pair equal). */
import { type CompareOptions, DEFAULT_COMPARE, exprEq } from "./compare.ts";
import { type Candidate, type ExtractOptions, extractCandidates } from "./extract.ts";
import { Budget, BudgetExceeded } from "./node.ts";

/** Operations one candidate pair may spend before it is decided "not equal" (deterministic, D40). */
export const PAIR_BUDGET = 200_000;

/** Candidates from text (math-verify's `parse` with fallback on); never throws on bad input. */
export function parse(text: string, opts: ExtractOptions = { targets: ["latex", "expr"] }): Candidate[] {
  try {
    return extractCandidates(text, opts);
  } catch (e) {
    if (e instanceof BudgetExceeded || e instanceof RangeError) return [];
    throw e;
  }
}

/** Whether one gold candidate and one predicted candidate are equal. */
export function verifyPair(g: Candidate, p: Candidate, opts: CompareOptions = DEFAULT_COMPARE): boolean {
  if (typeof g === "string" || typeof p === "string") {
    if (typeof g !== "string" || typeof p !== "string") return false;
    const a = g.trim();
    const b = p.trim();
    return a.length > 0 && a === b;
  }
  try {
    return exprEq(g, p, opts, new Budget(PAIR_BUDGET));
  } catch (e) {
    // An exhausted budget or a stack too deep is a fixed verdict, never a crash.
    if (e instanceof BudgetExceeded || e instanceof RangeError) return false;
    throw e;
  }
}

/** math-verify's `verify`: true when any gold candidate equals any predicted one. */
export function verify(gold: Candidate[], pred: Candidate[], opts: CompareOptions = DEFAULT_COMPARE): boolean {
  for (const g of gold) for (const p of pred) if (verifyPair(g, p, opts)) return true;
  return false;
}
