/**
 * Option letters: which letters a row allows, native-script letters mapped to ASCII, option-text
 * normalisation, and reading one unambiguous letter out of an `Answer:` payload.
 */
import { pyRegex } from "../../util/py-regex.ts";
import { pyIsAlpha, pyLen, pySplit, pyStrip } from "../../util/py-str.ts";

/** A row's options: a list of one-key objects `{"A": "text"}` (null values mean "no such option"). */
export type Options = Record<string, string | null>[] | null | undefined;

/** Upper-cased single-letter option keys with a non-null text. */
export function allowedLetters(options: Options): Set<string> {
  const out = new Set<string>();
  for (const entry of options ?? []) {
    for (const [k, v] of Object.entries(entry ?? {})) if (pyLen(k) === 1 && pyIsAlpha(k) && v !== null && v !== undefined) out.add(k.toUpperCase());
  }
  return out;
}

// Arabic (MMMLU), Bengali and full-width A–D, each replaced by " A" … " D" as upstream does.
const NATIVE: [string, string][] = [
  ["أ", " A"], ["ب", " B"], ["ج", " C"], ["د", " D"],
  ["অ", " A"], ["ব", " B"], ["ড", " C"], ["ঢ", " D"],
  ["Ａ", " A"], ["Ｂ", " B"], ["Ｃ", " C"], ["Ｄ", " D"],
];

/** Native-script answer letters → ASCII, then Python `strip()`. */
export function normalizeNativeLetters(text: string): string {
  let s = text;
  for (const [from, to] of NATIVE) s = s.replaceAll(from, to);
  return pyStrip(s);
}

/** Lower-case and collapse whitespace (option-text comparisons). */
export function normalizeForMatch(s: string): string {
  return pySplit(s.toLowerCase()).join(" ");
}

/** `(letter, normalised text)` of every allowed single-letter option. */
export function normalizedOptions(options: Options, allowed: Set<string>): [string, string][] {
  const out: [string, string][] = [];
  for (const entry of options ?? []) {
    for (const [k, v] of Object.entries(entry ?? {})) if (typeof v === "string" && pyLen(k) === 1 && allowed.has(k.toUpperCase())) out.push([k.toUpperCase(), normalizeForMatch(v)]);
  }
  return out;
}

const CHOICE_LETTER = pyRegex("(?<![A-Za-z])([A-Za-z])(?![A-Za-z])");
const LIST_SEPARATOR = pyRegex("(?:\\s*[/|&,;]\\s*|\\s+(?:or|and)\\s+|\\s+)", { ignoreCase: true });
const LEADING_LETTER = pyRegex("^([a-zA-Z])(?![a-zA-Z0-9])");
const STANDALONE_CAPITAL = pyRegex("\\b[A-Z]\\b", { dotAll: true });

/** True when two different allowed letters stand next to each other as a list ("A or B", "A/C", "A, B"). */
export function isAmbiguousList(text: string, allowed: Set<string>): boolean {
  const hits = CHOICE_LETTER.finditer(text).filter((m) => allowed.has(m[1]!.toUpperCase()));
  for (let i = 0; i + 1 < hits.length; i++) {
    const a = hits[i]!;
    const b = hits[i + 1]!;
    if (a[1]!.toUpperCase() === b[1]!.toUpperCase()) continue;
    if (LIST_SEPARATOR.fullmatch(text.slice(a.index + 1, b.index)) !== null) return true;
  }
  return false;
}

/**
 * One allowed letter from an `Answer:` payload: markdown and punctuation stripped, lists rejected,
 * then a single character, a leading letter, or else the last standalone capital letter.
 */
export function choiceLetterFromPayload(payload: string, allowed: Set<string>): string | undefined {
  const cand = pyStrip(pyStrip(normalizeNativeLetters(payload)), "*_` \t\n\r.,;:");
  if (isAmbiguousList(cand, allowed)) return undefined;
  let letter: string | undefined;
  if (pyLen(cand) === 1) letter = cand;
  else {
    const lead = LEADING_LETTER.match(cand);
    if (lead) letter = lead[1];
    else {
      // Upstream's `\b[A-Z]\b(?!.*\b[A-Z]\b)` is the last standalone capital; finding it directly stays linear on huge answers.
      const all = STANDALONE_CAPITAL.finditer(cand);
      letter = all.length > 0 ? all[all.length - 1]![0] : undefined;
    }
  }
  const up = letter?.toUpperCase();
  return up !== undefined && allowed.has(up) ? up : undefined;
}
