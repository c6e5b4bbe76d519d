/**
 * Multiple-choice grading (components.md §3.4, upstream `mcqa`): a row's per-record
 * `template_metadata.output_regex` first (last case-insensitive match), then the grading mode
 * (the server's beats the row's; the row default is `strict_single_letter_boxed`). Pure.
 */
import { PyRegexError, pyRegex } from "../../util/py-regex.ts";
import { pyIsAlpha, pyLen, pyStrip } from "../../util/py-str.ts";
import { lastBoxedInner, stripTextWrappers } from "./boxed.ts";
import { allowedLetters, choiceLetterFromPayload, normalizedOptions, normalizeForMatch, normalizeNativeLetters, type Options } from "./letters.ts";

/** The four grading modes. */
export const GRADING_MODES = ["strict_single_letter_boxed", "lenient_boxed", "lenient_answer_colon", "lenient_answer_colon_md"] as const;
/** One grading mode. */
export type GradingMode = (typeof GRADING_MODES)[number];

/** A row the verifier cannot grade as given (an untranslatable or malformed per-row regex). */
export class ChoiceRowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChoiceRowError";
  }
}

/** What grading needs from a row. */
export interface ChoiceRow {
  options?: Options;
  expected_answer?: string | null;
  grading_mode?: GradingMode;
  template_metadata?: Record<string, unknown> | null;
}

/** The verdict: `reward` 1/0, the normalised gold letter and the extracted letter (null = no answer). */
export interface ChoiceVerdict {
  reward: number;
  expected_answer: string;
  extracted_answer: string | null;
}

const BOXED_LETTER_ONLY = pyRegex("^[^A-Za-z]*([A-Z])[^A-Za-z]*$");
const BOXED_LETTER_LABEL = pyRegex("^\\s*([A-Z])\\s*[:).\\-]");
const ANSWER_COLON = pyRegex("(?i)answer\\s*:\\s*(.+)");
const ANSWER_COLON_PAYLOAD = pyRegex("(?im)[*_]{0,2}Answer[*_]{0,2}\\s*:[*_\\s]{0,2}(.+)");

/** The letter in the last `\boxed{}`: a bare letter (`[C]`, `\text{E}`) or a leading label (`E: …`). */
export function strictBoxedLetter(text: string, allowed: Set<string>): string | undefined {
  const inner = lastBoxedInner(text);
  if (inner === undefined) return undefined;
  const s = stripTextWrappers(pyStrip(inner));
  const m = BOXED_LETTER_ONLY.match(s) ?? BOXED_LETTER_LABEL.match(s);
  const letter = m?.[1]?.toUpperCase();
  return letter !== undefined && allowed.has(letter) ? letter : undefined;
}

/** The one option whose normalised text the last `\boxed{}` contains (none or several → undefined). */
export function boxedOptionText(text: string, options: Options, allowed: Set<string>): string | undefined {
  const inner = lastBoxedInner(text);
  if (inner === undefined) return undefined;
  const s = pyStrip(inner);
  const cands = [s, stripTextWrappers(s)].map(normalizeForMatch);
  const hit = new Set<string>();
  for (const c of cands) for (const [letter, opt] of normalizedOptions(options, allowed)) if (opt !== "" && c.includes(opt)) hit.add(letter);
  return hit.size === 1 ? [...hit][0] : undefined;
}

function answerColonLetter(text: string, options: Options, allowed: Set<string>): string | undefined {
  const m = ANSWER_COLON.search(text);
  if (!m) return undefined;
  const cand = pyStrip(stripTextWrappers(m[1]!));
  if (pyLen(cand) === 1 && pyIsAlpha(cand) && allowed.has(cand.toUpperCase())) return cand.toUpperCase();
  const norm = normalizeForMatch(cand);
  return normalizedOptions(options, allowed).find(([, opt]) => opt === norm)?.[0];
}

function answerColonMdLetter(text: string, allowed: Set<string>): string | undefined {
  const payloads = ANSWER_COLON_PAYLOAD.findall(text) as string[];
  for (let i = payloads.length - 1; i >= 0; i--) {
    const letter = choiceLetterFromPayload(payloads[i]!, allowed);
    if (letter !== undefined) return letter;
  }
  return undefined;
}

/**
 * One per-record regex: its last case-insensitive match, native letters mapped, upper-cased; a
 * single letter is trusted even outside the options, else it must equal one option's text. A
 * pattern Python rejects is "no match" (upstream catches `re.error`); one we cannot translate,
 * or one with several groups (upstream crashes on it), is a ChoiceRowError.
 */
export function customRegexLetter(text: string, pattern: string, options: Options, allowed: Set<string>): string | undefined {
  let re;
  try {
    re = pyRegex(pattern, { ignoreCase: true });
  } catch (e) {
    if (e instanceof PyRegexError && e.kind === "syntax") return undefined;
    throw new ChoiceRowError(`template_metadata.output_regex: ${(e as Error).message}`);
  }
  if (re.groups > 1) throw new ChoiceRowError(`template_metadata.output_regex ${JSON.stringify(pattern)} has ${re.groups} capturing groups; use one (or (?:…) for the others)`);
  const all = re.findall(text) as string[];
  if (all.length === 0) return undefined;
  const captured = normalizeNativeLetters(pyStrip(all[all.length - 1]!)).toUpperCase();
  if (pyLen(captured) === 1 && pyIsAlpha(captured)) return captured;
  const norm = normalizeForMatch(captured);
  return normalizedOptions(options, allowed).find(([, opt]) => opt === norm)?.[0];
}

function perRecordLetter(text: string, regexes: unknown, options: Options, allowed: Set<string>): string | undefined {
  const list = typeof regexes === "string" ? [regexes] : Array.isArray(regexes) ? regexes : undefined;
  if (!list || !list.every((r) => typeof r === "string")) throw new ChoiceRowError(`template_metadata.output_regex must be a string or a list of strings, got ${JSON.stringify(regexes)}`);
  for (const r of list as string[]) {
    const letter = customRegexLetter(text, r, options, allowed);
    if (letter !== undefined) return letter;
  }
  return undefined;
}

/** Grade one answer text against a row; `serverMode` is the server config's `grading_mode` (null = the row's). */
export function gradeChoice(answerText: string, row: ChoiceRow, serverMode?: GradingMode | null): ChoiceVerdict {
  const gold = pyStrip(row.expected_answer ?? "").toUpperCase();
  const allowed = allowedLetters(row.options);
  const mode: GradingMode = serverMode ?? row.grading_mode ?? "strict_single_letter_boxed";
  const text = pyStrip(answerText);
  if (text === "") return { reward: 0.0, expected_answer: gold, extracted_answer: null };
  let pred: string | undefined;
  const tm = row.template_metadata;
  if (tm && typeof tm === "object" && "output_regex" in tm) pred = perRecordLetter(text, tm.output_regex, row.options, allowed);
  if (pred === undefined) {
    if (mode === "strict_single_letter_boxed") pred = strictBoxedLetter(text, allowed);
    else if (mode === "lenient_boxed") pred = strictBoxedLetter(text, allowed) ?? boxedOptionText(text, row.options, allowed);
    else if (mode === "lenient_answer_colon") pred = answerColonLetter(text, row.options, allowed);
    else pred = answerColonMdLetter(text, allowed);
  }
  return { reward: pred !== undefined && gold !== "" && pred === gold ? 1.0 : 0.0, expected_answer: gold, extracted_answer: pred ?? null };
}
