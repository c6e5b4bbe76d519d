/**
 * Python's `csv.reader` (excel dialect: `,` delimiter, `"` quotes doubled inside quoted fields) over
 * `io.StringIO(text)` (records end at `\n`; `\r\n` and a lone `\r` end a record too), and
 * `csv.DictReader` on top (first row = field names; blank rows skipped; short rows padded with
 * null, long rows' extras under the `null` key as upstream's restkey None).
 */

/** A record Python's csv module refuses (its `_csv.Error`). */
export class CsvError extends Error {
  override name = "Error";
}

/** The rows of `csv.reader(io.StringIO(text))` (CPython's state machine, strict off). */
export function csvRows(text: string): string[][] {
  type State = "start_record" | "start_field" | "in_field" | "in_quoted" | "quote_in_quoted" | "eat_crnl";
  const EOL = "";
  const rows: string[][] = [];
  let fields: string[] = [];
  let field = "";
  let state: State = "start_record";
  const save = () => {
    fields.push(field);
    field = "";
  };
  const step = (c: string) => {
    const nl = c === "\n" || c === "\r";
    switch (state) {
      case "start_record":
        if (c === EOL) return;
        if (nl) {
          state = "eat_crnl";
          return;
        }
        state = "start_field";
        step(c);
        return;
      case "start_field":
        if (nl || c === EOL) {
          save();
          state = c === EOL ? "start_record" : "eat_crnl";
        } else if (c === '"') state = "in_quoted";
        else if (c === ",") save();
        else {
          field += c;
          state = "in_field";
        }
        return;
      case "in_field":
        if (nl || c === EOL) {
          save();
          state = c === EOL ? "start_record" : "eat_crnl";
        } else if (c === ",") {
          save();
          state = "start_field";
        } else field += c;
        return;
      case "in_quoted":
        if (c === EOL) return;
        if (c === '"') state = "quote_in_quoted";
        else field += c;
        return;
      case "quote_in_quoted":
        if (c === '"') {
          field += c;
          state = "in_quoted";
        } else if (c === ",") {
          save();
          state = "start_field";
        } else if (nl || c === EOL) {
          save();
          state = c === EOL ? "start_record" : "eat_crnl";
        } else {
          field += c;
          state = "in_field";
        }
        return;
      case "eat_crnl":
        if (nl) return;
        if (c === EOL) state = "start_record";
        else throw new CsvError("new-line character seen in unquoted field - do you need to open the file in universal-newline mode?");
        return;
    }
  };
  // StringIO yields lines ending at "\n"; the reader sees each line's characters, then an end-of-line mark.
  const lines = text === "" ? [] : text.split(/(?<=\n)/);
  let li = 0;
  for (;;) {
    do {
      if (li >= lines.length) {
        if (field !== "" || (state as State) === "in_quoted") {
          save();
          rows.push(fields);
        }
        return rows;
      }
      for (const c of lines[li++]!) step(c);
      step(EOL);
    } while (state !== "start_record");
    rows.push(fields);
    fields = [];
  }
}

/** `csv.DictReader`: `{fieldnames, rows}`; fieldnames null for empty input. */
export function dictReader(text: string): { fieldnames: string[] | null; rows: Record<string, string | null | string[]>[] } {
  const all = csvRows(text);
  if (all.length === 0) return { fieldnames: null, rows: [] };
  const fieldnames = all[0]!;
  const rows: Record<string, string | null | string[]>[] = [];
  for (const r of all.slice(1)) {
    if (r.length === 0) continue;
    const d: Record<string, string | null | string[]> = {};
    fieldnames.forEach((f, k) => (d[f] = k < r.length ? r[k]! : null));
    if (r.length > fieldnames.length) d["null"] = r.slice(fieldnames.length);
    rows.push(d);
  }
  return { fieldnames, rows };
}
