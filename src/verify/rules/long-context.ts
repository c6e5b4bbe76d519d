/**
 * Long-context verifiers ported from NeMo Skills' evaluators via upstream's servers: RULER (substring
 * match, all or any), RULER v2 (max(substring, 1 − WER) per reference, three aggregations, plus a
 * multiple-choice letter route), GraphWalks (F1 over `Final Answer: [...]` node sets) and MRCR (prefix
 * gate + difflib ratio). Python's str semantics (strip/split/len/lower) and `re` patterns are kept.
 */
import { pyRegex, translatePyRegex } from "../../util/py-regex.ts";
import { sequenceRatio } from "../../util/py-sequence-matcher.ts";
import { pyLen, pySplit, pyStrip } from "../../util/py-str.ts";

/** RULER `string_match_all_single`: the share of references found (case-insensitive) in the prediction. */
export function rulerMatchAll(pred: string, refs: string[]): number {
  const p = pred.toLowerCase();
  return refs.reduce((s, r) => s + (p.includes(r.toLowerCase()) ? 1.0 : 0.0), 0) / refs.length;
}

/** RULER `string_match_part_single`: 1 when any reference is found. */
export function rulerMatchPart(pred: string, refs: string[]): number {
  const p = pred.toLowerCase();
  return Math.max(...refs.map((r) => (p.includes(r.toLowerCase()) ? 1.0 : 0.0)));
}

/** Word-level Levenshtein distance (the `editdistance` package over token lists). */
function editDistance(a: string[], b: string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** RULER v2's kernel: max(substring, 1 − WER), both sides lowercased; WER is +inf for an empty reference. */
export function ruler2SoftMatch(pred: string, ref: string): number {
  const p = pred.toLowerCase();
  const r = ref.toLowerCase();
  const refWords = pySplit(r);
  const wer = refWords.length === 0 ? Infinity : editDistance(pySplit(p), refWords) / refWords.length;
  return Math.max(p.includes(r) ? 1.0 : 0.0, 1.0 - wer);
}

const DOCUMENT_HEADER = (() => {
  const t = translatePyRegex("Document \\d+:(?:.*\\n)+?\\n");
  return new RegExp(t.source, `g${t.flags}`);
})();
const NON_PRINTABLE = /[\x00-\x1f]/g;

/** RULER v2 match types. */
export const RULER2_MATCH_TYPES = ["all", "part", "2steps"] as const;

/** RULER v2 score of one prediction for `match_type` (all: mean; part: max after dropping `Document N:` blocks; 2steps: mean on the last paragraph). */
export function ruler2Score(matchType: (typeof RULER2_MATCH_TYPES)[number], pred: string, refs: string[]): number {
  if (refs.length === 0) return 0.0;
  if (matchType === "part") {
    const p = pred.replace(DOCUMENT_HEADER, "");
    return Math.max(...refs.map((r) => ruler2SoftMatch(p, r)));
  }
  const p = matchType === "2steps" ? pred.split("\n\n").at(-1)! : pred;
  return refs.reduce((s, r) => s + ruler2SoftMatch(p, r), 0) / refs.length;
}

/** `eval_ruler2.default_parse`: control characters become newlines, stripped. */
export function ruler2DefaultParse(prediction: string): string {
  return pyStrip(pyStrip(prediction).replace(NON_PRINTABLE, "\n"));
}

/** The argument of the last `\boxed{…}` (balanced braces), or null. */
export function searchBoxed(s: string): string | null {
  const idx = s.lastIndexOf("\\boxed");
  if (idx < 0) return null;
  let open = 0;
  let end = -1;
  for (let i = idx; i < s.length; i++) {
    if (s[i] === "{") open++;
    else if (s[i] === "}") {
      open--;
      if (open === 0) {
        end = i;
        break;
      }
    }
  }
  if (end < 0) return null;
  const v = s.slice(idx, end + 1);
  return v.startsWith("\\boxed{") && v.endsWith("}") ? v.slice("\\boxed{".length, -1) : null;
}

const FINAL_ANSWER = pyRegex("The final answer is (.+)$", { multiline: true });
const LETTER_TAIL = pyRegex("\\b[A-Z]\\b(?!.*\\b[A-Z]\\b)", { dotAll: true });
const ANSWER_COLON = pyRegex("(?i)[\\*\\_]{0,2}Answer[\\*\\_]{0,2}\\s*:[\\s\\*\\_]{0,2}\\s*([A-Z])(?![a-zA-Z0-9])");
const GLYPHS: [string, string][] = [["أ", " A"], ["ب", " B"], ["ج", " C"], ["د", " D"], ["অ", " A"], ["ব", " B"], ["ড", " C"], ["ঢ", " D"], ["Ａ", " A"], ["Ｂ", " B"], ["Ｃ", " C"], ["Ｄ", " D"]];

/** NeMo Skills' relaxed `extract_letter`: final-answer line, else \boxed{}, normalised; then a lone capital; else `Answer: X`. */
export function extractMcqLetter(text: string): string | null {
  const finals = FINAL_ANSWER.findall(text) as string[];
  let extracted: string | null = finals.length > 0 ? finals.at(-1)! : searchBoxed(text);
  if (extracted !== null) extracted = pyStrip(GLYPHS.reduce((s, [a, b]) => s.replaceAll(a, b), extracted));
  let letter: string | null = null;
  if (extracted !== null) {
    if (pyLen(extracted) === 1) letter = extracted.toUpperCase();
    else if (pyLen(extracted) > 1) {
      const tail = LETTER_TAIL.findall(extracted) as string[];
      if (tail.length > 0) letter = pyStrip(tail.at(-1)!).toUpperCase();
    }
  }
  if (letter === null) {
    const m = ANSWER_COLON.findall(text) as string[];
    if (m.length > 0) letter = pyStrip(m.at(-1)!).toUpperCase();
  }
  return letter;
}

const GRAPH_FINAL = pyRegex("Final Answer:\\s*\\[(.*)\\]");

/** GraphWalks: the nodes of `Final Answer: [a, b]` on the last non-empty line, and whether that line was missing. */
export function graphwalksParse(response: string): { nodes: string[]; parseFailed: boolean } {
  const lines = pyStrip(response).split("\n").filter((l) => pyStrip(l) !== "");
  if (lines.length === 0) return { nodes: [], parseFailed: true };
  const m = GRAPH_FINAL.search(lines.at(-1)!);
  if (!m) return { nodes: [], parseFailed: true };
  const content = m[1]!;
  if (pyStrip(content) === "") return { nodes: [], parseFailed: false };
  return { nodes: content.split(",").map((x) => pyStrip(x)).filter((x) => x !== ""), parseFailed: false };
}

/**
 * `set(json.loads(expected_answer))` as comparable keys: a list's items, a string's characters, an
 * object's keys; a number, invalid JSON or an unhashable item (list/object) gives the empty set, as the
 * TypeError/JSONDecodeError branch upstream does. Strings key as themselves, other scalars never equal a node.
 */
export function graphwalksExpected(expected: string): Set<string> {
  let v: unknown;
  try {
    v = JSON.parse(expected);
  } catch {
    return new Set();
  }
  const items: unknown[] = Array.isArray(v) ? v : typeof v === "string" ? [...v] : v && typeof v === "object" ? Object.keys(v) : [];
  if (items.some((x) => x !== null && typeof x === "object")) return new Set();
  return new Set(items.map((x) => (typeof x === "string" ? x : `\u0000${JSON.stringify(x)}`)));
}

/** F1 between node sets: 0 when parsing failed, 1 for two empty sets, 0 when one is empty. */
export function graphwalksF1(predicted: Set<string>, expected: Set<string>, parseFailed: boolean): number {
  if (parseFailed) return 0.0;
  if (expected.size === 0 && predicted.size === 0) return 1.0;
  if (predicted.size === 0 || expected.size === 0) return 0.0;
  let tp = 0;
  for (const p of predicted) if (expected.has(p)) tp++;
  if (tp === 0) return 0.0;
  const precision = tp / predicted.size;
  const recall = tp / expected.size;
  return (2 * precision * recall) / (precision + recall);
}

/** MRCR's official grade: 0 unless the response starts with the prefix; else difflib ratio of both without it. */
export function mrcrGrade(response: string, expected: string, prefix: string): number {
  if (!response.startsWith(prefix)) return 0.0;
  const strip = (s: string) => (s.startsWith(prefix) ? s.slice(prefix.length) : s);
  return sequenceRatio(strip(response), strip(expected));
}
