/**
 * A CSV read the way upstream's preparers read it with `pandas.read_csv` defaults, for what the
 * benchmark data needs: pandas' default NA spellings become NaN, the first column is the index
 * (dropped) with `indexCol`. Columns stay text: pandas would read an all-numeric column as
 * numbers, which none of these sources has.
 */
import { parseCsvRecords } from "../dataset/formats/csv.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";

/** pandas' default `na_values` (a cell equal to one of these is NaN). */
const NA = new Set(["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]);

/** Rows as objects keyed by the header; NA cells are NaN. */
export function parsePandasCsv(text: string, name: string, opts: { indexCol?: boolean } = {}): Record<string, string | number>[] {
  const records = parseCsvRecords(text, name);
  const header = records[0];
  if (!header) return [];
  const first = opts.indexCol ? 1 : 0;
  return records.slice(1).map((rec, i) => {
    if (rec.length !== header.length) throw new SourceFormatError(`${name}:${i + 2}`, `expected ${header.length} fields, saw ${rec.length}`);
    const row: Record<string, string | number> = {};
    for (let j = first; j < header.length; j++) row[header[j]!] = NA.has(rec[j]!) ? Number.NaN : rec[j]!;
    return row;
  });
}
