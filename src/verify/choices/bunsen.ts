/**
 * BunsenBench chemistry MCQ extraction and error modes (upstream `bunsenbench_chemistry_mcq`):
 * answer candidates from XML tags, `\boxed{}`, `Answer:` lines and answer phrases, latest first,
 * each read as a letter or an exact (chemistry-normalised) option text; then the last and first
 * lines. Pure.
 */
import { htmlUnescape } from "../../util/html-unescape.ts";
import { pyRegex } from "../../util/py-regex.ts";
import { pyIsAlpha, pyLen, pySplit, pyStrip } from "../../util/py-str.ts";
import { allowedLetters, type Options } from "./letters.ts";

type Obj = Record<string, unknown>;

const ANSWER_LINE = pyRegex("(?im)^\\s*(?:(?:[-*•]|\\d+[.)])\\s*)?(?:\\*\\*)?answer(?:\\*\\*)?\\s*:\\s*(.+?)\\s*$");
const INLINE_ANSWER = pyRegex("(?is)(?:\\*\\*)?answer(?:\\*\\*)?\\s*:\\s*(.+?)(?=$|[\\r\\n])");
const BOXED = pyRegex("\\\\boxed\\{\\s*(.*?)\\s*\\}", { dotAll: true });
const ANSWER_PHRASE = pyRegex("(?is)(?:the\\s+(?:correct\\s+)?answer\\s+is|my\\s+answer\\s+is|i\\s+(?:choose|select))\\s+(.+?)(?:\\n|$)");
const XML_ANSWER = pyRegex("<\\s*(answer|choice|response|final_answer|final-answer)\\b[^>]*>\\s*(.*?)\\s*<\\s*/\\s*\\1\\s*>", { ignoreCase: true, dotAll: true });
const CHOICES_BLOCK = pyRegex("<\\s*choices\\b[^>]*>.*?<\\s*/\\s*choices\\s*>", { ignoreCase: true, dotAll: true });
const CHOICE_TAG = pyRegex("<\\s*choice\\b[^>]*>\\s*(.*?)\\s*<\\s*/\\s*choice\\s*>", { ignoreCase: true, dotAll: true });
const THINK_OPEN = pyRegex("<\\s*think\\b[^>]*>", { ignoreCase: true });
const THINK_CLOSE = pyRegex("<\\s*/\\s*think\\s*>", { ignoreCase: true });
const REFUSAL = pyRegex(
  "(?i)(?:i\\s*(?:'|’)?\\s*m\\s+sorry[, ]+(?:but\\s+)?i\\s+(?:can(?:'|’)?t|cannot|am\\s+unable|won(?:'|’)?t)" +
    "|i\\s+(?:can(?:'|’)?t|cannot)\\s+(?:help|assist|comply|provide|answer|do\\s+that|continue)" +
    "|i\\s+am\\s+(?:not\\s+able|unable)\\s+to\\s+(?:help|assist|comply|provide|answer)" +
    "|i\\s+won(?:'|’)?t\\s+be\\s+able\\s+to\\s+(?:help|assist|provide|answer)" +
    "|as\\s+an\\s+ai(?:\\s+language)?\\s+model[, ]+i" +
    "|i\\s+(?:must|have\\s+to|will\\s+have\\s+to)\\s+(?:decline|refuse)" +
    "|i\\s+do\\s+not\\s+feel\\s+comfortable" +
    ")",
);
const OPTION_LETTER = pyRegex("(?i)(?:option|choice)\\s+([A-Z])\\s*[\\)\\].:]?");
const LEADING_LETTER = pyRegex("(?i)^([A-Z])[\\)\\].:](?:\\s|$)");
const LONE_LETTER = pyRegex("[^A-Za-z]*([A-Za-z])[^A-Za-z]*");
const TEXT_WRAPPER = pyRegex("\\\\(?:text|mathrm|operatorname)\\{\\s*(.*?)\\s*\\}", { dotAll: true });
const BOXED_OPEN = pyRegex("\\\\boxed\\s*\\{");

/** The error modes, in upstream's order. */
export const ERROR_MODES = ["correct", "wrong_answer", "refusal", "early_termination", "malformed_choice", "format_violation"] as const;

const SUBSCRIPTS: Record<string, string> = {
  "₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8", "₉": "9", "⁰": "0", "¹": "1", "²": "2", "³": "3",
  "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9", "⁺": "+", "⁻": "-", "₊": "+", "₋": "-", "＋": "+", "−": "-", "–": "-", "—": "-",
  "‒": "-", "‑": "-", "×": "x", "✕": "x", "·": ".", "∙": ".", "⋅": ".", "•": ".", "µ": "u", "μ": "u", "⁄": "/", "∕": "/",
};

/** HTML-unescape, NFKC, sub/superscripts and dashes flattened, format characters dropped, whitespace collapsed. */
export function normalizeChemistryText(value: unknown): string {
  let v = htmlUnescape(String(value)).normalize("NFKC");
  v = [...v].map((ch) => SUBSCRIPTS[ch] ?? ch).join("").replace(/\p{Cf}/gu, "");
  return pySplit(v).join(" ");
}

function within(spans: [number, number][], at: number): boolean {
  return spans.some(([s, e]) => s <= at && at < e);
}

/** Every `\boxed{…}` (whitespace allowed before the brace, `\`-escapes skipped while counting), with its offset. */
export function boxedCandidates(text: string): [number, string][] {
  const out: [number, string][] = [];
  let from = 0;
  for (;;) {
    const m = BOXED_OPEN.search(text.slice(from));
    if (!m) return out;
    const braceStart = from + m.index + m[0].length - 1;
    let depth = 1;
    let pos = braceStart + 1;
    while (pos < text.length && depth) {
      if (text[pos] === "\\") {
        pos += 2;
        continue;
      }
      if (text[pos] === "{") depth++;
      else if (text[pos] === "}") depth--;
      pos++;
    }
    if (depth !== 0) return out;
    out.push([from + m.index, text.slice(braceStart + 1, pos - 1)]);
    from = pos;
  }
}

function answerCandidates(text: string): [number, string][] {
  const out: [number, string][] = [];
  const blocks = CHOICES_BLOCK.finditer(text).map((m) => [m.index, m.index + m[0].length] as [number, number]);
  for (const m of XML_ANSWER.finditer(text)) {
    if (m[1]!.toLowerCase() === "choice" && within(blocks, m.index)) continue;
    out.push([m.index, m[2] ?? ""]);
  }
  out.push(...boxedCandidates(text));
  for (const re of [ANSWER_LINE, INLINE_ANSWER, ANSWER_PHRASE]) for (const m of re.finditer(text)) out.push([m.index, m[1] ?? ""]);
  return out;
}

function letterOf(cand: string, allowed: Set<string>): string | undefined {
  const ok = (l: string | undefined) => (l !== undefined && allowed.has(l.toUpperCase()) ? l.toUpperCase() : undefined);
  if (pyLen(cand) === 1 && pyIsAlpha(cand)) return ok(cand);
  let m = OPTION_LETTER.fullmatch(cand);
  if (m && ok(m[1])) return ok(m[1]);
  m = LEADING_LETTER.match(cand);
  if (m && ok(m[1])) return ok(m[1]);
  m = LONE_LETTER.fullmatch(cand);
  return m ? ok(m[1]) : undefined;
}

function optionTextOf(cand: string, options: Record<string, string>[], allowed: Set<string>): string | undefined {
  const norm = normalizeChemistryText(cand);
  for (const entry of options) for (const [letter, text] of Object.entries(entry)) if (allowed.has(letter.toUpperCase()) && normalizeChemistryText(String(text)) === norm) return letter.toUpperCase();
  return undefined;
}

const WRAP = " \t\r\n`*_\"'";

/** Strip quotes/markdown, a whole `\boxed{}`, `\text{}`-like wrappers and enclosing brackets. */
export function stripWrappers(candidate: string): string {
  let c = pyStrip(candidate, WRAP);
  const boxed = BOXED.fullmatch(c);
  if (boxed) c = pyStrip(boxed[1] ?? "");
  for (let m = TEXT_WRAPPER.fullmatch(c); m; m = TEXT_WRAPPER.fullmatch(c)) c = pyStrip(m[1] ?? "");
  while (pyLen(c) >= 2 && "([{\"'<".includes(c[0]!) && ")]}\"'>".includes(c[c.length - 1]!)) c = pyStrip(c.slice(1, -1), WRAP);
  return pyStrip(c, `${WRAP}.;,`);
}

/** One candidate as a letter or an option's text, before and after stripping wrappers. */
export function parseCandidate(candidate: string, options: Record<string, string>[], allowed: Set<string>): string | undefined {
  let c = pyStrip(candidate);
  if (!c) return undefined;
  const first = letterOf(c, allowed) ?? optionTextOf(c, options, allowed);
  if (first !== undefined) return first;
  c = stripWrappers(c);
  if (!c) return undefined;
  return letterOf(c, allowed) ?? optionTextOf(c, options, allowed);
}

/** The chosen letter of an answer text, or undefined. */
export function bunsenAnswer(text: string, options: Record<string, string>[], allowed: Set<string>): string | undefined {
  // Upstream sorts (offset, text) pairs in reverse: latest first, ties by text descending.
  const cands = answerCandidates(text).sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0));
  for (const [, c] of cands) {
    const p = parseCandidate(c, options, allowed);
    if (p !== undefined) return p;
  }
  const lines = text.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/).map((l) => pyStrip(l)).filter((l) => l !== "");
  if (lines.length > 0) return parseCandidate(lines[lines.length - 1]!, options, allowed) ?? parseCandidate(lines[0]!, options, allowed);
  return undefined;
}

/** The row's options: `options` (null texts dropped), else built from `choices` (strings or objects) lettered A…Z. */
export function bunsenOptions(row: { options?: Options; choices?: unknown[] | null }): Record<string, string>[] {
  if (row.options && row.options.length > 0) {
    return row.options.map((e) => Object.fromEntries(Object.entries(e ?? {}).filter(([, v]) => v !== null && v !== undefined)) as Record<string, string>);
  }
  const out: Record<string, string>[] = [];
  (row.choices ?? []).slice(0, 26).forEach((choice, i) => {
    const fallback = String.fromCharCode(65 + i);
    if (typeof choice === "string") {
      out.push({ [fallback]: choice });
      return;
    }
    const c = (choice ?? {}) as Obj;
    const letter = c.letter || c.label || c.key || c.id || fallback;
    const text = c.text || c.content || c.value || c.choice;
    if (typeof letter === "string" && typeof text === "string" && pyLen(pyStrip(letter)) === 1) out.push({ [pyStrip(letter).toUpperCase()]: text });
  });
  return out;
}

/** The gold letter: a bare letter after stripping wrappers, else the option the expected text names. */
export function bunsenGold(expected: string, options: Record<string, string>[]): string {
  const e = stripWrappers(expected).toUpperCase();
  if (pyLen(e) === 1 && pyIsAlpha(e)) return e;
  return parseCandidate(expected, options, allowedLetters(options)) ?? e;
}

function truncated(response: Obj): boolean {
  if (response.status === "incomplete") return true;
  const details = response.incomplete_details as Obj | null | undefined;
  if (details && details.reason === "max_output_tokens") return true;
  return ((response.output ?? []) as Obj[]).some((i) => i?.status === "incomplete");
}

function refusalContent(response: Obj): boolean {
  return ((response.output ?? []) as Obj[]).some((i) => Array.isArray(i?.content) && (i.content as Obj[]).some((p) => p?.type === "refusal"));
}

/** Why a rollout scored as it did: correct / wrong_answer, else refusal, early_termination, malformed_choice or format_violation. */
export function errorMode(response: Obj, text: string, pred: string | undefined, gold: string): (typeof ERROR_MODES)[number] {
  if (pred !== undefined) return pred === gold ? "correct" : "wrong_answer";
  if (refusalContent(response)) return "refusal";
  if (truncated(response) || THINK_OPEN.findall(text).length > THINK_CLOSE.findall(text).length) return "early_termination";
  if (REFUSAL.search(text)) return "refusal";
  const blocks = CHOICES_BLOCK.finditer(text).map((m) => [m.index, m.index + m[0].length] as [number, number]);
  if (CHOICE_TAG.finditer(text).some((m) => !within(blocks, m.index))) return "malformed_choice";
  return "format_violation";
}

/** Upstream's metric-name segment for a group value. */
export function metricSegment(value: unknown): string {
  let s = pyStrip(String(value));
  s = s.replace(/\s+/gu, "_").replaceAll("/", "__").replace(/[^A-Za-z0-9_.:+-]+/g, "_");
  return pyStrip(s, "_") || "unknown";
}
