/**
 * SimpleQA's three-tier judge protocol (upstream `simpleqa`, the SimpleQA-Verified grader): the
 * judge answers A (CORRECT), B (INCORRECT) or C (NOT_ATTEMPTED); anything unparseable is C.
 * Metrics add F1 and accuracy-given-attempted to every pass@k / majority@k aggregation.
 */
import { passMajorityMetrics, type VerifyResponse } from "../aggregate-metrics.ts";
import { pyStrip } from "../../util/py-str.ts";

const GRADES = ["A", "B", "C"] as const;

/** The grade letter: the first character, else the last line's first character, else the first of A/B/C found anywhere, else C. */
export function parseAbcGrade(judgeText: string): "A" | "B" | "C" {
  const cleaned = pyStrip(judgeText);
  const first = cleaned.slice(0, 1);
  if ((GRADES as readonly string[]).includes(first)) return first as "A" | "B" | "C";
  const nl = cleaned.lastIndexOf("\n");
  const lastLine = pyStrip(nl < 0 ? cleaned : cleaned.slice(nl + 1)).slice(0, 1);
  if ((GRADES as readonly string[]).includes(lastLine)) return lastLine as "A" | "B" | "C";
  for (const g of GRADES) if (cleaned.includes(g)) return g;
  return "C";
}

/** The verdict name of a grade. */
export function verdictOf(grade: "A" | "B" | "C"): "correct" | "incorrect" | "not_attempted" {
  return grade === "A" ? "correct" : grade === "B" ? "incorrect" : "not_attempted";
}

/** SimpleQA's compute_metrics: pass@k per tier voting on `extracted_answer`, plus `f1` and `accuracy_given_attempted`. */
export function simpleqaMetrics(tasks: VerifyResponse[][]): Record<string, unknown> {
  const metrics = passMajorityMetrics(
    tasks,
    (r) => {
      const v = r.verdict ?? "not_attempted";
      return { correct: v === "correct" ? 1 : 0, incorrect: v === "incorrect" ? 1 : 0, not_attempted: v === "not_attempted" ? 1 : 0 };
    },
    "extracted_answer",
  );
  for (const key of Object.keys(metrics)) {
    const at = key.lastIndexOf("/correct");
    if (at < 0) continue;
    const agg = key.slice(0, at);
    const inc = metrics[`${agg}/incorrect`];
    const cor = metrics[`${agg}/correct`];
    if (typeof inc !== "number" || typeof cor !== "number") continue;
    const correct = cor / 100;
    const attempted = correct + inc / 100;
    const agt = attempted > 0 ? correct / attempted : 0;
    const denom = agt + correct;
    metrics[`${agg}/f1`] = 100 * (denom > 0 ? (2 * agt * correct) / denom : 0);
    metrics[`${agg}/accuracy_given_attempted`] = 100 * agt;
  }
  return metrics;
}
