/**
 * string_match: extract a free-form answer (last `\boxed{}`, last "Answer:" line, last line, or the
 * whole response) and grade it against the expected string with NeMo RL's cascade of normalisations
 * (NFKC, quotes, trailing punctuation, float value, thousands separators, LaTeX wrappers, list
 * separators, US state names, units) and a soft numeric grade (0.98 within 1 % relative error).
 */
import { pyFloat } from "../../util/py-int.ts";
import { PY_SPACE_CLASS, pyLen, pySplit, pyStrip } from "../../util/py-str.ts";

/** The extraction modes upstream accepts. */
export const EXTRACTION_MODES = ["boxed", "final_answer", "last_line", "full_response"] as const;
/** One extraction mode. */
export type ExtractionMode = (typeof EXTRACTION_MODES)[number];

const S = `[${PY_SPACE_CLASS}]`;
const TEXT_WRAP = new RegExp(String.raw`^\\text\{${S}*([\s\S]*?)${S}*\}$`, "u");
// Python's `.` stops only at \n (JS's also at \r, \u2028, \u2029).
const FINAL_ANSWER = new RegExp(String.raw`(?:final${S}+answer|answer)${S}*[:：]${S}*([^\n]+)`, "giu");
const TRAILING_DOT = new RegExp(String.raw`\.${S}*$`, "u");
const LINE_BREAKS = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

function joinWords(s: string): string {
  return pySplit(s).join(" ");
}

function rstripChars(s: string, chars: string): string {
  let end = s.length;
  while (end > 0 && chars.includes(s[end - 1]!)) end--;
  return s.slice(0, end);
}

function stripTextWrappers(v: string): string {
  for (let m = TEXT_WRAP.exec(v); m; m = TEXT_WRAP.exec(v)) v = m[1]!;
  return v;
}

/** The content of the last balanced `\boxed{…}` (its `\text{}` wrappers removed), or null. */
export function extractBoxed(text: string): string | null {
  const starts: number[] = [];
  for (let i = text.indexOf("\\boxed{"); i >= 0; i = text.indexOf("\\boxed{", i + 1)) starts.push(i + 7);
  for (const start of starts.reverse()) {
    let depth = 1;
    for (let i = start; i < text.length; i++) {
      if (text[i] === "{") depth++;
      else if (text[i] === "}") depth--;
      if (depth === 0) return pyStrip(stripTextWrappers(pyStrip(text.slice(start, i))));
    }
  }
  return null;
}

function extractFinalAnswer(text: string): string | null {
  const all = [...text.matchAll(FINAL_ANSWER)];
  if (all.length === 0) return null;
  const raw = pyStrip(all[all.length - 1]![1]!);
  return rstripChars(pyStrip(raw.split(TRAILING_DOT)[0]!), ".");
}

function extractLastLine(text: string): string | null {
  const lines = text.split(LINE_BREAKS);
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = pyStrip(lines[i]!);
    if (l) return l;
  }
  return null;
}

/** The answer a mode extracts, or null. */
export function extractAnswer(text: string, mode: ExtractionMode): string | null {
  switch (mode) {
    case "boxed":
      return extractBoxed(text);
    case "final_answer":
      return extractFinalAnswer(text) ?? extractBoxed(text);
    case "last_line":
      return extractLastLine(text);
    case "full_response":
      return pyStrip(text) || null;
  }
}

function stripOuterQuotes(t: string): string {
  return t.length >= 2 && t[0] === t[t.length - 1] && (t[0] === '"' || t[0] === "'") ? t.slice(1, -1) : t;
}

function stripTrailingPunct(t: string): string {
  return rstripChars(t, ".!?") || t;
}

/** Python `str(float(x))` equality: both parse and the values print alike (nan == nan, -0.0 ≠ 0.0). */
function sameFloat(a: string, b: string): boolean {
  const clean = (t: string) => pyStrip(t.replaceAll("\\%", "").replaceAll("\\$", "").replaceAll("$", ""));
  let x: number, y: number;
  try {
    x = pyFloat(clean(a));
    y = pyFloat(clean(b));
  } catch {
    return false;
  }
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
  return Object.is(x, y);
}

function normNumbers(t: string): string {
  return t.replace(/(\p{Nd}+),(\p{Nd}+)/gu, "$1$2").replaceAll("\\%", "%");
}

function normLists(t: string): string {
  const n = pyLen(t);
  const r = t.replaceAll(",", " ").replaceAll(";", " ").replaceAll("and", " ").replaceAll("or", " ");
  if (pyLen(r) < 0.9 * n) return t;
  return joinWords(r);
}

const LATEX_COMMANDS = ["\\boxed", "\\text", "\\textbf", "\\textit", "\\texttt", "\\mathrm", "\\mathbf", "\\mathit", "\\mathsf", "\\mathbb", "\\mathcal", "\\emph", "\\url"];

function removeCommand(cmd: string, text: string): string {
  const open = `${cmd}{`;
  while (text.includes(open)) {
    const at = text.indexOf(open);
    const prefix = text.slice(0, at), suffix = text.slice(at + open.length);
    let depth = 1, i = 0;
    for (; i < suffix.length; i++) {
      if (suffix[i] === "{") depth++;
      else if (suffix[i] === "}") depth--;
      if (depth === 0) break;
    }
    text = depth === 0 ? prefix + suffix.slice(0, i) + suffix.slice(i + 1) : prefix + suffix;
  }
  return text;
}

function normLatex(t: string): string {
  for (const c of LATEX_COMMANDS) t = removeCommand(c, t);
  for (const tok of ["\\(", "\\)", "\\[", "\\]", "$"]) t = t.replaceAll(tok, "");
  return joinWords(t);
}

const STATES: [string, string][] = Object.entries({
  "district of columbia": "DC", "new hampshire": "NH", "new jersey": "NJ", "new mexico": "NM", "new york": "NY", "north carolina": "NC",
  "north dakota": "ND", "rhode island": "RI", "south carolina": "SC", "south dakota": "SD", "west virginia": "WV", alabama: "AL", alaska: "AK",
  arizona: "AZ", arkansas: "AR", california: "CA", colorado: "CO", connecticut: "CT", delaware: "DE", florida: "FL", georgia: "GA", hawaii: "HI",
  idaho: "ID", illinois: "IL", indiana: "IN", iowa: "IA", kansas: "KS", kentucky: "KY", louisiana: "LA", maine: "ME", maryland: "MD",
  massachusetts: "MA", michigan: "MI", minnesota: "MN", mississippi: "MS", missouri: "MO", montana: "MT", nebraska: "NE", nevada: "NV",
  ohio: "OH", oklahoma: "OK", oregon: "OR", pennsylvania: "PA", tennessee: "TN", texas: "TX", utah: "UT", vermont: "VT", virginia: "VA",
  washington: "WA", wisconsin: "WI", wyoming: "WY",
});

function normStates(t: string): string {
  for (const [name, abbr] of STATES) t = t.replaceAll(name, abbr);
  return normLists(t).toLowerCase();
}

const UNICODE_MATH: [string, string][] = [["°", "^\\circ"], ["²", "^2"], ["³", "^3"], ["⁴", "^4"], ["⁵", "^5"], ["⁶", "^6"], ["⁷", "^7"], ["⁸", "^8"], ["⁹", "^9"], ["√", "\\sqrt"], ["﹣", "-"], ["﹢", "+"], ["﹦", "="], ["﹤", "<"], ["﹥", ">"], ["：", ":"], ["π", "\\pi"]];
const UNITS = /\^\{?\\circ\}?|\\circ|°|cm[²³]?|mm|km|m[²³]?|kg/g;

function normUnicodeMath(t: string): string {
  for (const [a, b] of UNICODE_MATH) t = t.replaceAll(a, b);
  return t;
}

function stripNumeric(t: string): string {
  for (const ch of "$£€%,") t = t.replaceAll(ch, "");
  t = normUnicodeMath(t).replace(UNITS, "");
  return pyStrip(t.replaceAll("\\%", "").replaceAll("\\$", ""));
}

/** (1 − relative error)², floored at 0; 0 when either side is not a number. */
export function softNumericGrade(gt: string, pred: string): number {
  let p: number, g: number;
  try {
    p = pyFloat(stripNumeric(pred));
    g = pyFloat(stripNumeric(gt));
  } catch {
    return 0.0;
  }
  const rel = Math.abs(p - g) / Math.max(Math.abs(g), 1e-9);
  // Python's max(0.0, nan) keeps 0.0.
  const base = 1.0 - rel > 0.0 ? 1.0 - rel : 0.0;
  return base ** 2;
}

/** NeMo RL's string-match grade of a prediction against the ground truth: 1, 0.98 or 0. */
export function gradeStringMatch(gtAnswer: string, predAnswer: string): number {
  let pred = stripTrailingPunct(stripOuterQuotes(predAnswer.normalize("NFKC")).toLowerCase());
  let gt = stripTrailingPunct(stripOuterQuotes(gtAnswer.normalize("NFKC")).toLowerCase());
  if (pred === gt || sameFloat(pred, gt)) return 1.0;
  for (const f of [normNumbers, normLatex, normLists, normStates]) if (f(pred) === f(gt)) return 1.0;
  if (softNumericGrade(gt, pred) > 0.98) return 0.98;
  pred = pyStrip(normUnicodeMath(normLatex(pred)).replace(UNITS, ""));
  gt = pyStrip(normUnicodeMath(normLatex(gt)).replace(UNITS, ""));
  if (pred === gt) return 1.0;
  return softNumericGrade(gt, pred) > 0.98 ? 0.98 : 0.0;
}

/** string_match's verify fields for one response text. */
export function gradeStringMatchRow(text: string, expected: string, mode: ExtractionMode, caseSensitive: boolean): { reward: number; expected_answer: string; extracted_answer: string | null } {
  const extracted = extractAnswer(text, mode);
  let reward = 0.0;
  if (extracted !== null && expected) reward = caseSensitive ? (pyStrip(extracted) === pyStrip(expected) ? 1.0 : 0.0) : gradeStringMatch(expected, extracted);
  return { reward, expected_answer: expected, extracted_answer: extracted };
}
