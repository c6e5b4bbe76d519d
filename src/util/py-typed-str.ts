/**
 * Python `str()` and `json.dumps()` of values parsed by `jsonLoadsTyped` (util/py-json-typed.ts),
 * whose floats are `PyFloat`: `1.0` stays `1.0`, as upstream prints a parsed tool argument.
 */
import { PyFloat } from "./py-json-typed.ts";
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

function dumpStr(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20 || c > 0x7e) for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

function dumpFloat(v: number): string {
  return Number.isNaN(v) ? "NaN" : !Number.isFinite(v) ? (v > 0 ? "Infinity" : "-Infinity") : pyFloatRepr(v);
}

/** `json.dumps(v)` with Python's defaults (`", "`, `": "`, ensure_ascii), PyFloat printed as a float. */
export function pyTypedDumps(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (v === true) return "true";
  if (v === false) return "false";
  if (v instanceof PyFloat) return dumpFloat(v.value);
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : dumpFloat(v);
  if (typeof v === "string") return dumpStr(v);
  if (Array.isArray(v)) return `[${v.map(pyTypedDumps).join(", ")}]`;
  return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${dumpStr(k)}: ${pyTypedDumps(x)}`).join(", ")}}`;
}
