/**
 * Read top-level `NAME = <literal>` assignments of a Python data module (e.g. lm-evaluation-harness'
 * mmlu_prox `lang_libs.py`) without running Python: dicts, lists, tuples, strings (single/double quoted,
 * the usual backslash escapes, adjacent literals concatenated), ints, True/False/None, `#` comments.
 * Anything else (calls, f-strings, triple quotes, expressions) is refused with the offending line.
 */

/** A module we cannot read as plain literals. */
export class PyLiteralError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PyLiteralError";
  }
}

const ESCAPES: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', n: "\n", t: "\t", r: "\r", "0": "\0", a: "\x07", b: "\b", f: "\f", v: "\v" };

/** The top-level assignments of `source`, by name. */
export function readPyAssignments(source: string): Record<string, unknown> {
  let i = 0;
  const line = () => source.slice(0, i).split("\n").length;
  const fail = (what: string): never => {
    throw new PyLiteralError(`line ${line()}: ${what}`);
  };
  /** Skip spaces, newlines and comments (inside brackets newlines do not matter; at top level we only read assignments). */
  const skip = () => {
    for (;;) {
      const ch = source[i];
      if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") i++;
      else if (ch === "#") while (i < source.length && source[i] !== "\n") i++;
      else if (ch === "\\" && source[i + 1] === "\n") i += 2;
      else return;
    }
  };
  const str = (): string => {
    const q = source[i]!;
    if (source.startsWith(q.repeat(3), i)) fail("triple-quoted strings are not read");
    i++;
    let out = "";
    for (;;) {
      const ch = source[i];
      if (ch === undefined || ch === "\n") fail("unterminated string");
      i++;
      if (ch === q) return out;
      if (ch !== "\\") {
        out += ch;
        continue;
      }
      const e = source[i++]!;
      if (e === "\n") continue;
      if (e === "u" || e === "x" || e === "U") {
        const n = e === "x" ? 2 : e === "u" ? 4 : 8;
        const hex = source.slice(i, i + n);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) fail(`bad \\${e} escape`);
        out += String.fromCodePoint(parseInt(hex, 16));
        i += n;
      } else out += ESCAPES[e] ?? `\\${e}`; // Python keeps an unknown escape as written.
    }
  };
  const value = (): unknown => {
    skip();
    const ch = source[i];
    if (ch === '"' || ch === "'") {
      let s = str();
      // Adjacent string literals concatenate.
      for (;;) {
        const save = i;
        skip();
        if (source[i] === '"' || source[i] === "'") s += str();
        else {
          i = save;
          return s;
        }
      }
    }
    if (ch === "{" || ch === "[" || ch === "(") {
      const close = ch === "{" ? "}" : ch === "[" ? "]" : ")";
      i++;
      const items: unknown[] = [];
      const dict: Record<string, unknown> = {};
      for (;;) {
        skip();
        if (source[i] === close) {
          i++;
          return ch === "{" ? dict : items;
        }
        const v = value();
        if (ch === "{") {
          if (typeof v !== "string") fail("only string dict keys are read");
          skip();
          if (source[i] !== ":") fail("expected ':'");
          i++;
          dict[v as string] = value();
        } else items.push(v);
        skip();
        if (source[i] === ",") i++;
        else if (source[i] !== close) fail(`expected ',' or '${close}'`);
      }
    }
    const word = /^(-?\d+|True|False|None)\b/.exec(source.slice(i, i + 40));
    if (word) {
      i += word[1]!.length;
      return word[1] === "True" ? true : word[1] === "False" ? false : word[1] === "None" ? null : Number(word[1]);
    }
    return fail(`not a literal: ${JSON.stringify(source.slice(i, i + 30))}`);
  };
  const out: Record<string, unknown> = {};
  for (;;) {
    skip();
    if (i >= source.length) return out;
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i, i + 200));
    if (!name) fail("expected an assignment");
    i += name![0].length;
    skip();
    if (source[i] !== "=" || source[i + 1] === "=") fail(`expected '=' after ${name![0]}`);
    i++;
    out[name![0]] = value();
  }
}
