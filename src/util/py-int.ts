/** Python's `int(x)` for a str or a JSON number, so upstream's parsing accepts and refuses the same inputs. */
import { pyStrip } from "./py-str.ts";

/** Why `int(x)` failed (Python's ValueError / TypeError). */
export class PyIntError extends Error {
  override name = "PyIntError";
}

/** `int(x)`: strings of (ASCII) digits with sign, underscores and surrounding whitespace; numbers truncate; booleans are 0/1. */
export function pyInt(x: unknown): number {
  if (typeof x === "boolean") return x ? 1 : 0;
  if (typeof x === "number") {
    if (!Number.isFinite(x)) throw new PyIntError(`cannot convert float ${x} to integer`);
    return Math.trunc(x);
  }
  if (typeof x === "string") {
    const s = pyStrip(x);
    if (!/^[+-]?\d+(?:_\d+)*$/.test(s)) throw new PyIntError(`invalid literal for int() with base 10: ${JSON.stringify(x)}`);
    return Number.parseInt(s.replaceAll("_", ""), 10);
  }
  throw new PyIntError(`int() argument must be a string or a number, not ${x === null ? "NoneType" : Array.isArray(x) ? "list" : typeof x}`);
}

/** Python `float(x)` for a str or a JSON number (inf / nan spellings included). */
export function pyFloat(x: unknown): number {
  if (typeof x === "boolean") return x ? 1 : 0;
  if (typeof x === "number") return x;
  if (typeof x === "string") {
    const s = pyStrip(x).toLowerCase().replaceAll(/(?<=\d)_(?=\d)/g, "");
    if (/^[+-]?(?:inf|infinity)$/.test(s)) return s.startsWith("-") ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(s)) return Number.NaN;
    if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/.test(s)) return Number(s);
    throw new PyIntError(`could not convert string to float: ${JSON.stringify(x)}`);
  }
  throw new PyIntError(`float() argument must be a string or a real number, not ${x === null ? "NoneType" : typeof x}`);
}
