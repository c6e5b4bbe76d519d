/**
 * The values a SQL result row holds, typed as Python's sqlite3 hands them over: INTEGER → int
 * (`bigint`, so 64-bit values stay exact and ints stay apart from floats), REAL → float (`number`),
 * TEXT → str, BLOB → bytes (`Uint8Array`), NULL → None (`null`). Gold rows read from JSON may also
 * hold booleans. Python's `str()` of each is here because upstream sorts by it.
 */
import { pyBytesRepr } from "../../../util/py-repr.ts";
import { PyFloat } from "../../../util/py-json-typed.ts";

/** One cell of a result row. */
export type SqlValue = null | bigint | number | string | Uint8Array | boolean;

/** One result row (a Python tuple). */
export type SqlRow = readonly SqlValue[];

/** Python's `repr(float)`: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pyFloatRepr(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  if (Object.is(n, -0)) return "-0.0";
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e16)) {
    // toExponential() with no argument gives the shortest round-trip mantissa, as repr does.
    const [m, e] = n.toExponential().split("e") as [string, string];
    const exp = Number(e);
    return `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  const s = String(n);
  return s.includes(".") || s.includes("e") ? s : `${s}.0`;
}

/** Python's `str(x)` of a cell. */
export function pyStrOfValue(v: SqlValue): string {
  if (v === null) return "None";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return pyFloatRepr(v);
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "string") return v;
  return pyBytesRepr(v);
}

/** A cell of a JSON value read with `jsonLoadsTyped` (ints → bigint, PyFloat → number). */
export function sqlValueOfJson(v: unknown): SqlValue {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  // Lists/dicts cannot come out of a SQL engine; keep their JSON text so they only equal themselves.
  return JSON.stringify(v);
}
