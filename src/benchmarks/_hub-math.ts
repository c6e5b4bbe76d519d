/**
 * Shared pieces of the math benchmarks read with `datasets.load_dataset(repo, split=…)` upstream
 * (aime24/25/26, hmmt_feb25/nov25, apex_shortlist, aime24-x/25-x): the split's parquet files,
 * each row with the column types the parquet schema declares, so `str(row["answer"])` prints an
 * int64 column as `7` and a double column as `7.0`, exactly as Python would.
 */
import { parquetMetadata } from "hyparquet";
import { readParquet } from "../dataset/formats/parquet.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import type { SourceFile } from "./types.ts";

/** One source row plus the names of its floating-point columns. */
export interface TypedRow {
  row: Record<string, unknown>;
  floats: Set<string>;
  where: string;
}

/** Every row of a split's parquet files, in file order. */
export async function readSplit(files: SourceFile[]): Promise<TypedRow[]> {
  const out: TypedRow[] = [];
  for (const file of files) {
    const rows = await readParquet(file.bytes, file.name);
    const floats = floatColumns(file.bytes);
    rows.forEach((row, i) => out.push({ row, floats, where: `${file.name}: row ${i + 1}` }));
  }
  return out;
}

function floatColumns(bytes: Uint8Array): Set<string> {
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const names = new Set<string>();
  for (const el of parquetMetadata(buf).schema) if (el.type === "DOUBLE" || el.type === "FLOAT") names.add(el.name);
  return names;
}

/** Python's `repr(float)` for a finite double (what `str()` prints): `7.0`, `0.1`, `1e+16`, `1e-05`. */
export function pyFloatStr(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  const abs = Math.abs(n);
  if (abs !== 0 && (abs >= 1e16 || abs < 1e-4)) {
    // Python switches to exponent form from 1e16 up and below 1e-4, with at least two exponent digits.
    return n.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
  }
  const s = String(n);
  return Number.isInteger(n) ? `${s}.0` : s;
}

/** The string field `key` of a row, or an error naming the file and row. */
export function textField(t: TypedRow, key: string): string {
  const v = t.row[key];
  if (typeof v !== "string") throw new SourceFormatError(t.where, `the row's '${key}' is ${v === undefined ? "missing" : `not a string (${JSON.stringify(v)?.slice(0, 60)})`}`);
  return v;
}

/** Python's `str(row[key])` of a scalar cell (KeyError → a SourceFormatError). */
export function strField(t: TypedRow, key: string): string {
  if (!Object.hasOwn(t.row, key)) throw new SourceFormatError(t.where, `the row has no '${key}' field`);
  const v = t.row[key];
  if (typeof v === "string") return v;
  if (typeof v === "number") return t.floats.has(key) ? pyFloatStr(v) : String(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "boolean") return v ? "True" : "False";
  if (v === null || v === undefined) return "None";
  throw new SourceFormatError(t.where, `the row's '${key}' is not a scalar (${JSON.stringify(v)?.slice(0, 60)})`);
}
