/**
 * CSV reader (RFC 4180, as Python's csv module reads it by default): quoted fields may hold
 * commas, doubled quotes and newlines; CRLF or LF records. Errors name `file:line`.
 */
import { SourceFormatError } from "./_errors.ts";

/** Every record of `text` as an array of fields (no header handling). */
export function parseCsvRecords(text: string, name: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let quoteLine = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = () => {
    row.push(field);
    field = "";
    if (!(row.length === 1 && row[0] === "")) out.push(row);
    row = [];
  };
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (ch === "\n") line++;
        field += ch;
      }
      continue;
    }
    if (ch === '"' && field === "") {
      quoted = true;
      quoteLine = line;
    } else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      endRecord();
      line++;
    } else field += ch;
  }
  if (quoted) throw new SourceFormatError(`${name}:${quoteLine}`, "a quoted field is never closed (unterminated '\"')");
  if (field !== "" || row.length > 0) endRecord();
  return out;
}

/** Records as objects keyed by the header row (Python's csv.DictReader); a short or long row is an error. */
export function parseCsvObjects(text: string, name: string): Record<string, string>[] {
  const records = parseCsvRecords(text, name);
  const header = records[0];
  if (!header) return [];
  return records.slice(1).map((r, i) => {
    if (r.length !== header.length) throw new SourceFormatError(`${name}: record ${i + 2}`, `has ${r.length} fields, the header has ${header.length}`);
    return Object.fromEntries(header.map((h, j) => [h, r[j]!]));
  });
}
