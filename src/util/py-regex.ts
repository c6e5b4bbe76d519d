/**
 * Python `re` patterns (they arrive in upstream data and configs) translated to JavaScript
 * RegExps that match the same strings: `(?P<n>…)`/`(?P=n)`, `\A`/`\Z`, scoped inline flags
 * `(?i:…)` and leading global flags `(?ims)`, Unicode `\d`/`\w`/`\s`/`\b` (Python's str patterns
 * are Unicode by default), Python's `.`/`^`/`$` (only `\n` ends a line; `$` also matches before a
 * final newline), literal `{` where Python reads no quantifier, `{,n}`, and escaped punctuation
 * JavaScript's `u` mode rejects. Features with no JavaScript equivalent (atomic groups, possessive
 * quantifiers, conditionals, `\N{…}`) are a PyRegexError of kind "unsupported"; a pattern Python
 * itself rejects is kind "syntax" (callers that mirror `except re.error` treat it as no match).
 */
import { PY_SPACE_CLASS } from "./py-str.ts";

/** A pattern we cannot use: `syntax` (Python rejects it too) or `unsupported` (valid Python, no JS translation). */
export class PyRegexError extends Error {
  constructor(
    readonly kind: "syntax" | "unsupported",
    message: string,
    readonly pattern: string,
  ) {
    super(message);
    this.name = "PyRegexError";
  }
}

/** Python `re` flags. */
export interface PyFlags {
  ignoreCase?: boolean;
  multiline?: boolean;
  dotAll?: boolean;
  verbose?: boolean;
  ascii?: boolean;
}

const WORD_U = "\\p{L}\\p{N}_";
const WORD_A = "A-Za-z0-9_";
const JS_SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);

interface State {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
  a: boolean;
}

function hex(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

/** Translate a Python pattern; returns the JS source, its flags (`u`, maybe `i`) and the capturing group count. */
export function translatePyRegex(pattern: string, flags: PyFlags = {}): { source: string; flags: string; groups: number } {
  const fail = (kind: "syntax" | "unsupported", msg: string): never => {
    throw new PyRegexError(kind, kind === "syntax" ? `invalid Python regex ${JSON.stringify(pattern)}: ${msg}` : `Python regex ${JSON.stringify(pattern)} cannot be translated to JavaScript: ${msg}`, pattern);
  };
  const st: State = { i: !!flags.ignoreCase, m: !!flags.multiline, s: !!flags.dotAll, x: !!flags.verbose, a: !!flags.ascii };
  let p = 0;
  // Leading global flags `(?aimsux)` (Python 3.11 accepts them only at the start).
  for (let g = /^\(\?([aiLmsux]+)\)/.exec(pattern); g; g = /^\(\?([aiLmsux]+)\)/.exec(pattern.slice(p))) {
    for (const f of g[1]!) applyFlag(st, f, true, fail);
    p += g[0].length;
  }
  const globalI = st.i;
  const stack: State[] = [];
  let out = "";
  let groups = 0;
  // Whether the previous token can take a quantifier, and whether it was itself a quantifier.
  let atom = false;
  let quant = false;
  const word = () => (st.a ? WORD_A : WORD_U);
  const emitAtom = (s: string) => {
    out += s;
    atom = true;
    quant = false;
  };
  const emitAssert = (s: string) => {
    out += s;
    atom = false;
    quant = false;
  };
  const emitQuant = (s: string) => {
    if (quant) {
      if (s === "+") fail("unsupported", `possessive quantifier at offset ${p}`);
      if (s !== "?") fail("syntax", `multiple repeat at offset ${p}`);
      out += s;
      quant = false;
      atom = false;
      return;
    }
    if (!atom) fail("syntax", `nothing to repeat at offset ${p}`);
    out += s;
    quant = true;
    atom = false;
  };

  while (p < pattern.length) {
    const c = pattern[p]!;
    if (st.x && /[\s]/.test(c)) {
      p++;
      continue;
    }
    if (st.x && c === "#") {
      while (p < pattern.length && pattern[p] !== "\n") p++;
      continue;
    }
    if (c === "\\") {
      const r = escapeOutside(pattern, p, st, word(), fail);
      p = r.next;
      if (r.assert) emitAssert(r.js);
      else emitAtom(r.js);
      continue;
    }
    if (c === "[") {
      const r = charClass(pattern, p, st, fail);
      p = r.next;
      emitAtom(r.js);
      continue;
    }
    if (c === "(") {
      if (pattern[p + 1] !== "?") {
        groups++;
        stack.push({ ...st });
        out += "(";
        atom = false;
        quant = false;
        p++;
        continue;
      }
      const rest = pattern.slice(p + 2);
      let m: RegExpExecArray | null;
      if (rest.startsWith("#")) {
        const end = pattern.indexOf(")", p);
        if (end < 0) fail("syntax", "missing ), unterminated comment");
        p = end + 1;
        continue;
      }
      if ((m = /^P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest))) {
        groups++;
        stack.push({ ...st });
        out += `(?<${m[1]}>`;
        p += 2 + m[0].length;
      } else if ((m = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest))) {
        emitAtom(`\\k<${m[1]}>`);
        p += 2 + m[0].length;
        continue;
      } else if (/^(:|=|!|<=|<!)/.test(rest)) {
        const head = /^(:|=|!|<=|<!)/.exec(rest)![1]!;
        stack.push({ ...st });
        out += `(?${head}`;
        p += 2 + head.length;
      } else if ((m = /^([aiLmsux]*)(?:-([imsx]+))?:/.exec(rest)) && (m[1] !== "" || m[2])) {
        stack.push({ ...st });
        for (const f of m[1]!) applyFlag(st, f, true, fail);
        for (const f of m[2] ?? "") applyFlag(st, f, false, fail);
        const prev = stack[stack.length - 1]!;
        // Only case-insensitivity is left to the engine; ., ^, $ and \w are already translated per scope.
        out += st.i === prev.i ? "(?:" : st.i ? "(?i:" : "(?-i:";
        p += 2 + m[0].length;
      } else if (/^[aiLmsux]+\)/.test(rest)) {
        fail("syntax", `global flags not at the start of the expression at offset ${p}`);
      } else if (rest.startsWith(">")) {
        fail("unsupported", `atomic group (?>…) at offset ${p}`);
      } else if (rest.startsWith("(")) {
        fail("unsupported", `conditional group (?(…)…) at offset ${p}`);
      } else {
        fail("syntax", `unknown extension ?${rest.slice(0, 2)} at offset ${p}`);
      }
      atom = false;
      quant = false;
      continue;
    }
    if (c === ")") {
      const prev = stack.pop();
      if (!prev) fail("syntax", `unbalanced parenthesis at offset ${p}`);
      Object.assign(st, prev);
      p++;
      // A lookaround is an assertion in JS u-mode and cannot be quantified; Python allows it, rarely useful.
      emitAtom(")");
      continue;
    }
    if (c === "*" || c === "+" || c === "?") {
      p++;
      emitQuant(c);
      continue;
    }
    if (c === "{") {
      const m = /^\{(\d*)(,(\d*))?\}/.exec(pattern.slice(p));
      if (!m || (m[1] === "" && m[2] === undefined)) {
        emitAtom("\\{");
        p++;
        continue;
      }
      const lo = m[1] === "" ? "0" : m[1]!;
      const hi = m[2] === undefined ? lo : m[3]!;
      if (hi !== "" && Number(hi) < Number(lo)) fail("syntax", `min repeat greater than max repeat at offset ${p}`);
      p += m[0].length;
      emitQuant(hi === lo && m[2] === undefined ? `{${lo}}` : `{${lo},${hi}}`);
      continue;
    }
    if (c === "}" || c === "]") {
      emitAtom(`\\${c}`);
      p++;
      continue;
    }
    if (c === ".") {
      emitAtom(st.s ? "[\\s\\S]" : "[^\\n]");
      p++;
      continue;
    }
    if (c === "^") {
      emitAssert(st.m ? "(?<![^\\n])" : "(?<![\\s\\S])");
      p++;
      continue;
    }
    if (c === "$") {
      emitAssert(st.m ? "(?=\\n|(?![\\s\\S]))" : "(?=\\n?(?![\\s\\S]))");
      p++;
      continue;
    }
    if (c === "|") {
      out += "|";
      atom = false;
      quant = false;
      p++;
      continue;
    }
    const cp = pattern.codePointAt(p)!;
    const ch = String.fromCodePoint(cp);
    emitAtom(ch === "/" ? "\\/" : ch);
    p += ch.length;
  }
  if (stack.length > 0) fail("syntax", "missing ), unterminated subpattern");
  return { source: out, flags: globalI ? "iu" : "u", groups };
}

function applyFlag(st: State, f: string, on: boolean, fail: (k: "syntax" | "unsupported", m: string) => never): void {
  if (f === "i") st.i = on;
  else if (f === "m") st.m = on;
  else if (f === "s") st.s = on;
  else if (f === "x") st.x = on;
  else if (f === "a") st.a = on;
  else if (f === "u") {
    /* str patterns are Unicode already */
  } else fail("unsupported", `inline flag ${f}`);
}

/** One escape outside a class: the JS text and whether it is a zero-width assertion. */
function escapeOutside(pattern: string, p: number, st: State, word: string, fail: (k: "syntax" | "unsupported", m: string) => never): { js: string; next: number; assert?: boolean } {
  const c = pattern[p + 1];
  if (c === undefined) fail("syntax", "bad escape (end of pattern)");
  const n = p + 2;
  const boundary = `(?:(?<=[${word}])(?![${word}])|(?<![${word}])(?=[${word}]))`;
  switch (c) {
    case "A":
      return { js: "(?<![\\s\\S])", next: n, assert: true };
    case "Z":
      return { js: "(?![\\s\\S])", next: n, assert: true };
    case "b":
      return { js: boundary, next: n, assert: true };
    case "B":
      return { js: `(?:(?<=[${word}])(?=[${word}])|(?<![${word}])(?![${word}]))`, next: n, assert: true };
    case "d":
      return { js: st.a ? "[0-9]" : "\\p{Nd}", next: n };
    case "D":
      return { js: st.a ? "[^0-9]" : "\\P{Nd}", next: n };
    case "w":
      return { js: `[${word}]`, next: n };
    case "W":
      return { js: `[^${word}]`, next: n };
    case "s":
      return { js: st.a ? "[\\t-\\r ]" : `[${PY_SPACE_CLASS}]`, next: n };
    case "S":
      return { js: st.a ? "[^\\t-\\r ]" : `[^${PY_SPACE_CLASS}]`, next: n };
  }
  return commonEscape(pattern, p, false, fail);
}

/** Escapes that mean the same inside and outside a class (characters, backreferences outside). */
function commonEscape(pattern: string, p: number, inClass: boolean, fail: (k: "syntax" | "unsupported", m: string) => never): { js: string; next: number } {
  const c = pattern[p + 1]!;
  const n = p + 2;
  const simple: Record<string, string> = { n: "\\n", t: "\\t", r: "\\r", f: "\\f", v: "\\v", a: "\\x07" };
  if (c in simple) return { js: simple[c]!, next: n };
  if (c === "x") {
    const m = /^[0-9a-fA-F]{2}/.exec(pattern.slice(n));
    if (!m) fail("syntax", `incomplete escape \\x at offset ${p}`);
    return { js: `\\x${m![0]}`, next: n + 2 };
  }
  if (c === "u" || c === "U") {
    const len = c === "u" ? 4 : 8;
    const m = new RegExp(`^[0-9a-fA-F]{${len}}`).exec(pattern.slice(n));
    if (!m) fail("syntax", `incomplete escape \\${c} at offset ${p}`);
    return { js: hex(parseInt(m![0], 16)), next: n + len };
  }
  if (c === "N") fail("unsupported", `named character escape \\N{…} at offset ${p}`);
  if (/[0-9]/.test(c)) {
    const digits = /^[0-9]{1,3}/.exec(pattern.slice(p + 1))![0];
    if (c === "0" || inClass || (digits.length === 3 && /^[0-7]{3}$/.test(digits))) {
      const oct = /^[0-7]{1,3}/.exec(pattern.slice(p + 1))?.[0] ?? "";
      if (oct === "" ) fail("syntax", `bad escape \\${c} at offset ${p}`);
      return { js: hex(parseInt(oct, 8)), next: p + 1 + oct.length };
    }
    const ref = /^[0-9]{1,2}/.exec(pattern.slice(p + 1))![0];
    return { js: `\\${ref}`, next: p + 1 + ref.length };
  }
  if (/[A-Za-z]/.test(c)) fail("syntax", `bad escape \\${c} at offset ${p}`);
  const cp = pattern.codePointAt(p + 1)!;
  const ch = String.fromCodePoint(cp);
  // JS u-mode accepts an escape only before its own syntax characters (and `-` in a class).
  const keep = JS_SYNTAX.has(ch) || (inClass && ch === "-");
  return { js: keep ? `\\${ch}` : ch, next: p + 1 + ch.length };
}

/** A bracketed class starting at `p`; returns the JS class and the offset after `]`. */
function charClass(pattern: string, p: number, st: State, fail: (k: "syntax" | "unsupported", m: string) => never): { js: string; next: number } {
  let q = p + 1;
  let js = "[";
  if (pattern[q] === "^") {
    js += "^";
    q++;
  }
  // Python reads a `]` right after `[` or `[^` as a literal.
  if (pattern[q] === "]") {
    js += "\\]";
    q++;
  }
  for (;;) {
    if (q >= pattern.length) fail("syntax", `unterminated character set at offset ${p}`);
    const c = pattern[q]!;
    if (c === "]") return { js: js + "]", next: q + 1 };
    if (c === "\\") {
      const e = pattern[q + 1];
      if (e === undefined) fail("syntax", "bad escape (end of pattern)");
      const m: Record<string, string> = st.a
        ? { d: "0-9", w: WORD_A, s: "\\t-\\r ", b: "\\x08" }
        : { d: "\\p{Nd}", D: "\\P{Nd}", w: WORD_U, s: PY_SPACE_CLASS, b: "\\x08" };
      if (e! in m) {
        js += m[e!];
        q += 2;
        continue;
      }
      if (e === "S" && !st.a) {
        // Python's non-space differs from \P{White_Space} only on U+001C–U+001F, which stay excluded here.
        js += "\\P{White_Space}";
        q += 2;
        continue;
      }
      if (e === "W" || e === "S" || e === "D") fail("unsupported", `\\${e} inside a character class at offset ${q}`);
      const r = commonEscape(pattern, q, true, fail);
      js += r.js;
      q = r.next;
      continue;
    }
    if (c === "[") {
      js += "\\[";
      q++;
      continue;
    }
    const cp = pattern.codePointAt(q)!;
    const ch = String.fromCodePoint(cp);
    js += ch === "/" ? "\\/" : ch;
    q += ch.length;
  }
}

/** A compiled Python pattern with Python's matching entry points. */
export class PyRegex {
  readonly re: RegExp;
  readonly groups: number;
  private readonly sticky: RegExp;
  private readonly full: RegExp;

  constructor(
    readonly pattern: string,
    flags: PyFlags = {},
  ) {
    const t = translatePyRegex(pattern, flags);
    try {
      this.re = new RegExp(t.source, `g${t.flags}`);
      this.sticky = new RegExp(t.source, `y${t.flags}`);
      this.full = new RegExp(`(?:${t.source})(?![\\s\\S])`, `y${t.flags}`);
    } catch (e) {
      throw new PyRegexError("unsupported", `Python regex ${JSON.stringify(pattern)} cannot be translated to JavaScript: ${(e as Error).message}`, pattern);
    }
    this.groups = t.groups;
  }

  /** `re.search`: the first match anywhere. */
  search(text: string): RegExpExecArray | null {
    this.re.lastIndex = 0;
    return this.re.exec(text);
  }

  /** `re.match`: a match at the start. */
  match(text: string): RegExpExecArray | null {
    this.sticky.lastIndex = 0;
    return this.sticky.exec(text);
  }

  /** `re.fullmatch`. */
  fullmatch(text: string): RegExpExecArray | null {
    this.full.lastIndex = 0;
    return this.full.exec(text);
  }

  /** `re.finditer`. */
  finditer(text: string): RegExpExecArray[] {
    this.re.lastIndex = 0;
    return [...text.matchAll(this.re)];
  }

  /** `re.findall`: the whole match with no groups, group 1 with one, a tuple with several (unmatched groups are ""). */
  findall(text: string): (string | string[])[] {
    return this.finditer(text).map((m) => (this.groups === 0 ? m[0] : this.groups === 1 ? (m[1] ?? "") : m.slice(1).map((g) => g ?? "")));
  }
}

const cache = new Map<string, PyRegex>();

/** A compiled pattern, cached by pattern and flags (rows repeat the same few regexes). */
export function pyRegex(pattern: string, flags: PyFlags = {}): PyRegex {
  const key = `${flags.ignoreCase ? "i" : ""}${flags.multiline ? "m" : ""}${flags.dotAll ? "s" : ""}${flags.verbose ? "x" : ""}${flags.ascii ? "a" : ""}:${pattern}`;
  let r = cache.get(key);
  if (!r) {
    r = new PyRegex(pattern, flags);
    if (cache.size > 1000) cache.clear();
    cache.set(key, r);
  }
  return r;
}
