/**
 * Code fill-in-the-middle (HumanEval-Infilling) on the CodeRunner: Skills' extraction without stripping,
 * its prefix/suffix overlap trimming, and human-eval-infilling's check (prefix + completion + suffix +
 * test + `check(entry_point)` under one time limit; "passed" | "timed out" | "failed: <exception>").
 */
import { pyStrip } from "../../util/py-str.ts";
import type { CodeRunner } from "./runner.ts";

/** Skills' `preprocess_code(strip_whitespace=False)`: text after `</think>`, then the last ```python (else ```) block, unstripped. */
export function extractFimCode(completion: string, language = "python"): string {
  let text = completion.replaceAll("\r", "");
  const think = text.indexOf("</think>");
  if (think >= 0) text = text.slice(think + "</think>".length);
  const specific = "```" + language;
  let start = text.lastIndexOf(specific);
  let len = specific.length;
  if (start < 0) {
    start = text.lastIndexOf("```");
    len = 3;
  }
  if (start < 0) return "";
  const rest = text.slice(start + len);
  const end = rest.indexOf("```");
  return end < 0 ? "" : rest.slice(0, end);
}

/** Skills' `remove_overlap`: drop the longest span one side repeats of the other (whitespace-only spans without a newline skipped). */
export function removeOverlap(preceding: string, following: string, truncateFrom: "preceding" | "following" = "following"): string {
  // Python slices count code points; these strings are code, where the two agree except for astral characters.
  const p = [...preceding];
  const f = [...following];
  for (let i = Math.min(p.length, f.length); i > 0; i--) {
    const overlap = truncateFrom === "following" ? p.slice(-i).join("") : f.slice(0, i).join("");
    if (pyStrip(overlap) === "" && !overlap.includes("\n")) continue;
    if (truncateFrom === "following" && following.startsWith(overlap)) return f.slice(i).join("");
    if (truncateFrom === "preceding" && preceding.endsWith(overlap)) return p.slice(0, -i).join("");
  }
  return truncateFrom === "following" ? following : preceding;
}

/** Skills' FIM postprocess: one leading newline dropped, then prefix overlap at the head and suffix overlap at the tail. */
export function postprocessCompletion(raw: string, prefix: string, suffix: string): string {
  let c = raw.startsWith("\n") ? raw.slice(1) : raw;
  c = removeOverlap(prefix, c, "following");
  return removeOverlap(c, suffix, "preceding");
}

/** One infilling check: the problem's raw JSON line (Python parses it) and the completion; killed at timeout + 1 s as upstream joins. */
export async function fimCheck(runner: CodeRunner, problemRaw: string, completion: string, timeoutSecs: number): Promise<{ passed: boolean; result: string }> {
  const r = await runner.runRaw({ kind: "evalplus", mode: "fim", row: problemRaw, completion, timeout: timeoutSecs }, timeoutSecs + 1);
  const result = r.answer && typeof r.answer.result === "string" ? r.answer.result : "timed out";
  return { passed: result === "passed", result };
}
