/**
 * IMO ProofBench pieces (upstream resources_servers/imo_proofbench_judge, NeMo Skills' imo-proofbench):
 * thinking traces stripped, the rightmost \boxed{…}, the judge's verdict in Skills' three-format
 * priority (Judgement: Yes/No, \boxed{Correct/Incorrect}, <points>N out of 7</points> with N ≥ 6), and
 * Skills' math_equal (MCQ letter, literal after normalisation, then math-verify on LaTeX).
 */
import { normalizeLatex } from "../math/normalize.ts";
import { parse, verify } from "../math/verify.ts";
import { PY_SPACE_CLASS, pyStrip } from "../../util/py-str.ts";

/** Points at or above which a proof counts as correct. */
export const PASS_THRESHOLD = 6;

/** Remove <think>/<thinking> blocks and anything up to an unpaired closing tag (a truncated trace), then strip. */
export function stripThinkingTraces(text: string): string {
  let t = text.replace(/<think>[\s\S]*?<\/think>/g, "").replace(/<thinking>[\s\S]*?<\/thinking>/g, "");
  t = t.replace(/^[\s\S]*?<\/think>/, "").replace(/^[\s\S]*?<\/thinking>/, "");
  return pyStrip(t);
}

/** The content of the last balanced `\boxed{…}`; null when absent or unbalanced. */
export function searchBoxedLast(text: string | null | undefined): string | null {
  if (!text || !text.includes("\\boxed")) return null;
  const idx = text.lastIndexOf("\\boxed");
  let open = 0;
  for (let i = idx; i < text.length; i++) {
    if (text[i] === "{") open++;
    else if (text[i] === "}" && --open === 0) {
      const block = text.slice(idx, i + 1);
      return block.startsWith("\\boxed{") ? block.slice("\\boxed{".length, -1) : null;
    }
  }
  return null;
}

const S = `[${PY_SPACE_CLASS}]`;
const POINTS = new RegExp(`<points>${S}*(\\d+)${S}*out of 7${S}*</points>`, "i");
const PREFIX = new RegExp(`\\*{0,2}Judgement\\*{0,2}${S}*:`, "i");
const BOXED_VERDICT = new RegExp(`\\\\boxed${S}*\\{${S}*(Correct|Incorrect)${S}*\\}`, "i");

/** N of the first `<points>N out of 7</points>`; null when there is none. */
export function parsePoints(text: string | null | undefined): number | null {
  if (!text) return null;
  const m = POINTS.exec(text);
  return m ? Number.parseInt(m[1]!, 10) : null;
}

/** The judge's verdict: Judgement line first, then boxed Correct/Incorrect, then points ≥ 6; null when none. */
export function parseJudgementVerdict(text: string | null | undefined): boolean | null {
  if (!text) return null;
  const m = PREFIX.exec(text);
  if (m) {
    const v = pyStrip(pyStrip(text.slice(m.index + m[0].length)).replace(/^\*+/, "")).toLowerCase();
    if (v.startsWith("yes")) return true;
    if (v.startsWith("no")) return false;
  }
  const b = BOXED_VERDICT.exec(text);
  if (b) return b[1]!.toLowerCase() === "correct";
  const p = parsePoints(text);
  return p === null ? null : p >= PASS_THRESHOLD;
}

const MCQ = /^[A-J]$/;
const LATEX_ENV = /\$[\s\S]*\$|\\\([\s\S]*\\\)|\\\[[\s\S]*\\\]|\\boxed\{/;
const TEXT_LITERAL = /^[a-zA-Z ,]+$/;

// Skills' _additional_normalization: a bare percentage loses its sign, trailing dots/backslashes go.
function additional(expr: string): string {
  const m = /^(\d+\.?\d*)(?:\\%|%)$/.exec(expr);
  return (m ? m[1]! : expr).replace(/[.\\]+$/, "");
}

// The letter a predicted MCQ answer names: the whole answer once \boxed/\text/$ and brackets are peeled off.
function mcqLetter(s: string): string | null {
  let t = pyStrip(s);
  for (let prev = ""; prev !== t; ) {
    prev = t;
    t = pyStrip(t.replace(/^\$+|\$+$/g, "").replace(/^\\(?:boxed|text|textbf|mathrm)\{([\s\S]*)\}$/, "$1").replace(/^\(([\s\S]*)\)$/, "$1"));
  }
  return MCQ.test(t) ? t : null;
}

/** Skills' math_equal: whether the predicted answer equals the gold (false on empty or unparsable input). */
export function mathEqual(gtAnswer: unknown, predicted: string | null | undefined): boolean {
  if (predicted === null || predicted === undefined || predicted === "") return false;
  let gt = String(gtAnswer);
  let pred = predicted;
  if (MCQ.test(pyStrip(gt)) && mcqLetter(pred) === pyStrip(gt)) return true;
  gt = additional(gt);
  pred = additional(pred);
  const ng = normalizeLatex(gt, "all");
  const np = normalizeLatex(pred, "all");
  if (ng.replaceAll(" ", "") === np.replaceAll(" ", "")) return true;
  if (TEXT_LITERAL.test(ng) && TEXT_LITERAL.test(np)) return false;
  const g = parse(LATEX_ENV.test(gt) ? gt : `$${gt}$`, { targets: ["latex"] });
  const p = parse(LATEX_ENV.test(pred) ? pred : `$${pred}$`, { targets: ["latex"] });
  return verify(g, p);
}
