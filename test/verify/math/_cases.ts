/** Loads the cases taken from Math-Verify 0.8.0's test suite (MIT) and runs one through our verifier. */
import { verify, parse } from "../../../src/verify/math/verify.ts";

/** One upstream case: gold and prediction texts and the verdict upstream's suite asserts. */
export interface MathCase {
  fn: string;
  gold: string;
  pred: string;
  expected: number;
  match: ("latex" | "expr")[];
  precision: number;
  strict: boolean;
  allowSetRelation: boolean;
  boxedPriority: number;
}

/** The case files, one per upstream test file. */
export const CASE_FILES = ["all", "boxed", "numina_cases", "open_thoughts", "strict", "yujianll"] as const;

/** Loads one case file. */
export async function loadCases(name: string): Promise<MathCase[]> {
  return (await Bun.file(new URL(`./cases/${name}.json`, import.meta.url)).json()) as MathCase[];
}

/** Our verdict for a case, with the same parse/verify settings upstream's helper uses. */
export function runCase(c: MathCase): number {
  const opts = { targets: c.match, boxedPriority: c.boxedPriority };
  const g = parse(c.gold, opts);
  const p = parse(c.pred, opts);
  return verify(g, p, { floatRounding: c.precision, strict: c.strict, allowSetRelation: c.allowSetRelation }) ? 1 : 0;
}
