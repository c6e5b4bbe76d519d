/**
 * math_with_judge's library check (upstream `_run_math_verify` over math-verify's `math_metric`): the
 * gold is boxed and read with the LaTeX target, the generation with the plain-expression and LaTeX
 * targets; the reward is 1 when any pair verifies. `extracted_answer` is the SymPy-style string of the
 * first predicted candidate whose string equals a gold candidate's, else of the first one.
 */
import type { Candidate } from "./extract.ts";
import { sympyStr } from "./print.ts";
import { parse, verify, verifyPair } from "./verify.ts";

/** The library's verdict for one rollout. */
export interface LibraryVerdict {
  reward: number;
  extracted_answer: string | null;
}

/** Strips one outer `\( … \)` and then one outer `$ … $` from an expected answer (as upstream). */
export function stripMathDelimiters(s: string): string {
  let t = s.trim();
  if (t.startsWith("\\(") && t.endsWith("\\)")) t = t.slice(2, -2).trim();
  if (t.startsWith("$") && t.endsWith("$") && t.length > 1) t = t.slice(1, -1).trim();
  return t;
}

const candidateStr = (c: Candidate) => (typeof c === "string" ? c : sympyStr(c));

/** Scores one generation against the expected answer; never throws. */
export function libraryVerify(expectedAnswer: string, generated: string): LibraryVerdict {
  const gold = parse(`\\boxed{${stripMathDelimiters(expectedAnswer)}}`, { targets: ["latex"] });
  // Upstream raises (and scores 0 with no extracted answer) when the gold yields nothing.
  if (gold.length === 0) return { reward: 0.0, extracted_answer: null };
  const pred = parse(generated, { targets: ["expr", "latex"] });
  const reward = verify(gold, pred) ? 1.0 : 0.0;
  const goldStrs = gold.map(candidateStr);
  const predStrs = pred.map(candidateStr);
  const match = predStrs.find((p) => goldStrs.some((g) => verifyPair(g, p)));
  return { reward, extracted_answer: match ?? predStrs[0] ?? null };
}
