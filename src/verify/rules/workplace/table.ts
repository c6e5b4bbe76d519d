/**
 * An immutable pandas-DataFrame stand-in for WorkBench's tables: ordered columns, records, and the
 * row index labels. The labels matter because upstream's verifier compares final tables with
 * `DataFrame.equals`, which compares the index too: a row appended with `pd.concat(...,
 * ignore_index=True)` renumbers every label, a plain `pd.concat` gives the new row label 0, and a
 * filtered delete keeps the survivors' labels. Every operation returns a new table, so seeded
 * sessions share the pristine tables until they change them.
 */
import { csvRows } from "../../structured/csv.ts";
import { codePointCompare, isNa, PyError, pyTypeName } from "./py-ops.ts";

/** One row: column name → cell (a str from the CSV, null for NaN/None, or a raw JSON argument value). */
export type Row = Readonly<Record<string, unknown>>;

/** A table: columns in order, rows, and each row's index label. */
export interface Table {
  readonly columns: readonly string[];
  readonly rows: readonly Row[];
  readonly index: readonly number[];
}

/** pandas' default `na_values`: `read_csv(dtype=str)` still reads these fields as NaN. */
const PANDAS_NA = new Set(["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]);

/** `pd.read_csv(text, dtype=str)` (header row), or with `names` for a header-less file. */
export function readCsv(text: string, names?: readonly string[]): Table {
  const all = csvRows(text).filter((r) => r.length > 0 && !(r.length === 1 && r[0] === ""));
  const columns = names ?? all[0] ?? [];
  const body = names ? all : all.slice(1);
  const rows = body.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i] === undefined || PANDAS_NA.has(r[i]!) ? null : r[i]])));
  return { columns, rows, index: rows.map((_, i) => i) };
}

/** A table from records (a test fixture's `pd.DataFrame(records)`): columns in first-seen order. */
export function fromRecords(records: readonly Record<string, unknown>[]): Table {
  const columns: string[] = [];
  for (const r of records) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
  const rows = records.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null])));
  return { columns, rows, index: rows.map((_, i) => i) };
}

/** `df.to_dict(orient="records")`: fresh objects, columns in table order. */
export function records(t: Table): Record<string, unknown>[] {
  return t.rows.map((r) => Object.fromEntries(t.columns.map((c) => [c, r[c] ?? null])));
}

/** `df[mask]`: survivors keep their labels. */
export function filterRows(t: Table, keep: (row: Row) => boolean): Table {
  const rows: Row[] = [];
  const index: number[] = [];
  t.rows.forEach((r, i) => {
    if (keep(r)) {
      rows.push(r);
      index.push(t.index[i]!);
    }
  });
  return { columns: t.columns, rows, index };
}

/**
 * `pd.concat([df, pd.DataFrame([row])], ignore_index=…)`: columns align on the table's order (the new
 * frame's extra columns append); `ignoreIndex` renumbers 0..n, otherwise the new row is labelled 0.
 */
export function appendRow(t: Table, row: Record<string, unknown>, ignoreIndex: boolean): Table {
  const columns = [...t.columns, ...Object.keys(row).filter((k) => !t.columns.includes(k))];
  const rows = [...t.rows, row];
  const index = ignoreIndex ? rows.map((_, i) => i) : [...t.index, 0];
  return { columns, rows, index };
}

/** `df.loc[len(df)] = [value…]` (analytics' plot list): the new label is the row count. */
export function appendAtLen(t: Table, row: Record<string, unknown>): Table {
  return { columns: t.columns, rows: [...t.rows, row], index: [...t.index, t.rows.length] };
}

/** `df.loc[mask, field] = value`. */
export function setWhere(t: Table, match: (row: Row) => boolean, field: string, value: unknown): Table {
  if (Array.isArray(value) || (value !== null && typeof value === "object")) {
    // pandas refuses a list-like for a scalar cell unless the lengths line up; WorkBench never sends one.
    throw new PyError("ValueError", "Must have equal len keys and value when setting with an iterable");
  }
  const columns = t.columns.includes(field) ? t.columns : [...t.columns, field];
  return { columns, rows: t.rows.map((r) => (match(r) ? { ...r, [field]: value } : r)), index: t.index };
}

/** `value in df[col].values` (numpy `==` per cell, any). */
export function columnHas(t: Table, col: string, value: unknown): boolean {
  return t.rows.some((r) => r[col] === value && !isNa(value));
}

/**
 * `int(df[col].max())` on a str column: pandas' object max is Python's `max` (code-point order, so
 * "581" > "00000580"); an empty column's max is NaN, which `int()` refuses.
 */
export function intOfMax(t: Table, col: string): number {
  const vals = t.rows.map((r) => r[col]).filter((v) => !isNa(v));
  if (vals.length === 0) throw new PyError("ValueError", "cannot convert float NaN to integer");
  let best = vals[0];
  for (const v of vals.slice(1)) {
    if (typeof v !== "string" || typeof best !== "string") {
      if (typeof v === "number" && typeof best === "number") best = v > best ? v : best;
      else throw new PyError("TypeError", `'>' not supported between instances of '${pyTypeName(v)}' and '${pyTypeName(best)}'`);
    } else if (codePointCompare(v, best) > 0) best = v;
  }
  if (typeof best === "number") return Math.trunc(best);
  const s = String(best).trim();
  if (!/^[+-]?\d+$/.test(s)) throw new PyError("ValueError", `invalid literal for int() with base 10: '${String(best)}'`);
  return Number.parseInt(s, 10);
}

/** `str(n).zfill(8)`. */
export function zfill8(n: number): string {
  const s = String(Math.abs(n)).padStart(n < 0 ? 7 : 8, "0");
  return n < 0 ? `-${s}` : s;
}
