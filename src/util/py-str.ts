/**
 * Python `str` semantics that differ from JavaScript's: what counts as whitespace (`str.isspace`,
 * used by `strip()`/`split()` and by `re`'s `\s`), code-point length, and `strip(chars)`.
 */

/** Python's `str.isspace()` set as the inside of a regex character class (u flag). */
export const PY_SPACE_CLASS = "\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

const SPACE = new RegExp(`[${PY_SPACE_CLASS}]`, "u");
const LEAD = new RegExp(`^[${PY_SPACE_CLASS}]+`, "u");
const TRAIL = new RegExp(`[${PY_SPACE_CLASS}]+$`, "u");
const RUNS = new RegExp(`[${PY_SPACE_CLASS}]+`, "u");

/** True when `ch` (one character) is Python whitespace. */
export function pyIsSpace(ch: string): boolean {
  return ch !== "" && SPACE.test(ch) && [...ch].length === 1;
}

/** `s.strip()` (no argument) or `s.strip(chars)`. */
export function pyStrip(s: string, chars?: string): string {
  if (chars === undefined) return s.replace(LEAD, "").replace(TRAIL, "");
  const set = new Set([...chars]);
  const cps = [...s];
  let a = 0;
  let b = cps.length;
  while (a < b && set.has(cps[a]!)) a++;
  while (b > a && set.has(cps[b - 1]!)) b--;
  return cps.slice(a, b).join("");
}

/** `s.split()` with no argument: runs of Python whitespace, no empty strings. */
export function pySplit(s: string): string[] {
  return pyStrip(s).split(RUNS).filter((x) => x !== "");
}

/** `len(s)`: code points, not UTF-16 units. */
export function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `s.isalpha()` for a non-empty string: every code point is a letter (Unicode L*). */
export function pyIsAlpha(s: string): boolean {
  return s !== "" && /^\p{L}+$/u.test(s);
}
