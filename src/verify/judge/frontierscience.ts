/**
 * FrontierScience grading (upstream `frontierscience_judge`): `Judgement: YES|NO` (the last one
 * wins) in olympiad mode, a rubric score (`Score: 7/10`, `7 out of 10`,
 * `FINAL_SCORE[7] / MAX_POSSIBLE_SCORE[10]`, `Score: 7`; the last score line wins) in research mode.
 */
import { pyRegex } from "../../util/py-regex.ts";
import { passMajorityMetrics, type VerifyResponse } from "../aggregate-metrics.ts";
import { subsetMetrics } from "../sample-metrics.ts";

const JUDGEMENT = pyRegex("Judgement:\\s*(YES|NO)", { ignoreCase: true });
const NUM = "([+-]?(?:\\d+(?:\\.\\d+)?|\\.\\d+))";
const BRACKETED = pyRegex(`(?:final[_\\s-]*)?score\\s*\\[\\s*${NUM}\\s*\\]\\s*/\\s*(?:max[_\\s-]*possible[_\\s-]*)?score\\s*\\[\\s*${NUM}\\s*\\]`, { ignoreCase: true });
const DENOMINATED = pyRegex(`${NUM}\\s*(?:/|out\\s+of)\\s*${NUM}`, { ignoreCase: true });
const LABELED = pyRegex(`(?:final\\s+)?score\\s*[:=]\\s*${NUM}`, { ignoreCase: true });

/** `YES`, `NO`, or null when no `Judgement:` marker is present. */
export function parseJudgement(text: string): "YES" | "NO" | null {
  if (!text) return null;
  const all = JUDGEMENT.finditer(text);
  return all.length === 0 ? null : (all[all.length - 1]![1]!.toUpperCase() as "YES" | "NO");
}

// Python's float() of a `\d` match: any Unicode decimal digit reads as its value.
function pyFloatDigits(s: string): number {
  return Number(s.replace(/\p{Nd}/gu, (d) => String(digitValue(d))));
}
// Decimal digits come in runs of ten starting at zero (a few runs are adjacent), so a digit's value
// is its distance from the start of its run, modulo 10.
function digitValue(d: string): number {
  const cp = d.codePointAt(0)!;
  let start = cp;
  while (start > 0 && /\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/** Python `str.splitlines()` (every line boundary Python knows, no trailing empty line). */
export function pySplitlines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The rubric score on `maxScore` points, or null when no score line parses (a zero denominator is null). */
export function parseRubricScore(text: string, maxScore = 10.0): number | null {
  if (!text) return null;
  const lines = pySplitlines(text);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.toLowerCase().includes("score")) continue;
    for (const re of [BRACKETED, DENOMINATED]) {
      const m = re.search(line);
      if (!m) continue;
      const num = pyFloatDigits(m[1]!);
      const den = pyFloatDigits(m[2]!);
      if (den <= 0) return null;
      return (num / den) * maxScore;
    }
    const m = LABELED.search(line);
    if (m) return pyFloatDigits(m[1]!);
  }
  return null;
}

/** Scores for pass@k: accuracy (the reward), plus rubric_score when the row has one. */
export function frontierScores(r: VerifyResponse): Record<string, number> {
  const s: Record<string, number> = { accuracy: Number(r.reward ?? 0) };
  if (r.rubric_score_normalized !== null && r.rubric_score_normalized !== undefined) s.rubric_score = Number(r.rubric_score_normalized);
  return s;
}

/** Upstream compute_metrics: pass@k / majority@k on extracted_answer plus per-subject subsets. */
export function frontierscienceMetrics(tasks: VerifyResponse[][]): Record<string, unknown> {
  return { ...passMajorityMetrics(tasks, frontierScores, "extracted_answer"), ...subsetMetrics(tasks, "subject", frontierScores, "extracted_answer") };
}
