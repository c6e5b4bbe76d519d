/**
 * Reading JSONL: a lazy line reader (memory stays flat on million-row files) and a reader of
 * JSON objects that names the file and line of a bad one. Shared by datasets, rollouts and exports.
 */
import { EXIT_USAGE, GymError } from "../errors.ts";

/** One line of a file: its text without the newline, and whether a newline ended it. */
export interface RawLine {
  text: string;
  /** 1-based line number. */
  lineNo: number;
  hasNewline: boolean;
}

/** Read a file line by line without loading it whole. Blank lines are yielded too. */
export async function* readLines(path: string): AsyncGenerator<RawLine> {
  const decoder = new TextDecoder();
  let buf = "";
  let lineNo = 0;
  for await (const chunk of Bun.file(path).stream()) {
    buf += decoder.decode(chunk, { stream: true });
    let start = 0;
    let nl = buf.indexOf("\n", start);
    while (nl >= 0) {
      yield { text: buf.slice(start, nl), lineNo: ++lineNo, hasNewline: true };
      start = nl + 1;
      nl = buf.indexOf("\n", start);
    }
    buf = buf.slice(start);
  }
  buf += decoder.decode();
  if (buf.length > 0) yield { text: buf, lineNo: ++lineNo, hasNewline: false };
}

/** Parsed JSON objects of a JSONL file, skipping blank lines; a bad line throws with its number. */
export async function* readJsonl(path: string): AsyncGenerator<{ value: Record<string, unknown>; lineNo: number }> {
  for await (const l of readLines(path)) {
    if (l.text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(l.text);
    } catch (e) {
      throw new JsonlLineError(path, l.lineNo, (e as Error).message);
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new JsonlLineError(path, l.lineNo, "not a JSON object");
    yield { value: value as Record<string, unknown>, lineNo: l.lineNo };
  }
}

/** A JSONL line that is not a JSON object. */
export class JsonlLineError extends GymError {
  constructor(readonly path: string, readonly lineNo: number, readonly detail: string) {
    super(`Malformed JSON in '${path}' at line ${lineNo}: ${detail}`, {
      code: "E_BAD_JSONL",
      exitCode: EXIT_USAGE,
      hint: "every line of a JSONL file must be one JSON object; fix or remove that line",
    });
    this.name = "JsonlLineError";
  }
}
