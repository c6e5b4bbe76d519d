/**
 * Python `str` and `re` semantics the checkers rely on (upstream is Python): Unicode `\w`/`\d`/`\s`/`\b`,
 * `str.split()`, `str.strip()`, `isupper()`/`islower()`. JS regexes are ASCII for `\w` and `\b` and
 * have a different whitespace set, so each is spelled out here once.
 */

/** Python's `str.isspace()` set (also what `\s` matches in a `str` pattern). */
export const PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
/** Character-class body of Python's Unicode `\w` (alnum or underscore; marks are not word characters). */
export const PY_WORD = "\\p{L}\\p{N}_";

const SPACE_RE = new RegExp(`[${PY_SPACE}]+`, "u");
const LEAD_RE = new RegExp(`^[${PY_SPACE}]+`, "u");
const TRAIL_RE = new RegExp(`[${PY_SPACE}]+$`, "u");

/** `s.split()` with no separator: runs of whitespace, no empty pieces. */
export function pySplit(s: string): string[] {
  return s.split(SPACE_RE).filter((w) => w.length > 0);
}

/** `s.strip()` (no argument). */
export function pyStrip(s: string): string {
  return s.replace(LEAD_RE, "").replace(TRAIL_RE, "");
}

/** `s.rstrip()` (no argument). */
export function pyRstrip(s: string): string {
  return s.replace(TRAIL_RE, "");
}

/** `s.strip(chars)` with an explicit set of characters. */
export function pyStripChars(s: string, chars: string): string {
  const set = new Set(chars);
  const cps = [...s];
  let a = 0;
  let b = cps.length;
  while (a < b && set.has(cps[a]!)) a++;
  while (b > a && set.has(cps[b - 1]!)) b--;
  return cps.slice(a, b).join("");
}

/** `s.lstrip(chars)`. */
export function pyLstripChars(s: string, chars: string): string {
  const set = new Set(chars);
  const cps = [...s];
  let a = 0;
  while (a < cps.length && set.has(cps[a]!)) a++;
  return cps.slice(a).join("");
}

/** `s.rstrip(chars)`. */
export function pyRstripChars(s: string, chars: string): string {
  const set = new Set(chars);
  const cps = [...s];
  let b = cps.length;
  while (b > 0 && set.has(cps[b - 1]!)) b--;
  return cps.slice(0, b).join("");
}

const LOWER = /\p{Lowercase}/u;
const UPPER = /\p{Uppercase}/u;
const TITLE = /\p{Lt}/u;

/** `s.isupper()`: at least one cased character and none lowercase or titlecase. */
export function pyIsUpper(s: string): boolean {
  let cased = false;
  for (const ch of s) {
    if (LOWER.test(ch) || TITLE.test(ch)) return false;
    if (UPPER.test(ch)) cased = true;
  }
  return cased;
}

/** `s.islower()`: at least one cased character and none uppercase or titlecase. */
export function pyIsLower(s: string): boolean {
  let cased = false;
  for (const ch of s) {
    if (UPPER.test(ch) || TITLE.test(ch)) return false;
    if (LOWER.test(ch)) cased = true;
  }
  return cased;
}

/** Code points of `s` (Python indexes strings by code point). */
export function codePoints(s: string): string[] {
  return [...s];
}

/** Thrown where Python would raise (`re.error`, `TypeError`, `IndexError` …): the instruction counts as not followed. */
export class PyError extends Error {
  override name = "PyError";
}

/**
 * Translate a Python `re` pattern to a JS `RegExp` with the `u` flag: Unicode `\w \W \d \D \s \S \b \B`,
 * `(?P<n>…)`/`(?P=n)`, `\A`/`\Z`. Raises PyError for a pattern neither engine accepts.
 */
export function pyRegex(pattern: string, flags = ""): RegExp {
  let out = "";
  let inClass = false;
  // Global inline flags at the start (`(?i)`, `(?ms)`) become JS flags.
  const inline = /^\(\?([aiLmsux]+)\)/.exec(pattern);
  if (inline) {
    flags += inline[1]!.replace(/[aLux]/g, "");
    pattern = pattern.slice(inline[0].length);
  }
  const multiline = flags.includes("m");
  const dotall = flags.includes("s");
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (!inClass && c === "(" && pattern.startsWith("(?#", i)) {
      const end = pattern.indexOf(")", i);
      i = end < 0 ? pattern.length : end;
      continue;
    }
    // Python's `$` also matches before a final newline (every newline under MULTILINE); `^` under
    // MULTILINE only after `\n`; `.` excludes only `\n` — JS treats `\r`, U+2028/9 as line ends too.
    if (!inClass && c === "$") { out += multiline ? "(?=\\n|(?![\\s\\S]))" : "(?=\\n?(?![\\s\\S]))"; continue; }
    if (!inClass && c === "^") { out += multiline ? "(?:(?<![\\s\\S])|(?<=\\n))" : "(?<![\\s\\S])"; continue; }
    if (!inClass && c === ".") { out += dotall ? "[\\s\\S]" : "[^\\n]"; continue; }
    if (c === "\\") {
      const n = pattern[i + 1];
      i++;
      if (n === undefined) throw new PyError(`bad escape (end of pattern) in ${JSON.stringify(pattern)}`);
      switch (n) {
        case "w": out += inClass ? PY_WORD : `[${PY_WORD}]`; break;
        case "W": out += inClass ? "\\P{L}" /* approximate inside a class */ : `[^${PY_WORD}]`; break;
        case "d": out += inClass ? "\\p{Nd}" : "\\p{Nd}"; break;
        case "D": out += inClass ? "\\P{Nd}" : "\\P{Nd}"; break;
        case "s": out += inClass ? PY_SPACE : `[${PY_SPACE}]`; break;
        case "S": out += inClass ? "\\S" : `[^${PY_SPACE}]`; break;
        case "b": out += inClass ? "\\x08" : `(?:(?<=[${PY_WORD}])(?![${PY_WORD}])|(?<![${PY_WORD}])(?=[${PY_WORD}]))`; break;
        case "B": out += `(?:(?<=[${PY_WORD}])(?=[${PY_WORD}])|(?<![${PY_WORD}])(?![${PY_WORD}]))`; break;
        case "A": out += "^"; break;
        case "Z": out += "$(?![\\s\\S])"; break;
        default:
          // Python accepts escaped punctuation JS's `u` mode rejects (e.g. `\,` `\!` `\-` outside a class).
          if (/[A-Za-z0-9]/.test(n)) out += `\\${n}`;
          else out += /[\^$\\.*+?()[\]{}|/-]/.test(n) ? `\\${n}` : n;
      }
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      if (pattern[i + 1] === "^") { out += "^"; i++; }
      if (pattern[i + 1] === "]") { out += "\\]"; i++; }
      continue;
    }
    if (c === "(" && pattern.startsWith("(?P<", i)) { out += "(?<"; i += 3; continue; }
    if (c === "(" && pattern.startsWith("(?P=", i)) {
      const end = pattern.indexOf(")", i);
      if (end < 0) throw new PyError(`missing ) in ${JSON.stringify(pattern)}`);
      out += `\\k<${pattern.slice(i + 4, end)}>`;
      i = end;
      continue;
    }
    // A lone `{` / `}` that is not a quantifier is a literal in Python; `u` mode rejects it.
    if (c === "{" && !/^\{\d*(,\d*)?\}/.test(pattern.slice(i))) { out += "\\{"; continue; }
    if (c === "}") {
      const open = out.lastIndexOf("{");
      if (open < 0 || out[open - 1] === "\\" || !/^\{\d*(,\d*)?$/.test(out.slice(open))) { out += "\\}"; continue; }
    }
    out += c;
  }
  try {
    return new RegExp(out, `${flags.replace(/[ms]/g, "")}u`);
  } catch (e) {
    throw new PyError(`re.error: ${(e as Error).message}`);
  }
}

/** `len(re.findall(pattern, s, flags))`. */
export function countMatches(re: RegExp, s: string): number {
  const g = new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`);
  let n = 0;
  for (const m of s.matchAll(g)) {
    n++;
    if (m[0] === "" && m.index === s.length) break;
  }
  return n;
}
