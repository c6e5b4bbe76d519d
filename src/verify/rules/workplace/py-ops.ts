/**
 * The few Python behaviours WorkBench's tools lean on, for values that arrive as JSON tool arguments:
 * truthiness (`if not x`), `str.lower()` only on a str, `in` on str / list / dict, `==` with None and
 * NaN as pandas' equality sees them. A tool that would raise in Python throws a `PyError` carrying
 * Python's exception text, so the route answers the same "Error executing tool …" string and the
 * verifier's replay skips the action, as upstream does.
 */
import { pyEqual } from "../../../util/py-equal.ts";

/** A Python exception raised inside a tool (`kind` is its class name: TypeError, ValueError, …). */
export class PyError extends Error {
  override name = "PyError";
  constructor(readonly kind: string, message: string) {
    super(message);
  }
}

/** Python's type name of a JSON value (for exception texts). */
export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (typeof v === "string") return "str";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  return Array.isArray(v) ? "list" : "dict";
}

/** Python truthiness of a JSON value. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}

/** `v.lower()`: only a str has it. */
export function lower(v: unknown): string {
  if (typeof v !== "string") throw new PyError("AttributeError", `'${pyTypeName(v)}' object has no attribute 'lower'`);
  return v.toLowerCase();
}

/** `needle in hay` for a str, list or dict `hay`. */
export function pyIn(needle: unknown, hay: unknown): boolean {
  if (typeof hay === "string") {
    if (typeof needle !== "string") throw new PyError("TypeError", `'in <string>' requires string as left operand, not ${pyTypeName(needle)}`);
    return hay.includes(needle);
  }
  if (Array.isArray(hay)) return hay.some((x) => pyEqual(x as never, needle as never));
  if (hay && typeof hay === "object") return typeof needle === "string" && Object.hasOwn(hay, needle);
  throw new PyError("TypeError", `argument of type '${pyTypeName(hay)}' is not iterable`);
}

/** A missing cell: pandas reads an empty CSV field as NaN and a missing argument as None; its `equals` treats both alike. */
export function isNa(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "number" && Number.isNaN(v));
}

/** Cell equality as `DataFrame.equals` sees object columns: Python `==`, or both missing. */
export function cellEqual(a: unknown, b: unknown): boolean {
  if (isNa(a) || isNa(b)) return isNa(a) && isNa(b);
  return pyEqual(a as never, b as never);
}

/** An argument used as a hashable key (dict lookup, `x in columns`): lists and dicts raise as in Python. */
export function hashable(v: unknown): unknown {
  if (v !== null && typeof v === "object") throw new PyError("TypeError", `unhashable type: '${pyTypeName(v)}'`);
  return v;
}

/** Python `a < b` / `a >= b` on two strs (code-point order); other pairs raise TypeError as Python's do. */
export function strCompare(a: unknown, b: unknown, op: ">=" | "<="): boolean {
  if (typeof a !== "string" || typeof b !== "string") throw new PyError("TypeError", `'${op}' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
  // Code-point order, not UTF-16 units: Python compares strs by code point.
  const c = codePointCompare(a, b);
  return op === ">=" ? c >= 0 : c <= 0;
}

/** Compare two strings by code point (Python's str order). */
export function codePointCompare(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/** Python `str(v)` of a cell inside an f-string (NaN prints `nan`, None `None`, booleans `True`/`False`). */
export function fstr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "number") return Number.isNaN(v) ? "nan" : String(v);
  if (typeof v === "boolean") return v ? "True" : "False";
  return typeof v === "string" ? v : JSON.stringify(v);
}
