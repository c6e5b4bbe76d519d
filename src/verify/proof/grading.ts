/**
 * IMO-GradingBench scoring (upstream resources_servers/imo_gradingbench, NeMo Skills' GradingBenchMetrics):
 * the policy model grades a proof and its last word is the grade (correct 7 > almost 6 > partial 1 >
 * incorrect 0); reward is the exact grade, plus high/low bucket agreement and the absolute score gap.
 */
import { pySplit, pyStrip } from "../../util/py-str.ts";

/** Points of each grade. */
export const GRADE_TO_SCORE: Record<string, number> = { correct: 7, almost: 6, partial: 1, incorrect: 0 };
const GRADE_TO_BINARY: Record<string, "high" | "low"> = { correct: "high", almost: "high", partial: "low", incorrect: "low" };
// Markdown and punctuation stripped from the last word (Python's [*_`.,;:!?()[\]{}]+).
const PUNCT = /[*_`.,;:!?()[\]{}]+/g;

/** The grade in the last whitespace-separated word, markdown and punctuation removed, lower-cased; null otherwise. */
export function extractGrade(text: unknown): string | null {
  if (typeof text !== "string" || text === "") return null;
  const words = pySplit(pyStrip(text));
  if (words.length === 0) return null;
  const last = words[words.length - 1]!.replace(PUNCT, "").toLowerCase();
  return Object.hasOwn(GRADE_TO_SCORE, last) ? last : null;
}

/** The gold grade lower-cased and stripped; null when it is not one of the four. */
export function normalizeExpectedGrade(text: unknown): string | null {
  if (typeof text !== "string" || text === "") return null;
  const g = pyStrip(text).toLowerCase();
  return Object.hasOwn(GRADE_TO_SCORE, g) ? g : null;
}

/** One graded rollout. */
export interface GradingVerdict {
  reward: number;
  extracted_grade: string | null;
  binary_match: boolean;
  score_diff: number | null;
}

/** Grade the model's text against the gold grade. */
export function gradeGrading(text: string, expected: unknown): GradingVerdict {
  const pred = extractGrade(text);
  const gold = normalizeExpectedGrade(expected);
  const exact = pred !== null && pred === gold;
  const binary = pred !== null && gold !== null && GRADE_TO_BINARY[pred] === GRADE_TO_BINARY[gold];
  const diff = pred !== null && gold !== null ? Math.abs(GRADE_TO_SCORE[pred]! - GRADE_TO_SCORE[gold]!) : null;
  return { reward: exact ? 1.0 : 0.0, extracted_grade: pred, binary_match: binary, score_diff: diff };
}

/** MAE over the valid (pred, gold) pairs: pooled per first-k, best per task, and the all-rollouts view. */
export function gradingMae(tasks: Record<string, unknown>[][], maxK: number): Record<string, number> {
  if (maxK === 0 || tasks.length === 0) return {};
  const out: Record<string, number> = {};
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  for (let k = 1; k <= maxK; k++) {
    const pooled: number[] = [];
    const best: number[] = [];
    for (const rollouts of tasks) {
      const errs = rollouts.slice(0, k).filter((r) => r.score_diff !== undefined && r.score_diff !== null).map((r) => Number(r.score_diff));
      pooled.push(...errs);
      if (errs.length > 0) best.push(Math.min(...errs));
    }
    if (pooled.length > 0) {
      out[`pass@1[avg-of-${k}]/mae`] = sum(pooled) / pooled.length;
      out[`pass@1[avg-of-${k}]/mae_count`] = pooled.length;
    }
    if (best.length > 0) {
      out[`pass@${k}/mae`] = sum(best) / best.length;
      out[`pass@${k}/mae_count`] = best.length;
    }
  }
  if (`pass@1[avg-of-${maxK}]/mae` in out) {
    out.mae = out[`pass@1[avg-of-${maxK}]/mae`]!;
    out.mae_count = out[`pass@1[avg-of-${maxK}]/mae_count`]!;
  }
  return out;
}
