/**
 * Python `str()` and `json.dumps()` of values parsed by `jsonLoadsTyped` (util/py-json-typed.ts),
 * whose floats are `PyFloat`: `1.0` stays `1.0`, as upstream prints a parsed tool argument.
 */
import { PyFloat } from "./py-json-typed.ts";
import { pyJsonString } from "./py-json-dumps.ts";
import { pyStrRepr } from "./py-repr.ts";

/** Python `repr(float)`: shortest round-trip digits, `.0` on integral values, exponent outside [1e-4, 1e16). */
export function pyFloatRepr(v: number): string {
  if (Number.isNaN(v)) return "nan";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  const abs = Math.abs(v);
  if (abs >= 1e16 || abs < 1e-4) return v.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
  const s = String(v);
  return s.includes(".") ? s : `${s}.0`;
}

function repr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
  if (typeof v === "string") return pyStrRepr(v);
  if (Array.isArray(v)) return `[${v.map(repr).join(", ")}]`;
  return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${pyStrRepr(k)}: ${repr(x)}`).join(", ")}}`;
}

/** `str(v)`: strings bare, everything else as Python's repr. */
export function pyTypedStr(v: unknown): string {
  return typeof v === "string" ? v : repr(v);
}

function dumpFloat(v: number): string {
  return Number.isNaN(v) ? "NaN" : !Number.isFinite(v) ? (v > 0 ? "Infinity" : "-Infinity") : pyFloatRepr(v);
}

/** json.dumps options: `sort_keys` (by code point, as Python sorts str) and compact `(",", ":")` separators. */
export interface PyDumpsOptions {
  sortKeys?: boolean;
  compact?: boolean;
}

/** Python str ordering: by code point (JS compares UTF-16 units, which differs past U+FFFF). */
export function byCodePoint(a: string, b: string): number {
  const x = [...a], y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
  return x.length - y.length;
}

/** `json.dumps(v)` with Python's defaults (`", "`, `": "`, ensure_ascii), PyFloat printed as a float. */
export function pyTypedDumps(v: unknown, opts: PyDumpsOptions = {}): string {
  const item = opts.compact ? "," : ", ", kv = opts.compact ? ":" : ": ";
  const go = (x: unknown): string => {
    if (x === null || x === undefined) return "null";
    if (x === true) return "true";
    if (x === false) return "false";
    if (x instanceof PyFloat) return dumpFloat(x.value);
    if (typeof x === "number") return Number.isInteger(x) ? String(x) : dumpFloat(x);
    if (typeof x === "string") return pyJsonString(x, true);
    if (Array.isArray(x)) return `[${x.map(go).join(item)}]`;
    const entries = Object.entries(x as Record<string, unknown>);
    if (opts.sortKeys) entries.sort(([a], [b]) => byCodePoint(a, b));
    return `{${entries.map(([k, y]) => `${pyJsonString(k, true)}${kv}${go(y)}`).join(item)}}`;
  };
  return go(v);
}
