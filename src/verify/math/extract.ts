/** Finds answer candidates in text: anchors by priority, rightmost match first, the first that parses wins. */
import type { Node } from "./node.ts";
import { normalizeLatex } from "./normalize.ts";
import { type Anchor, anchorsFor } from "./patterns.ts";
import { parseLatex } from "./latex-parse.ts";
import { ratFromDecimal } from "./rational.ts";

/** What `parse` returns: parsed values first, then (fallback on) the first raw string. */
export type Candidate = Node | string;

/** Extraction settings (math-verify's parse arguments we use). */
export interface ExtractOptions {
  targets: readonly ("latex" | "expr")[];
  boxedPriority?: number;
  /** Append the first matched string as a last candidate (math-verify's fallback_mode="first_match"). */
  fallback?: boolean;
}

const COMPLEX = /\\mathbb\{C\}|\\i\b|\bi\b|\\text\{i\}|\\mathrm\{i\}|\\imath\b|\\det|\\operatorname\{tr\}|\\operatorname\{rank\}|\\text\{rank\}|\\arg\{|\\Re\{|\\Im\{|\\operatorname\{Re\}|\\operatorname\{Im\}|\\text\{Re\}|\\text\{Im\}/;
const EQ_SPLIT = /(?<![\\<!>])=/;

/** Parses normalised LaTeX; on failure retries on the part after the last `=` (as the reference does). */
export function parseNormalizedLatex(latex: string): Node {
  try {
    return parseLatex(latex, { complex: COMPLEX.test(latex) });
  } catch (e) {
    if (!latex.includes(",") && !latex.includes(";")) {
      const parts = latex.split(EQ_SPLIT);
      if (parts.length > 2) {
        const last = parts[parts.length - 1]!;
        return parseLatex(last, { complex: COMPLEX.test(last) });
      }
    }
    throw e;
  }
}

const pct = (x: Node): Node => ({ t: "pct", arg: x });

function extractLatex(m: RegExpExecArray): [Node | null, string] {
  const groups = m.groups ?? {};
  const spans: { text: string; name: string; prefix: string }[] = [];
  for (const prefix of ["first", "next1", "next2", "next3", "next4", "next5"]) {
    for (const [name, val] of Object.entries(groups)) {
      if (val && name.startsWith(`${prefix}_latex`)) {
        spans.push({ text: val, name: name.slice(prefix.length + 1), prefix });
        break;
      }
    }
  }
  if (spans.length === 0) return [null, ""];
  const values: (Node | null)[] = [];
  const strs: string[] = [];
  for (const s of spans) {
    const norm = normalizeLatex(s.text, s.name === "latexBoxed" ? "last" : "all");
    strs.push(norm);
    try {
      let v = parseNormalizedLatex(norm);
      if (groups[`${s.prefix}_percent`]) v = pct(v);
      values.push(v);
    } catch {
      values.push(null);
    }
  }
  if (values.length > 1 && values.every((v) => v !== null)) {
    const elems = (values as Node[]).flatMap((v) => (v.t === "set" ? v.elems : [v]));
    return [{ t: "set", elems }, strs.join(" and ")];
  }
  return [values[0]!, strs[0]!];
}

function extractExpr(m: RegExpExecArray): [Node | null, string] {
  const g = m.groups ?? {};
  const integer = g.integer1 ?? g.integer2 ?? g.integer3 ?? "";
  const decimal = g.decimal1 ?? g.decimal2 ?? g.decimal3 ?? "";
  if (integer || decimal) {
    const neg = integer.startsWith("-");
    let digits = integer.replace(/[, ]/g, "").replace(/^-/, "").replace(/^0+/, "");
    if (digits === "") digits = "0";
    const text = `${neg ? "-" : ""}${digits}${decimal.replace(",", ".")}`;
    const v = ratFromDecimal(asciiDigits(text));
    if (!v) return [null, text];
    const num: Node = { t: "num", v, float: decimal !== "" };
    return [g.percent ? pct(num) : num, text];
  }
  const expr = g.expr ?? "";
  if (expr) {
    try {
      const src = asciiDigits(expr.replaceAll("\n", " ").replaceAll("**", "^").replaceAll("×", "*").replaceAll("÷", "/"));
      return [parseLatex(src, { complex: false, plain: true }), expr];
    } catch {
      return [null, expr];
    }
  }
  return [null, expr];
}

function asciiDigits(s: string): string {
  return s.replace(/\p{Nd}/gu, (c) => (/[0-9]/.test(c) ? c : String(Number.parseInt(c, 10) || digitValue(c))));
}
function digitValue(c: string): number {
  const code = c.codePointAt(0)!;
  // Unicode decimal digits come in runs of ten starting at a code point ending in 0 (or 6 for some scripts).
  for (const base of [0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66, 0xe50, 0xed0, 0xff10]) {
    if (code >= base && code < base + 10) return code - base;
  }
  return 0;
}

/** Longest run of expression characters (digits, spaces, operators) the anchors see. */
export const MAX_EXPR_RUN = 2000;
const LONG_RUN = new RegExp(`[\\p{Nd}.\\s+\\-*×/^()÷]{${MAX_EXPR_RUN + 1},}`, "gu");

// The plain-expression anchor backtracks over a run of expression characters once per start position
// (quadratic; upstream's 5 s alarm cuts it off). Keeping only the last MAX_EXPR_RUN characters of such a
// run bounds the work deterministically; no real answer is a 2000-character run of digits and operators.
function capRuns(text: string): string {
  return text.replace(LONG_RUN, (run) => run.slice(run.length - MAX_EXPR_RUN));
}

/** Extracts candidates from text with math-verify's ordering rules. */
export function extractCandidates(input: string, opts: ExtractOptions): Candidate[] {
  const text = capRuns(input);
  const anchors = anchorsFor(opts.targets, opts.boxedPriority ?? 50);
  const byPriority = new Map<number, Anchor[]>();
  for (const a of anchors) {
    const list = byPriority.get(a.priority) ?? [];
    list.push(a);
    byPriority.set(a.priority, list);
  }
  const out: Candidate[] = [];
  let fallback: string | null = null;
  for (const p of [...byPriority.keys()].sort((x, y) => x - y)) {
    const matches: { m: RegExpExecArray; kind: "latex" | "expr"; order: number }[] = [];
    let order = 0;
    for (const a of byPriority.get(p)!) {
      a.re.lastIndex = 0;
      for (const m of text.matchAll(a.re)) matches.push({ m: m as RegExpExecArray, kind: a.kind, order: order++ });
    }
    // Rightmost end first; for equal ends the earlier start (the longer match) first.
    matches.sort((x, y) => {
      const ex = x.m.index + x.m[0].length;
      const ey = y.m.index + y.m[0].length;
      return ey - ex || x.m.index - y.m.index || x.order - y.order;
    });
    let got = false;
    for (const { m, kind } of matches) {
      const [value, str] = kind === "latex" ? extractLatex(m) : extractExpr(m);
      if (str && fallback === null) fallback = str;
      if (value !== null) {
        out.push(value);
        got = true;
        break;
      }
    }
    if (got) break;
  }
  if (opts.fallback !== false && fallback !== null) out.push(fallback);
  return out;
}
