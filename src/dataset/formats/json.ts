/** JSON reader for source files: a parse error names `file:line:col`. */
import { SourceFormatError } from "./_errors.ts";

/** Parse `text` (the bytes of `name`) as one JSON document. */
export function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    // JavaScriptCore's message carries no offset; V8-style "position N" is used when present.
    const pos = /position (\d+)/.exec(msg);
    if (pos) {
      const before = text.slice(0, Number(pos[1]));
      const line = before.split("\n").length;
      const col = Number(pos[1]) - before.lastIndexOf("\n");
      throw new SourceFormatError(`${name}:${line}:${col}`, `not valid JSON (${msg})`);
    }
    throw new SourceFormatError(name, `not valid JSON (${msg})`);
  }
}
