/**
 * lc_niah: F1 of the node list on the answer's last line ("Final Answer: [a, b]") against the
 * expected JSON list, optionally penalised by how much the reasoning copies the input (difflib
 * ratio, 16-gram overlap, or longest common substring).
 */
import { longestMatchSize, sequenceRatio } from "../../util/py-sequence-matcher.ts";
import { PY_SPACE_CLASS, pyLen, pySplit, pyStrip } from "../../util/py-str.ts";
import { outputItems } from "../tool-calls.ts";

type Obj = Record<string, unknown>;

/** Which overlap signal is the penalty. */
export const OVERLAP_METRICS = ["seq_match", "ngram16", "lcs"] as const;
/** How the answer score and the overlap combine. */
export const OVERLAP_GRADINGS = ["base", "multiply", "minus"] as const;

const RUNS = new RegExp(`[${PY_SPACE_CLASS}]+`, "g");
const FINAL = new RegExp(`Final Answer:[${PY_SPACE_CLASS}]*\\[([^\\n]*)\\]`);
const normalize = (t: string) => pyStrip(t).toLowerCase().replace(RUNS, " ");

/** Every output_text of every message, concatenated. */
export function answerText(response: unknown): string {
  let s = "";
  for (const o of outputItems(response)) if (o.type === "message" && Array.isArray(o.content)) for (const c of o.content as Obj[]) if (c?.type === "output_text") s += String(c.text);
  return s;
}

/** Every reasoning item's summary text, concatenated. */
export function reasoningText(response: unknown): string {
  let s = "";
  for (const o of outputItems(response)) if (o.type === "reasoning" && Array.isArray(o.summary)) for (const x of o.summary as Obj[]) s += String(x?.text ?? "");
  return s;
}

/** The input's text: a string, or each item's string content / text blocks joined by newlines. */
export function inputText(input: unknown): string {
  if (typeof input === "string") return input;
  const parts: string[] = [];
  for (const item of Array.isArray(input) ? (input as Obj[]) : []) {
    const c = item?.content;
    if (typeof c === "string") parts.push(c);
    else if (Array.isArray(c)) for (const b of c as Obj[]) if (b && typeof b.text === "string" && b.text) parts.push(b.text);
  }
  return parts.join("\n");
}

/** The node list on the last non-empty line, or null when the line has no "Final Answer: […]". */
export function finalAnswerList(response: string): string[] | null {
  const lines = pyStrip(response).split("\n").filter((l) => pyStrip(l) !== "");
  if (lines.length === 0) return null;
  const m = FINAL.exec(lines[lines.length - 1]!);
  if (!m) return null;
  if (!pyStrip(m[1]!)) return [];
  return m[1]!.split(",").map((raw) => pyStrip(pyStrip(pyStrip(raw), "\"'"))).filter((x) => x !== "");
}

/** Python `set(json.loads(answer))` (unparsable or unhashable → empty). */
function expectedSet(answer: string): Set<unknown> {
  let v: unknown;
  try {
    v = JSON.parse(answer);
  } catch {
    return new Set();
  }
  if (typeof v === "string") return new Set([...v]);
  if (Array.isArray(v)) return v.some((x) => x !== null && typeof x === "object") ? new Set() : new Set(v);
  if (v && typeof v === "object") return new Set(Object.keys(v));
  return new Set();
}

/** F1 of the predicted node set against the expected one. */
export function answerScore(response: string, answer: string): number {
  const list = finalAnswerList(response);
  if (list === null) return 0.0;
  const pred = new Set<unknown>(list), exp = expectedSet(answer);
  if (exp.size === 0 && pred.size === 0) return 1.0;
  if (exp.size === 0 || pred.size === 0) return 0.0;
  let tp = 0;
  for (const p of pred) if (exp.has(p)) tp++;
  const precision = tp / pred.size, recall = tp / exp.size;
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0.0;
}

/** The three overlap signals between reasoning and input, each in [0, 1]. */
export function overlaps(reasoning: string, input: string): { overlap_seq_match: number; overlap_ngram16: number; overlap_lcs: number } {
  const r = normalize(reasoning);
  if (!r) return { overlap_seq_match: 0.0, overlap_ngram16: 0.0, overlap_lcs: 0.0 };
  const inp = normalize(input);
  const seq = sequenceRatio(r, inp);
  const rt = pySplit(r), it = pySplit(inp), n = 16;
  let ngram = 0.0;
  if (rt.length >= n) {
    const grams = (t: string[]) => new Set(Array.from({ length: Math.max(0, t.length - n + 1) }, (_, i) => t.slice(i, i + n).join("\u0000")));
    const rg = grams(rt), ig = grams(it);
    let common = 0;
    for (const g of rg) if (ig.has(g)) common++;
    ngram = rg.size ? common / rg.size : 0.0;
  }
  return { overlap_seq_match: seq, overlap_ngram16: ngram, overlap_lcs: longestMatchSize(r, inp, false) / pyLen(r) };
}

/** lc_niah's verify fields. */
export function gradeLcNiah(response: unknown, input: unknown, expected: string, metric: (typeof OVERLAP_METRICS)[number], grading: (typeof OVERLAP_GRADINGS)[number]): Obj {
  const score = answerScore(answerText(response), expected);
  const o = overlaps(reasoningText(response), inputText(input));
  const overlap = metric === "seq_match" ? o.overlap_seq_match : metric === "ngram16" ? o.overlap_ngram16 : o.overlap_lcs;
  const reward = grading === "base" ? score : grading === "multiply" ? score * (1.0 - overlap) : score - overlap;
  return { reward, answer_score: score, reasoning_overlap: overlap, ...o };
}
