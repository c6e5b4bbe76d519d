/**
 * Tokenizer for the value part of a Hydra 1.3 override (`key=<value>`), reproducing the
 * override lexer's value mode: longest match wins, ties go to the rule listed first, so
 * `true` is a bool, `trueish` an identifier, `007` two tokens (and therefore a string).
 */

/** Token kinds of Hydra's value mode (QUOTED carries the decoded text). */
export type TokKind =
  | "POPEN"
  | "COMMA"
  | "PCLOSE"
  | "BRACKET_OPEN"
  | "BRACKET_CLOSE"
  | "BRACE_OPEN"
  | "BRACE_CLOSE"
  | "COLON"
  | "EQUAL"
  | "FLOAT"
  | "INT"
  | "BOOL"
  | "NULL"
  | "UNQUOTED_CHAR"
  | "ID"
  | "ESC"
  | "WS"
  | "INTERPOLATION"
  | "QUOTED";

/** One token: its kind, source text, start offset and (for QUOTED) decoded value. */
export interface Tok {
  kind: TokKind;
  text: string;
  pos: number;
  value?: string;
}

/** A lexing problem: what is wrong and at which offset of the value. */
export class LexError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
    this.name = "LexError";
  }
}

const INT_U = "(?:0|[1-9](?:_?[0-9])*)";
const DIGITS = "[0-9](?:_?[0-9])*";
const POINT = `(?:${INT_U}?\\.${DIGITS}|${INT_U}\\.)`;
const EXP = `(?:(?:${POINT}|${INT_U})[eE][+-]?${DIGITS})`;

/** Full-match patterns, shared with the interpolation grammar (same number rules). */
export const FLOAT_RE = new RegExp(`^[+-]?(?:${EXP}|${POINT}|[Ii][Nn][Ff]|[Nn][Aa][Nn])$`);
/** Integer literal (sign and `_` separators allowed, no leading zeros). */
export const INT_RE = new RegExp(`^[+-]?${INT_U}$`);
/** Case-insensitive `true` / `false`. */
export const BOOL_RE = /^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$/;
/** Case-insensitive `null`. */
export const NULL_RE = /^[Nn][Uu][Ll][Ll]$/;

// Rules in Hydra's declaration order (the order breaks ties between equal-length matches).
const RULES: [TokKind, RegExp][] = [
  ["POPEN", /[ \t]*\([ \t]*/y],
  ["COMMA", /[ \t]*,[ \t]*/y],
  ["PCLOSE", /[ \t]*\)/y],
  ["BRACKET_OPEN", /\[[ \t]*/y],
  ["BRACKET_CLOSE", /[ \t]*\]/y],
  ["BRACE_OPEN", /\{[ \t]*/y],
  ["BRACE_CLOSE", /[ \t]*\}/y],
  ["COLON", /[ \t]*:[ \t]*/y],
  ["EQUAL", /[ \t]*=[ \t]*/y],
  ["FLOAT", new RegExp(`[+-]?(?:${EXP}|${POINT}|[Ii][Nn][Ff]|[Nn][Aa][Nn])`, "y")],
  ["INT", new RegExp(`[+-]?${INT_U}`, "y")],
  ["BOOL", /(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])/y],
  ["NULL", /[Nn][Uu][Ll][Ll]/y],
  ["UNQUOTED_CHAR", /[/\-\\+.$%*@?|]/y],
  // Hydra's CHAR is [a-zA-Z]; gym also accepts non-ASCII letters (a superset, never a conflict).
  ["ID", /[\p{L}_][\p{L}\p{N}_\-]*/uy],
  ["ESC", /(?:\\\\|\\\(|\\\)|\\\[|\\\]|\\\{|\\\}|\\:|\\=|\\,|\\ |\\\t)+/y],
  ["WS", /[ \t]+/y],
];

function longestRule(src: string, pos: number): { kind: TokKind; len: number } | undefined {
  let best: { kind: TokKind; len: number } | undefined;
  for (const [kind, re] of RULES) {
    re.lastIndex = pos;
    const m = re.exec(src);
    if (!m || m[0].length === 0) continue;
    if (!best || m[0].length > best.len) best = { kind, len: m[0].length };
  }
  return best;
}

/**
 * Length of a `${…}` starting at `pos`, or 0. Hydra stops at the first `}`; gym also balances
 * nested `${…}` so `${a.${b}}` stays one token (a superset of what Hydra accepts).
 */
export function interpolationLength(src: string, pos: number): number {
  if (!src.startsWith("${", pos)) return 0;
  let depth = 0;
  for (let i = pos; i < src.length; i++) {
    if (src.startsWith("${", i)) {
      depth++;
      i++;
    } else if (src[i] === "}") {
      depth--;
      if (depth === 0) return i + 1 - pos > 3 ? i + 1 - pos : 0;
    }
  }
  return 0;
}

function lexQuoted(src: string, pos: number): Tok {
  const q = src[pos]!;
  let out = "";
  let hasInterpolation = false;
  let i = pos + 1;
  while (i < src.length) {
    const c = src[i]!;
    if (c === q) {
      // Hydra un-escapes `\\` only when the string holds no interpolation; OmegaConf does it otherwise.
      const value = hasInterpolation ? out : out.replaceAll("\\\\", "\\");
      return { kind: "QUOTED", text: src.slice(pos, i + 1), pos, value };
    }
    if (c === "\\" && src[i + 1] === q) {
      out += q;
      i += 2;
      continue;
    }
    if (c === "\\" && src[i + 1] === "\\") {
      out += "\\\\";
      i += 2;
      continue;
    }
    const n = c === "$" ? interpolationLength(src, i) : 0;
    if (n > 0) {
      hasInterpolation = true;
      out += src.slice(i, i + n);
      i += n;
      continue;
    }
    out += c;
    i++;
  }
  throw new LexError(`unterminated ${q === "'" ? "single" : "double"}-quoted string starting at column ${pos + 1}`, pos);
}

/** Split an override value into tokens; throws LexError on a character Hydra rejects. */
export function lexValue(src: string): Tok[] {
  const toks: Tok[] = [];
  let pos = 0;
  while (pos < src.length) {
    const c = src[pos]!;
    if (c === "'" || c === '"') {
      const t = lexQuoted(src, pos);
      toks.push(t);
      pos += t.text.length;
      continue;
    }
    const interp = c === "$" ? interpolationLength(src, pos) : 0;
    const rule = longestRule(src, pos);
    if (interp > 0 && (!rule || interp >= rule.len)) {
      toks.push({ kind: "INTERPOLATION", text: src.slice(pos, pos + interp), pos });
      pos += interp;
      continue;
    }
    if (!rule) throw new LexError(`token recognition error at: '${c}' (column ${pos + 1})`, pos);
    toks.push({ kind: rule.kind, text: src.slice(pos, pos + rule.len), pos });
    pos += rule.len;
  }
  return toks;
}
