/** JSONL reader for source files: one JSON value per non-blank line, errors name `file:line`. */
import { SourceFormatError } from "./_errors.ts";

/** Parse every non-blank line of `text` (the bytes of `name`) as JSON. */
export function parseJsonl(text: string, name: string): unknown[] {
  const out: unknown[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, "");
    if (line.trim() === "") continue;
    try {
      out.push(JSON.parse(line));
    } catch (e) {
      throw new SourceFormatError(`${name}:${i + 1}`, `not valid JSON (${(e as Error).message})`);
    }
  }
  return out;
}

/** One object row of a JSONL file with its 1-based line number (for `file:line` messages). */
export interface JsonlRow {
  line: number;
  row: Record<string, unknown>;
}

/** Parse JSONL whose every row must be a JSON object; blank lines are skipped. */
export function parseJsonlRows(text: string, name: string): JsonlRow[] {
  const out: JsonlRow[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, "");
    if (line.trim() === "") continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new SourceFormatError(`${name}:${i + 1}`, `not valid JSON (${(e as Error).message})`);
    }
    if (v === null || typeof v !== "object" || Array.isArray(v)) throw new SourceFormatError(`${name}:${i + 1}`, "a row is not a JSON object");
    out.push({ line: i + 1, row: v as Record<string, unknown> });
  }
  return out;
}
