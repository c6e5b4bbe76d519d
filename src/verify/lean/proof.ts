/**
 * Lean 4 proof assembly and compiler-result reading for math_formal_lean (pure): pull the Lean code
 * out of a model answer, drop a restated theorem header, glue header + formal statement + proof,
 * classify the sandbox's answer, and turn compiler errors into self-correction feedback.
 * Python semantics kept on purpose: `\s` and strip are Python whitespace, `\b` is Unicode-aware,
 * lines split like `str.splitlines()`, columns count code points, templates are `str.format`.
 */
import { PY_SPACE_CLASS, pyStrip } from "../../util/py-str.ts";
import { pyFormat } from "../../util/py-format.ts";

/** How a generation becomes the compiled file (upstream's ProofBuildConfig). */
export interface ProofBuildOptions {
  finalAnswerKey?: string | null;
  extractCodeMode?: "first" | "last" | string;
  restateFormalStatement?: boolean;
  stripTheoremFromProof?: boolean;
}

/** The sandbox's `/execute` answer fields the verifier reads. */
export interface CompilerOutput {
  process_status?: string;
  stdout?: string;
  stderr?: string;
}

const S = `[${PY_SPACE_CLASS}]`;
const LEAD = new RegExp(`^${S}+`, "u");
const TRAIL = new RegExp(`${S}+$`, "u");
// Python's `\w` for the Unicode-aware word boundary of `re` on str patterns.
const WORD = "[\\p{L}\\p{N}\\p{Mn}\\p{Pc}]";

/** `s.lstrip()`. */
const lstrip = (s: string) => s.replace(LEAD, "");
/** `s.rstrip()`. */
const rstrip = (s: string) => s.replace(TRAIL, "");

/** `str.splitlines()`: every Python line boundary, `\r\n` as one, no trailing empty line. */
export function splitLines(s: string): string[] {
  if (s === "") return [];
  const parts = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/u);
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The first or last fenced block tagged with the first language in `languages` that has one; "" when none. */
export function extractCodeBlock(text: string, languages: string[] = [""], mode: string = "last"): string {
  for (const lang of languages) {
    const re = new RegExp(`\`\`\`${escapeRe(lang)}${S}*\\n?([\\s\\S]*?)\\n?\`\`\``, "gu");
    const matches = [...text.matchAll(re)].map((m) => m[1]!);
    if (matches.length > 0) return pyStrip(mode === "first" ? matches[0]! : matches[matches.length - 1]!);
  }
  return "";
}

const LANGS = ["lean4", "lean3", "lean", ""];
const FENCE_EDGES = new RegExp(`^${S}*\`\`\`(?:lean4|lean3|lean)?${S}*|${S}*\`\`\`${S}*$`, "gu");

/** The Lean code of a generation: after `finalAnswerKey` when present, a fenced block, else the text minus stray fences. */
export function cleanFormalGeneration(generation: string, finalAnswerKey?: string | null, mode: string = "last"): string {
  let g = generation;
  if (finalAnswerKey && g.includes(finalAnswerKey)) g = pyStrip(g.slice(g.indexOf(finalAnswerKey) + finalAnswerKey.length));
  const code = extractCodeBlock(g, LANGS, mode);
  if (code) return code;
  return pyStrip(g.replace(FENCE_EDGES, ""));
}

const HEADER_START = new RegExp(`^${S}*(?:theorem|example)(?!${WORD})`, "u");

/** The proof body of a `theorem`/`example`: what follows the first `:=` from the header on, a leading `by` dropped. */
export function extractProofOnly(leanCode: string): string {
  const lines = splitLines(pyStrip(leanCode));
  if (lines.length === 0) return "";
  const start = lines.findIndex((l) => HEADER_START.test(l));
  if (start < 0) return pyStrip(leanCode);
  let end = -1;
  for (let i = start; i < lines.length; i++) {
    if (lines[i]!.includes(":=")) {
      end = i;
      break;
    }
  }
  if (end < 0) return pyStrip(leanCode);
  const line = lines[end]!;
  const first = pyStrip(line.slice(line.indexOf(":=") + 2));
  const proof = first ? [first, ...lines.slice(end + 1)] : lines.slice(end + 1);
  if (proof.length > 0) {
    const head = lstrip(proof[0]!);
    if (head === "by") proof.shift();
    else if (head.startsWith("by ")) proof[0] = head.slice(3);
  }
  return rstrip(proof.join("\n"));
}

/** The complete Lean file sent to the sandbox: header + (formal statement, unless not restated) + proof. */
export function buildLean4Proof(generation: string, task: { header?: string; formal_statement?: string }, o: ProofBuildOptions = {}): string {
  const cleaned = cleanFormalGeneration(generation, o.finalAnswerKey, o.extractCodeMode ?? "last");
  const statement = (o.restateFormalStatement ?? true) ? (task.formal_statement ?? "") : "";
  const proof = (o.stripTheoremFromProof ?? true) ? extractProofOnly(cleaned) : cleaned;
  return (task.header ?? "") + statement + proof;
}

const SORRY = new RegExp(`(?<!${WORD})sorry(?!${WORD})`, "u");

/** `completed` (reward 1), `timeout`, `has_sorry`, or the sandbox's own non-completed status. */
export function determineProofStatus(out: CompilerOutput): string {
  const status = out.process_status ?? "unknown";
  if (status === "timeout") return "timeout";
  if (status !== "completed") return status;
  const combined = `${(out.stdout ?? "").toLowerCase()}\n${(out.stderr ?? "").toLowerCase()}`;
  return SORRY.test(combined) ? "has_sorry" : "completed";
}

/** One parsed compiler error (1-based line, 0-based code-point column). */
export interface LeanError {
  pos: { line: number; column: number };
  endPos: { line: number; column: number } | null;
  data: string;
}

const ERROR_BLOCK = /(\/lean4\/my_project\/[\s\S]*?:\d+:\d+: error:[\s\S]*?)(?=\n\/lean4\/my_project|$)/g;

/** The `error:` entries of a sandbox log (paths under /lean4/my_project), in order. */
export function parseLeanErrors(log: string): LeanError[] {
  const out: LeanError[] = [];
  for (const m of log.matchAll(ERROR_BLOCK)) {
    const block = m[1]!;
    const pos = /:(\d+):(\d+):/.exec(block);
    if (!pos) continue;
    const parts = block.split("error:");
    out.push({ pos: { line: Number(pos[1]), column: Number(pos[2]) }, endPos: null, data: parts.length > 1 ? pyStrip(parts[1]!) : block });
  }
  return out;
}

/** The errors (at most `limit`) shown with four lines of context and `<error>` markers around the spot. */
export function formatLeanErrors(code: string, errors: LeanError[], limit = 8): string {
  if (errors.length === 0) return "";
  const lines = code.split("\n").map((l) => [...l]);
  const text = (cps: string[] | undefined, a?: number, b?: number) => (cps ?? []).slice(a, b).join("");
  let s = "";
  errors.slice(0, limit).forEach((e, i) => {
    const sl = e.pos.line - 1;
    const sc = e.pos.column;
    // Out-of-range lines are skipped, as upstream does (it only logs a warning).
    if (sl >= lines.length || sl < 0) return;
    const el = e.endPos === null ? sl : e.endPos.line - 1;
    const ec = e.endPos === null ? lines[sl]!.length : e.endPos.column;
    s += `\nError ${i + 1}:\n\nCorresponding Code:\n\`\`\`lean4\n`;
    let c = "";
    for (let k = -4; k < 0; k++) if (sl + k >= 0 && sl + k < lines.length) c += `${text(lines[sl + k])}\n`;
    if (sl !== el) {
      c += `${text(lines[sl], 0, sc)}<error>${text(lines[sl], sc)}\n`;
      for (let j = sl + 1; j < Math.min(el, sl + 6); j++) if (j < lines.length) c += `${text(lines[j])}\n`;
      if (el > sl + 6) c += "... --[Truncated]-- ...\n";
      if (el < lines.length) c += `${text(lines[el], 0, ec)}</error>${text(lines[el], ec)}\n`;
    } else {
      c += `${text(lines[sl], 0, sc)}<error>${text(lines[sl], sc, ec)}</error>${text(lines[sl], ec)}\n`;
    }
    if (el + 1 < lines.length) c += `${text(lines[el + 1])}\n`;
    s += `${c}\n\`\`\`\n\nError Message: ${e.data}\n`;
  });
  if (errors.length > limit) s += `\n... [Omitted ${errors.length - limit} more errors] ...\n`;
  return s;
}

/** Feedback for the next attempt: a timeout note, the structured errors of stderr, else the raw output (cut at 2000). */
export function errorFeedback(out: CompilerOutput, predictedProof: string): string {
  if ((out.process_status ?? "unknown") === "timeout") return "The compilation timed out. Please simplify your proof or use more efficient tactics.";
  const errors = parseLeanErrors(out.stderr ?? "");
  if (errors.length > 0) return formatLeanErrors(predictedProof, errors);
  let combined = `${out.stdout ?? ""}\n${out.stderr ?? ""}`;
  if (pyStrip(combined)) {
    // Python slices code points.
    const cps = [...combined];
    if (cps.length > 2000) combined = `${cps.slice(0, 2000).join("")}\n... [Truncated]`;
    return `Compilation output:\n${combined}`;
  }
  return "The proof failed but no specific error message was captured.";
}

/** Upstream's Nemotron single-turn refinement prompt (a `str.format` template). */
export const REFINEMENT_PROMPT_TEMPLATE = `Here is a proof attempt for the following theorem in Lean4.

{proof_attempt}

The proof is not correct. Following is the compilation error message:

{error_message}

Your task is to fix this proof. Before producing the Lean 4 code to formally prove the given theorem, do a detailed analysis of the error message. Your final answer must be a single, complete Lean 4 markdown code block containing the completed theorem. Do NOT include any text or explanation before or after the code block. Begin with \`\`\`lean4 and end with \`\`\`.`;

/** The correction prompt: `template` (default upstream's) formatted with the attempt and the error message. */
export function correctionPrompt(proofAttempt: string, errorMessage: string, template?: string | null): string {
  return pyFormat(template || REFINEMENT_PROMPT_TEMPLATE, { proof_attempt: proofAttempt, error_message: errorMessage });
}
