/**
 * Python's view of JSON numbers for `gym dataset render` (components §6–§7): JSON in JS loses the
 * int/float distinction (`1.0` → 1) and big-int precision, while upstream renders `str(1.0)` as
 * `1.0` in prompts and `json.dumps` writes `1.0` back. Rows are parsed keeping the source text of
 * every number whose Python rendering differs from JavaScript's, as a PyNumber; the prompt text
 * and the output line are then rendered from it.
 */
import { pyStrRepr } from "../util/py-repr.ts";
import { pyJsonDumps } from "../util/py-json.ts";

/** A JSON number whose Python rendering is not JavaScript's `String(n)`. */
export class PyNumber {
  constructor(
    /** What Python's `str()`/`json.dumps` write for it. */
    readonly text: string,
    /** The nearest JS number (for checks that only need the magnitude). */
    readonly value: number,
  ) {}
}

/** Python `repr(float)`: shortest round-trip digits, `.0` on integral values, exponent outside [1e-4, 1e16). */
export function pyFloatRepr(v: number): string {
  if (Number.isNaN(v)) return "nan";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  const abs = Math.abs(v);
  if (abs >= 1e16 || abs < 1e-4) {
    const [mant, exp] = v.toExponential().split("e") as [string, string];
    const sign = exp.startsWith("-") ? "-" : "+";
    return `${mant}e${sign}${exp.replace(/^[+-]/, "").padStart(2, "0")}`;
  }
  const s = String(v);
  return s.includes(".") ? s : `${s}.0`;
}

/** Python's rendering of a JSON number token: ints keep their digits, floats use `repr(float)`. */
function pyNumberText(source: string, value: number): string {
  return /[.eE]/.test(source) ? pyFloatRepr(value) : source.replace(/^-0$/, "0");
}

/** `json.loads` of one JSONL line, keeping Python's view of numbers that JS would change. */
export function parsePyJson(line: string): unknown {
  return JSON.parse(line, function (this: unknown, _key: string, value: unknown, ctx?: { source?: string }) {
    if (typeof value !== "number" || ctx?.source === undefined) return value;
    const text = pyNumberText(ctx.source, value);
    return text === String(value) ? value : new PyNumber(text, value);
  } as (this: unknown, key: string, value: unknown) => unknown);
}

/** Python `str()` of a parsed value (top-level strings bare, nested ones as their repr). */
export function pyStrOf(v: unknown, nested = false): string {
  if (v instanceof PyNumber) return v.text;
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "string") return nested ? pyStrRepr(v) : v;
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
  if (Array.isArray(v)) return `[${v.map((x) => pyStrOf(x, true)).join(", ")}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pyStrRepr(k)}: ${pyStrOf(x, true)}`)
    .join(", ")}}`;
}

/** `json.dumps(value)` as Python writes it, PyNumbers included. */
export function pyDumps(v: unknown): string {
  if (v instanceof PyNumber) return v.text;
  if (Array.isArray(v)) return `[${v.map(pyDumps).join(", ")}]`;
  if (v !== null && typeof v === "object") {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${pyJsonDumps(k)}: ${pyDumps(x)}`)
      .join(", ")}}`;
  }
  if (typeof v === "number" && !Number.isInteger(v)) return pyFloatRepr(v);
  return pyJsonDumps(v);
}
