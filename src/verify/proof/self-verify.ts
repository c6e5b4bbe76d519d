/**
 * Proof scoring with a verifier judge (upstream resources_servers/proof_judge and proof_verification):
 * reading the policy's proof / self-evaluation / predicted score, the 0, ½, 1 boxed scores the
 * verifier and meta-verifier write, the length limits, and the reward formulas. Pure: the judge
 * calls are the component's.
 */
import { pyFloat } from "../../util/py-int.ts";
import { pyStrip } from "../../util/py-str.ts";

/** Longest proof (in code points) either server sends to a judge. */
export const MAX_PROOF_CHARS = 40_000;
/** Longest self-evaluation / verification text (in code points). */
export const MAX_VERIFICATION_CHARS = 20_000;

const SOLUTION_HEADER = "## Solution";
const SELF_EVAL_HEADER = "## Self Evaluation";
const BOXED = "\\boxed{";

/** Details of one verdict (upstream logs them; the verify answer carries only the reward). */
export type Details = Record<string, unknown>;

/** The last `\boxed{…}`'s content (up to the first `}`) as 0, 0.5 or 1; null for anything else. */
export function extractBoxedScore(text: string): number | null {
  const start = text.lastIndexOf(BOXED);
  if (start < 0) return null;
  const from = start + BOXED.length;
  const end = text.indexOf("}", from);
  if (end < 0) return null;
  let v: number;
  try {
    v = pyFloat(text.slice(from, end));
  } catch {
    return null;
  }
  return v === 0 || v === 0.5 || v === 1 ? v : null;
}

/** Python's `len()` of a str: code points, not UTF-16 units. */
function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A zero-reward detail record when `text` is longer than `max` code points, else null. */
export function lengthProblem(text: string, name: string, max: number): Details | null {
  const length = pyLen(text);
  if (length <= max) return null;
  return { r_format: 0.0, reason: `${name}_too_long`, [`${name}_length`]: length, [`${name}_max_length`]: max, judge_generated_tokens: 0 };
}

/** The text after the last `</think>`, stripped (the whole text when there is none). */
function afterThinking(text: string): string {
  const i = text.lastIndexOf("</think>");
  return pyStrip(i < 0 ? text : text.slice(i + "</think>".length));
}

/** A proof_judge answer: proof, self-evaluation and its predicted score, or the reason it is malformed. */
export type ProofAnswer = { proof: string; selfEval: string; predicted: number } | { reason: string };

/** Read `## Solution … ## Self Evaluation … \boxed{s}` after the reasoning. */
export function parseProofAnswer(text: string, assertThinkEnd: boolean): ProofAnswer {
  if (assertThinkEnd && !text.includes("</think>")) return { reason: "missing_think_end" };
  const body = afterThinking(text);
  const s = body.indexOf(SOLUTION_HEADER);
  if (s < 0) return { reason: "missing_solution_header" };
  const after = body.slice(s + SOLUTION_HEADER.length);
  const e = after.indexOf(SELF_EVAL_HEADER);
  if (e < 0) return { reason: "missing_self_eval_header" };
  const proof = pyStrip(after.slice(0, e));
  const selfEval = pyStrip(after.slice(e + SELF_EVAL_HEADER.length));
  const predicted = extractBoxedScore(selfEval);
  if (predicted === null) return { reason: "invalid_boxed_score" };
  return { proof, selfEval, predicted };
}

/** A proof_verification answer: the verification text and its predicted score, or the reason it is malformed. */
export type VerificationAnswer = { verification: string; predicted: number } | { reason: string };

/** Read a verification after the reasoning: its last boxed score is the prediction. */
export function parseVerificationAnswer(text: string, assertThinkEnd: boolean): VerificationAnswer {
  if (assertThinkEnd && !text.includes("</think>")) return { reason: "missing_think_end" };
  const verification = afterThinking(text);
  const predicted = extractBoxedScore(verification);
  return predicted === null ? { reason: "invalid_boxed_score" } : { verification, predicted };
}

/**
 * proof_judge's reward: α·r_y, plus β·r_z when the meta-verifier runs, where r_y is the verifier's
 * score of the proof and r_z = (1 − |s′ − r_y|)·r_meta rewards a self-evaluation that agrees with it.
 */
export function proofReward(alpha: number, beta: number, predicted: number, verifierScore: number, metaScore: number | null): number {
  if (beta === 0 || metaScore === null) return alpha * verifierScore;
  return alpha * verifierScore + beta * (1.0 - Math.abs(predicted - verifierScore)) * metaScore;
}

/** proof_verification's reward: (1 − |predicted − gold|) · r_meta. */
export function verificationReward(predicted: number, gold: number, metaScore: number): number {
  return (1.0 - Math.abs(predicted - gold)) * metaScore;
}

/** Generated tokens of a judge answer (`usage.output_tokens`, else `usage.completion_tokens`, else 0). */
export function generatedTokens(answer: unknown): number {
  const usage = (answer as { usage?: Record<string, unknown> } | null)?.usage;
  if (!usage || typeof usage !== "object") return 0;
  for (const k of ["output_tokens", "completion_tokens"]) if (typeof usage[k] === "number") return Math.trunc(usage[k] as number);
  return 0;
}
