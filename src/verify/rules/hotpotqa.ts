/**
 * HotpotQA closed-book scoring (NeMo Skills' hotpotqa_closedbook, as upstream's hotpotqa_qa ports
 * it): SQuAD normalisation with EM / token F1 (yes/no/noanswer special cases), the answer pulled
 * from the last JSON object with an "answer" key, and alternative-aware substring matching against
 * surface forms of the gold answer (lenient and strict), plus the "unreliable gold" flag.
 */
import { PyFloat } from "../../util/py-json-typed.ts";
import { pyRegex } from "../../util/py-regex.ts";
import { PY_SPACE_CLASS, pyLen, pySplit, pyStrip } from "../../util/py-str.ts";

const PUNCT = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
const ARTICLES = pyRegex("\\b(a|an|the)\\b");

/** SQuAD / HotpotQA `normalize_answer`: lower, drop ASCII punctuation and articles, collapse whitespace. */
export function normalizeAnswer(s: string): string {
  const noPunc = [...s.toLowerCase()].filter((c) => !PUNCT.has(c)).join("");
  return pySplit(noPunc.replace(ARTICLES.re, " ")).join(" ");
}

/** Token-overlap `(f1, precision, recall)`; yes/no/noanswer must match exactly. */
export function answerF1(prediction: string, truth: string): [number, number, number] {
  const p = normalizeAnswer(prediction);
  const g = normalizeAnswer(truth);
  const special = ["yes", "no", "noanswer"];
  if ((special.includes(p) || special.includes(g)) && p !== g) return [0, 0, 0];
  const pt = pySplit(p);
  const gt = pySplit(g);
  const counts = new Map<string, number>();
  for (const t of gt) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  const used = new Map<string, number>();
  for (const t of pt) {
    const u = used.get(t) ?? 0;
    if (u < (counts.get(t) ?? 0)) {
      used.set(t, u + 1);
      same++;
    }
  }
  if (same === 0) return [0, 0, 0];
  const precision = same / pt.length;
  const recall = same / gt.length;
  return [(2 * precision * recall) / (precision + recall), precision, recall];
}

/** 1 when the normalised strings are equal. */
export function answerExactMatch(prediction: string, truth: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(truth) ? 1 : 0;
}

/** Python `str()` of a json.loads value (floats keep their `.0`). */
function pyStrTyped(v: unknown): string {
  if (typeof v === "string") return v;
  const repr = (x: unknown): string => {
    if (x === null) return "None";
    if (typeof x === "boolean") return x ? "True" : "False";
    if (x instanceof PyFloat) {
      const n = x.value;
      if (!Number.isFinite(n)) return Number.isNaN(n) ? "nan" : n > 0 ? "inf" : "-inf";
      if (Number.isInteger(n) && Math.abs(n) < 1e16) return `${n}.0`;
      const s = Math.abs(n) >= 1e16 && !String(n).includes("e") ? n.toExponential().replace(/\.?0+e/, "e") : String(n);
      return s.replace(/e([+-])(\d)$/, "e$10$2");
    }
    if (typeof x === "number" || typeof x === "bigint") return String(x);
    if (typeof x === "string") return x.includes("'") && !x.includes('"') ? `"${x.replaceAll("\\", "\\\\")}"` : `'${x.replaceAll("\\", "\\\\").replaceAll("'", "\\'").replaceAll("\n", "\\n")}'`;
    if (Array.isArray(x)) return `[${x.map(repr).join(", ")}]`;
    return `{${Object.entries(x as Record<string, unknown>).map(([k, y]) => `${repr(k)}: ${repr(y)}`).join(", ")}}`;
  };
  return repr(v);
}

function tryAnswerJson(text: string): string | undefined {
  let parsed: unknown;
  try {
    // Python keeps int/float apart and ints exact: floats as PyFloat, ints as BigInt from their source text.
    parsed = JSON.parse(text, (_k, v, ctx?: { source?: string }) => (typeof v === "number" && ctx?.source !== undefined ? (/[.eE]/.test(ctx.source) ? new PyFloat(v) : BigInt(ctx.source)) : v));
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed) || !Object.hasOwn(parsed, "answer")) return undefined;
  return pyStrTyped((parsed as Record<string, unknown>).answer);
}

/** Every balanced `{…}` span, left to right; an unclosed brace ends the scan. */
function jsonCandidates(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== "{") {
      i++;
      continue;
    }
    let depth = 0;
    let closed = false;
    for (let j = i; j < text.length; j++) {
      if (text[j] === "{") depth++;
      else if (text[j] === "}") depth--;
      if (depth === 0) {
        out.push(text.slice(i, j + 1));
        i = j + 1;
        closed = true;
        break;
      }
    }
    if (!closed) break;
  }
  return out;
}

const MD_JSON = pyRegex("```(?:json)?\\s*(\\{.*?\\})\\s*```", { dotAll: true });

/** The predicted answer: the last fenced, else last bare, JSON object with an "answer" key; else the stripped text. */
export function parseGeneration(generation: string): string {
  if (!generation) return "";
  const text = pyStrip(generation);
  for (const m of MD_JSON.finditer(text).reverse()) {
    const a = tryAnswerJson(m[1]!);
    if (a !== undefined) return a;
  }
  for (const c of jsonCandidates(text).reverse()) {
    const a = tryAnswerJson(c);
    if (a !== undefined) return a;
  }
  return text;
}

const NUM_WORDS: Record<string, string> = {
  one: "1", two: "2", three: "3", four: "4", five: "5", six: "6", seven: "7", eight: "8", nine: "9", ten: "10",
  eleven: "11", twelve: "12", thirteen: "13", fourteen: "14", fifteen: "15", sixteen: "16", seventeen: "17", eighteen: "18", nineteen: "19", twenty: "20",
  first: "1st", second: "2nd", third: "3rd", fourth: "4th", fifth: "5th", nineteenth: "19th", twentieth: "20th", "twenty-first": "21st",
};
const NUM_DIGITS: Record<string, string> = Object.fromEntries(Object.entries(NUM_WORDS).map(([k, v]) => [v, k]));
const STOPWORDS = new Set("the a an of in on at for and or to by is was are were be been with from that this it its his her my our their no not but if as into about than then".split(" "));
const MAX_GT_LENGTH = 40;
const MIN_ALT_LENGTH = 3;

/** Unicode spaces, dashes and curly quotes to ASCII; runs of spaces collapsed; stripped. */
function normalizeUnicode(s: string): string {
  s = s.replace(/[\u202f\u00a0\u2009\u200a\u2002\u2003]/g, " ").replace(/[\u2010-\u2015]/g, "-").replace(/[\u2019\u2018]/g, "'").replace(/[\u201c\u201d]/g, '"');
  while (s.includes("  ")) s = s.replaceAll("  ", " ");
  return pyStrip(s);
}

const PARENS = pyRegex("\\s*\\([^)]*\\)\\s*");
const WS = pyRegex("\\s+");
const INNER = pyRegex("\\(([^)]+)\\)");
const THOUSANDS = pyRegex("(\\d),(\\d{3})");
const ABBREV_DOT = pyRegex("(?<!\\d)\\.(?!\\d)");
const DIGITS = /^\p{Nd}+$/u;
const TRAIL_WS = new RegExp(`[${PY_SPACE_CLASS}]+$`, "u");
const sub = (re: { re: RegExp }, s: string, by: string) => s.replace(re.re, by);
const cpCmp = (a: string, b: string): number => {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
  return x.length - y.length;
};

/** Surface-form alternatives of a gold answer (sorted) and the rule tags that fired. */
export function gtAlternatives(gt: string): [string[], string[]] {
  const alts = new Set([gt]);
  const rules: string[] = [];
  const lower = gt.toLowerCase();
  for (const prefix of ["the ", "a ", "an "]) {
    if (lower.startsWith(prefix)) {
      alts.add(gt.slice(prefix.length));
      rules.push("strip_article");
      break;
    }
  }
  const stripped = pyStrip(gt.replace(/["\u201c\u201d]/g, ""));
  if (stripped && stripped !== gt) {
    alts.add(stripped);
    rules.push("strip_quotes");
  }
  if (gt.includes("(")) {
    const noParens = sub(WS, pyStrip(sub(PARENS, gt, " ")), " ");
    if (noParens && noParens !== gt) alts.add(noParens);
    for (const m of INNER.finditer(gt)) {
      const inner = pyStrip(m[1]!);
      if (pyLen(inner) > 1) alts.add(inner);
    }
    rules.push("normalize_parens");
  }
  const gtLow = pyStrip(lower);
  if (Object.hasOwn(NUM_WORDS, gtLow)) {
    alts.add(NUM_WORDS[gtLow]!);
    rules.push("number_word_to_digit");
  }
  if (Object.hasOwn(NUM_DIGITS, gtLow)) {
    alts.add(NUM_DIGITS[gtLow]!);
    rules.push("number_digit_to_word");
  }
  let noCommas = sub(THOUSANDS, gt, "$1$2");
  while (noCommas !== gt && THOUSANDS.search(noCommas)) noCommas = sub(THOUSANDS, noCommas, "$1$2");
  if (noCommas !== gt) {
    alts.add(noCommas);
    rules.push("strip_number_commas");
  }
  if (gt && ".,;:!?".includes(gt.at(-1)!)) {
    alts.add(gt.slice(0, -1).replace(TRAIL_WS, ""));
    rules.push("strip_trailing_punct");
  }
  if (gt.includes(".")) {
    const noDots = sub(ABBREV_DOT, gt, "");
    if (noDots && pyLen(noDots) > 1 && noDots !== gt) {
      alts.add(noDots);
      rules.push("strip_abbrev_dots");
    }
  }
  if (gt.includes("-") && !gt.startsWith("-")) {
    const noHyphen = pyStrip(sub(WS, gt.replaceAll("-", " "), " "));
    if (noHyphen !== gt) {
      alts.add(noHyphen);
      rules.push("hyphen_to_space");
    }
  }
  if (gt.includes(" & ")) {
    alts.add(gt.replaceAll(" & ", " and "));
    rules.push("ampersand_to_and");
  }
  if (lower.includes(" and ")) {
    const idx = lower.indexOf(" and ");
    alts.add(`${gt.slice(0, idx)} & ${gt.slice(idx + 5)}`);
    rules.push("and_to_ampersand");
  }
  const extra: string[] = [];
  for (const alt of alts) for (const prefix of ["the ", "a ", "an "]) if (alt.toLowerCase().startsWith(prefix)) extra.push(alt.slice(prefix.length));
  for (const e of extra) alts.add(e);
  const normed = new Set<string>();
  for (const a0 of alts) {
    const a = sub(WS, pyStrip(a0), " ");
    if (a && (pyLen(a) >= MIN_ALT_LENGTH || a === pyStrip(gt) || DIGITS.test(a))) normed.add(a);
  }
  return [[...normed].sort(cpCmp), rules];
}

const isUpper = (ch: string | undefined): boolean => ch !== undefined && ch !== ch.toLowerCase() && ch === ch.toUpperCase();

function isMultiWordName(gt: string): boolean {
  const parts = pySplit(pyStrip(gt).replace(/\.+$/, ""));
  const first = (p: string) => [...p][0];
  if (parts.length === 3 || parts.length === 4) return parts.every((p) => isUpper(first(p))) && parts.every((p) => !STOPWORDS.has(p.toLowerCase()));
  if (parts.length === 5 || parts.length === 6) return parts.filter((p) => isUpper(first(p)) && !STOPWORDS.has(p.toLowerCase())).length >= 3;
  return false;
}

/** `normalize_gt`: alternatives plus whether the gold is unreliable for substring matching (too long, or a multi-word name). */
export function normalizeGt(gt: string): { alternatives: string[]; should_remove: boolean; remove_reason: string; edited: boolean; edit_reasons: string[] } {
  const [alternatives, rules] = gtAlternatives(gt);
  const reason = pyLen(gt) > MAX_GT_LENGTH ? "gt_too_long" : isMultiWordName(gt) ? "multi_word_name" : "";
  const editReasons = reason ? [...rules, reason] : rules;
  return { alternatives, should_remove: reason !== "", remove_reason: reason, edited: editReasons.length > 0, edit_reasons: editReasons };
}

/** Lenient: some alternative is a substring of the normalised answer. */
export function isCorrect(alternatives: string[], answer: string): boolean {
  const ans = normalizeUnicode(answer.toLowerCase());
  return alternatives.some((alt) => ans.includes(normalizeUnicode(alt.toLowerCase())));
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** Strict: short alternatives (≤ 4 characters) need word boundaries; in answers over 80 characters the match must start by character 40. */
export function isCorrectStrict(alternatives: string[], answer: string): boolean {
  const ans = normalizeUnicode(answer.toLowerCase());
  const ansLen = pyLen(ans);
  for (const alt of alternatives) {
    const a = normalizeUnicode(alt.toLowerCase());
    if (!a || !ans.includes(a)) continue;
    if (pyLen(a) <= 4 && !new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRe(a)}(?![\\p{L}\\p{N}_])`, "u").test(ans)) continue;
    if (ansLen > 80 && pyLen(ans.slice(0, ans.indexOf(a))) > 40) continue;
    return true;
  }
  return false;
}

/** The verify fields of one generation against the gold answer. */
export function scoreHotpotqa(generation: string, expected: string): Record<string, unknown> {
  const pred = parseGeneration(generation);
  const gt = normalizeGt(expected);
  const strict = isCorrectStrict(gt.alternatives, pred) ? 1 : 0;
  return {
    reward: strict,
    extracted_answer: pred ? pred : null,
    answer_em: answerExactMatch(pred, expected),
    answer_f1: answerF1(pred, expected)[0],
    is_correct: isCorrect(gt.alternatives, pred) ? 1 : 0,
    is_correct_strict: strict,
    gt_should_remove: gt.should_remove,
    gt_remove_reason: gt.remove_reason,
  };
}
