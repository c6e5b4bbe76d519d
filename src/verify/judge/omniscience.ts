/**
 * AA-Omniscience's four-tier judge protocol (upstream `omniscience`): A CORRECT, B INCORRECT,
 * C PARTIAL_ANSWER, D NOT_ATTEMPTED (unparseable → B); the candidate has its reasoning traces
 * stripped; metrics add the omniscience index and hallucination rate.
 */
import { passMajorityMetrics, type VerifyResponse } from "../aggregate-metrics.ts";
import { pyRegex } from "../../util/py-regex.ts";
import { pyStrip } from "../../util/py-str.ts";

const LETTERS = ["A", "B", "C", "D"] as const;
type Letter = (typeof LETTERS)[number];

/** The grade: the whole text, else the last line, else the first of A–D found anywhere, else B. */
export function parseAbcdGrade(judgeText: string): Letter {
  const cleaned = pyStrip(judgeText);
  if ((LETTERS as readonly string[]).includes(cleaned)) return cleaned as Letter;
  const nl = cleaned.lastIndexOf("\n");
  const lastLine = pyStrip(nl < 0 ? cleaned : cleaned.slice(nl + 1));
  if ((LETTERS as readonly string[]).includes(lastLine)) return lastLine as Letter;
  for (const l of LETTERS) if (cleaned.includes(l)) return l;
  return "B";
}

/** The verdict name of a grade. */
export function omniVerdict(g: Letter): "correct" | "incorrect" | "partial" | "not_attempted" {
  return g === "A" ? "correct" : g === "C" ? "partial" : g === "D" ? "not_attempted" : "incorrect";
}

const THINK = pyRegex("<think>.*?</think>", { dotAll: true });
const THINKING = pyRegex("<thinking>.*?</thinking>", { dotAll: true });
const LEAD_THINK = pyRegex("^.*?</think>", { dotAll: true });
const LEAD_THINKING = pyRegex("^.*?</thinking>", { dotAll: true });

/** Remove `<think>…</think>` / `<thinking>…</thinking>` blocks and an unopened leading trace, then strip. */
export function stripThinkingTraces(text: string): string {
  let t = text.replace(THINK.re, "").replace(THINKING.re, "");
  t = t.replace(new RegExp(LEAD_THINK.re.source, LEAD_THINK.re.flags.replace("g", "")), "");
  t = t.replace(new RegExp(LEAD_THINKING.re.source, LEAD_THINKING.re.flags.replace("g", "")), "");
  return pyStrip(t);
}

/** Omniscience's compute_metrics: pass@k of the four tiers (incorrect scored −1), the omni index and hallucination rate. */
export function omniscienceMetrics(tasks: VerifyResponse[][]): Record<string, unknown> {
  const m = passMajorityMetrics(
    tasks,
    (r) => {
      const v = r.verdict ?? "incorrect";
      return { judge_correct: v === "correct" ? 1 : 0, judge_incorrect: v === "incorrect" ? -1 : 0, judge_partially_correct: v === "partial" ? 1 : 0, judge_abstained: v === "not_attempted" ? 1 : 0 };
    },
    "extracted_answer",
  );
  const num = (k: string) => (typeof m[k] === "number" ? (m[k] as number) : 0);
  for (const key of Object.keys(m)) {
    const at = key.lastIndexOf("/judge_correct");
    if (at < 0) continue;
    const agg = key.slice(0, at);
    const correct = num(`${agg}/judge_correct`);
    const incorrect = -num(`${agg}/judge_incorrect`);
    const nonCorrect = incorrect + num(`${agg}/judge_partially_correct`) + num(`${agg}/judge_abstained`);
    m[`${agg}/judge_omni_index`] = correct - incorrect;
    m[`${agg}/judge_omni_hallucination`] = nonCorrect > 0 ? (100 * incorrect) / nonCorrect : 0;
  }
  return m;
}
