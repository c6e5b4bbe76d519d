/** Shared pieces of the multiple-choice preparers (gpqa, mmlu_pro): option letters and row checks. */
import { SourceFormatError } from "../dataset/formats/_errors.ts";

/** `A`, `B`, … for `n` options. */
export function optionLetters(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String.fromCharCode(65 + i));
}

/** The string field `key` of a source row, or an error naming the file and row. */
export function field(row: Record<string, unknown>, key: string, where: string): string {
  const v = row[key];
  if (typeof v !== "string") throw new SourceFormatError(where, `the row's '${key}' is ${v === undefined ? "missing" : `not a string (${JSON.stringify(v)?.slice(0, 60)})`}`);
  return v;
}
