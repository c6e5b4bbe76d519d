/**
 * pandas' `Series.str` operations the tools use: `str.contains(pat, case=False)` is a Python `re`
 * search (the query is a regex, so "c++" is an error and "." matches anything), a NaN or non-str cell
 * yields NaN, and boolean indexing with a NaN in the mask raises unless the call passed `na=False`.
 */
import { pyRegex, PyRegexError } from "../../../util/py-regex.ts";
import { isNa, PyError } from "./py-ops.ts";
import type { Row, Table } from "./table.ts";

/** `df[col].str.contains(pat, case=False[, na=False])` as a row predicate (throws where pandas would). */
export function containsMask(t: Table, col: string, pat: unknown, naFalse: boolean): (row: Row) => boolean {
  if (typeof pat !== "string") throw new PyError("TypeError", "first argument must be string or compiled pattern");
  let re;
  try {
    re = pyRegex(pat, { ignoreCase: true });
  } catch (e) {
    if (e instanceof PyRegexError) throw new PyError("error", e.message);
    throw e;
  }
  const hits = new Set<Row>();
  for (const r of t.rows) {
    const v = r[col];
    if (typeof v === "string") {
      if (re.search(v)) hits.add(r);
    } else if (!naFalse) {
      // NaN, None or a non-str cell gives NaN in the mask.
      throw new PyError("ValueError", "Cannot mask with non-boolean array containing NA / NaN values");
    }
  }
  return (row) => hits.has(row);
}

/**
 * `df[col].str.lower()` for the verifier: strs lowered, anything else NaN (null). pandas refuses the
 * `.str` accessor outright on a column whose non-missing cells hold no str at all (ints only, bools only).
 */
export function lowerColumn(values: readonly unknown[]): unknown[] {
  const present = values.filter((v) => !isNa(v));
  if (present.length > 0 && !present.some((v) => typeof v === "string") && present.every((v) => typeof v === typeof present[0])) {
    throw new PyError("AttributeError", "Can only use .str accessor with string values!");
  }
  return values.map((v) => (typeof v === "string" ? v.toLowerCase() : null));
}
