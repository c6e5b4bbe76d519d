/**
 * LaTeX clean-up before parsing, with the effects latex2sympy2_extended's normaliser has under the configuration
 * math-verify uses (basic_latex, units, malformed_operators, nits; boxed "all" or "last").
 */
import { UNIT_WORDS } from "./units.ts";

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const LEFT = /\\m?left(\\\{|\{|\\\||\||\[|\(|\\rbracl|\\lgroup|\\lbrace|\\lbrack|\\vert|\\lvert|\\lceil|\\lfloor|\\langle|\\llcorner|\\ulcorner)/g;
const RIGHT = /\\m?right(\\\}|\}|\\\||\||\]|\)|\\rbrack|\\rgroup|\\rbrace|\\vert|\\rvert|\\rceil|\\rfloor|\\rangle|\\lrcorner|\\urcorner)/g;
const PERMUTATION = /\(([a-zA-Z0-9+\-*/\\ ]+?)\)_\{([a-zA-Z0-9+\-*/\\ ]+?)\}/g;
const DROP = /\\mathrm\{th\}|\\!\s*|\\text\s*\{\s*\}|\\\$|\$|(?<!\\)["']|\\displaystyle/g;
// One pass of rewrites; the first alternative that matches at a position wins, as in the reference.
const REWRITES: [string, string, string][] = [
  ["math", String.raw`\\math(?:rm|it|bf)`, "\\text"],
  ["text", String.raw`\\text(?:normal|bf|it|rm)`, "\\text"],
  ["frac", String.raw`\\(?:d|t|c)frac`, "\\frac"],
  ["decimal_space", String.raw`\s\.`, " 0."],
  ["decimal_brace", String.raw`\{\.`, "{0."],
  ["approx", String.raw`~=`, "\\approx"],
  ["comma", String.raw`\s*\{\s*,\s*\}`, ","],
  ["and_or", String.raw`(?<![a-zA-Z])(?:,?\s*(?:and|or))(?![a-zA-Z])`, ","],
  ["and_or_text", String.raw`(?:,?\s*\\text\{\s*(?:and|or)\s*\})`, ","],
  ["backslash_space", String.raw`(?<!\\)\\\s`, " "],
  ["infinity", "infinity", "\\infty"],
  ["dot", String.raw`,?(?:\\ldots)`, " "],
  ["percentage", String.raw`\s*\bpercentage\b`, "\\%"],
  ["percentage_in_text", String.raw`\\text\{percentage\}`, "%"],
  ["percent", String.raw`\s*\bpercent\b`, "\\%"],
  ["percent_in_text", String.raw`\\text\{percent\}`, "%"],
  ["pct", String.raw`\s*\bpct\b`, "\\%"],
  ["pct_in_text", String.raw`\\text\{pct\}`, "%"],
  ["inf", String.raw`(?<!\\)inf(?!inity)`, "\\infty"],
  ["sqrt", " sqrt", "\\sqrt"],
];
const REWRITE_RE = new RegExp(REWRITES.map(([n, p]) => `(?<${n}>${p})`).join("|"), "g");
const COMMAND_SLASH = /\\\\(?=[a-zA-Z])/g;
const UNIT_SUPERSCRIPT = /(\\(?:text|mbox)\{.*?\})(\^\d|\{\^\d\})?$/;
const UNITS = new RegExp(`(\\d|\\}|\\s)\\s*(?:(?:${UNIT_WORDS.map(escapeRe).join("|")})(?:s|es)?)\\s*$`);
const VALID_SEPARATOR = /\b(?:and|or)\b|,|;/;

/** The content of the \boxed{…}/\fbox{…} groups, scanned right to left (mode "last" keeps adjacent ones only). */
export function boxedContent(text: string, mode: "last" | "all"): string {
  const found: string[] = [];
  let limit = text.length;
  let lastStart: number | null = null;
  let from = text.length;
  for (;;) {
    const b = text.lastIndexOf("\\boxed", from - 1);
    const f = text.lastIndexOf("\\fbox", from - 1);
    if (b < 0 && f < 0) break;
    const start = Math.max(b, f);
    let p = start + (b > f ? 6 : 5);
    while (p < limit && /\s/.test(text[p]!)) p++;
    if (p >= limit) break;
    if (text[p] !== "{") {
      if (found.length === 0) found.push(text.slice(p));
      break;
    }
    const close = matchingBrace(text, p, limit);
    if (close < 0) {
      if (found.length === 0) found.push(text.slice(p));
      break;
    }
    const content = text.slice(p + 1, close).trim();
    if (mode === "last" && lastStart !== null) {
      const between = text.slice(close + 1, lastStart);
      const prev = found[found.length - 1] ?? "";
      const adjacent = between.length < 10 || (content !== prev && between.length < 70 && VALID_SEPARATOR.test(between));
      if (!adjacent) break;
    }
    if (found.length === 0 || found[found.length - 1] !== content) found.push(content);
    lastStart = start;
    limit = start;
    from = start;
  }
  return found.length === 0 ? text : found.reverse().join(",");
}

function matchingBrace(text: string, open: number, limit: number): number {
  let depth = 1;
  for (let i = open + 1; i < limit; i++) {
    const c = text[i];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

/** Normalises one LaTeX span the way the reference does before its parser sees it. */
export function normalizeLatex(input: string, boxed: "all" | "last"): string {
  let text = boxedContent(input, boxed);
  // basic_latex
  text = text.replaceAll("\\mathrm{T}", "T").replaceAll("\\mathrm{d}", "d").replaceAll("{\\rm d}", "d");
  text = text.replaceAll("\\left[\\begin{matrix}", "\\begin{bmatrix}").replaceAll("\\end{matrix}\\right]", "\\end{bmatrix}");
  text = text.replace(LEFT, "$1").replace(RIGHT, "$1");
  text = text.replace(PERMUTATION, (_m, a: string, b: string) => `\\frac{(${a})!}{((${a})-(${b}))!}`);
  text = text.replace(DROP, "");
  text = text.replace(REWRITE_RE, (...args) => {
    const groups = args[args.length - 1] as Record<string, string | undefined>;
    for (const [name, , rep] of REWRITES) if (groups[name] !== undefined) return rep;
    return args[0] as string;
  });
  text = text.replaceAll("\n", " ").replaceAll("\t", " ");
  if (!text.includes("matrix")) text = text.replace(COMMAND_SLASH, "\\");
  // units
  const noSup = text.replace(UNIT_SUPERSCRIPT, "").trim();
  if (noSup !== "" && noSup !== text) text = noSup;
  for (let k = 0; k < 2; k++) {
    const stripped = text.replace(UNITS, "$1");
    if (stripped !== "" && stripped !== text) text = stripped;
  }
  // nits
  if (text.startsWith(".")) text = `0${text}`;
  if (text === "0.5") text = "\\frac{1}{2}";
  // malformed_operators
  text = fixMalformed(text);
  return text.trim();
}

function fixMalformed(s: string): string {
  s = s.replace(/\^\s?\((.*?)\)/g, "^{$1}");
  s = s.replace(/sqrt\s?\((.*?)\)/g, "\\sqrt{$1}");
  s = s.replace(/\\frac\s?(\d)\s?(\d+)/g, "\\frac{$1}{$2}");
  s = s.replace(/\\log_\s?(\d)\s?(\d+)/g, "\\log_{$1}{$2}");
  s = s.replace(/\\frac\s?\{(.*?)\}\s?(\d)/g, "\\frac{$1}{$2}");
  s = s.replace(/\\frac\s?(\d)\s?\{(.*?)\}/g, "\\frac{$1}{$2}");
  s = s.replace(/\\sqrt\s?(\d)/g, "\\sqrt{$1}");
  s = s.replaceAll(" sqrt", "\\sqrt");
  s = bareSqrt(s);
  s = bareFrac(s);
  const slash = /^(-?\d+)\/(-?\d+)$/.exec(s);
  if (slash && String(Number(slash[1])) === slash[1] && String(Number(slash[2])) === slash[2]) {
    s = `\\frac{${slash[1]}}{${slash[2]}}`;
  }
  return s;
}

// `\sqrt x` → `\sqrt{x}` (one character).
function bareSqrt(s: string): string {
  if (!s.includes("\\sqrt")) return s;
  const parts = s.split("\\sqrt");
  let out = parts[0]!;
  for (const part of parts.slice(1)) {
    const rest = part.trimStart();
    out += rest.length > 0 && rest[0] !== "{" && rest[0] !== "[" ? `\\sqrt{${rest[0]}}${rest.slice(1)}` : `\\sqrt${rest}`;
  }
  return out;
}

// `\frac ab` → `\frac{a}{b}`, `\frac a{b}` → `\frac{a}{b}`.
function bareFrac(s: string): string {
  const parts = s.split("\\frac");
  if (parts.length === 1) return s;
  let out = parts[0]!;
  for (const part of parts.slice(1)) {
    const rest = part.trimStart();
    out += "\\frac";
    if (rest.startsWith("{")) out += rest;
    else if (rest.length < 2) return s;
    else if (rest[1] !== "{") out += `{${rest[0]}}{${rest[1]}}${rest.slice(2)}`;
    else out += `{${rest[0]}}${rest.slice(1)}`;
  }
  return out;
}
