/**
 * `json.loads` keeping Python's int/float distinction, which JSON.parse loses (`1.0` and `1` both
 * become 1): a number spelled with `.`, `e` or `E` is a `PyFloat`. Needed where upstream compares
 * types (`isinstance(actual, type(expected))`).
 */

/** A JSON number that Python reads as a float. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** Python's type name of a typed JSON value. */
export type PyType = "dict" | "list" | "str" | "int" | "float" | "bool" | "NoneType";

/** Parse JSON text; floats come back as `PyFloat`. Throws SyntaxError like JSON.parse. */
export function jsonLoadsTyped(text: string): unknown {
  // Bun passes the source text of each primitive to the reviver (JSON.parse source text access).
  return JSON.parse(text, (_k, v, ctx?: { source?: string }) => (typeof v === "number" && ctx?.source !== undefined && /[.eE]/.test(ctx.source) ? new PyFloat(v) : v));
}

/** The Python type of a value from `jsonLoadsTyped`. */
export function pyType(v: unknown): PyType {
  if (v === null) return "NoneType";
  if (v instanceof PyFloat) return "float";
  if (typeof v === "number") return "int";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "str";
  if (Array.isArray(v)) return "list";
  return "dict";
}

/** The numeric value of an int, float or bool. */
export function pyNum(v: unknown): number {
  return v instanceof PyFloat ? v.value : typeof v === "boolean" ? (v ? 1 : 0) : (v as number);
}
