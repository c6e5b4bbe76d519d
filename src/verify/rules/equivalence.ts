/**
 * equivalence_rule: rule-based similarity of a response to the expected answer after normalising
 * (strip, lower-case, whitespace runs → one space): exact, difflib ratio, or ratio with a prefix bonus.
 */
import { sequenceRatio } from "../../util/py-sequence-matcher.ts";
import { PY_SPACE_CLASS, pyStrip } from "../../util/py-str.ts";

/** The grading rules upstream's config accepts. */
export const GRADING_RULES = ["seq_match", "weighted_seq_match", "exact"] as const;
/** One grading rule. */
export type GradingRule = (typeof GRADING_RULES)[number];

const RUNS = new RegExp(`[${PY_SPACE_CLASS}]+`, "g");

/** Python's `str.lower()` is full Unicode lower-casing, as JS `toLowerCase` (İ aside). */
function normalize(s: string): string {
  return pyStrip(s).toLowerCase().replace(RUNS, " ");
}

/** The score in [0, 1] of `response` against `answer` under `rule`. */
export function gradeEquivalence(response: string, answer: string, rule: GradingRule): number {
  const r = normalize(response), a = normalize(answer);
  if (rule === "exact") return r === a ? 1.0 : 0.0;
  const sim = sequenceRatio(r, a);
  if (rule === "seq_match") return sim;
  // Prefix bonus over the answer's first 10 code points (Python slices by code point).
  const prefix = [...a].slice(0, 10).join("");
  const head = [...r].slice(0, [...prefix].length).join("");
  return Math.max(0.0, Math.min(1.0, 0.85 * sim + 0.15 * sequenceRatio(head, prefix)));
}
