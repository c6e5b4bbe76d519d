/**
 * Python `json` module renderings that reach the model verbatim (runtime.md §8.2): `json.dumps`
 * with its default separators and `ensure_ascii`, and `JSONDecodeError` messages.
 */
import { pythonJsonError } from "../runtime/http/json-error.ts";
import { pyStrRepr } from "../util/py-repr.ts";

function asciiString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20 || c > 0x7e) {
      // Python escapes astral characters as a surrogate pair.
      for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** `json.dumps(value)` as Python writes it: `", "` and `": "` separators, non-ASCII escaped. */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return asciiString(value);
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : JSON.stringify(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(", ")}]`;
  return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${asciiString(k)}: ${pyJsonDumps(v)}`).join(", ")}}`;
}

/** Parse like `json.loads`, throwing an error whose repr matches Python's `JSONDecodeError('…')`. */
export function pyJsonLoads(text: unknown): unknown {
  if (typeof text !== "string") {
    const e = new Error(`the JSON object must be str, bytes or bytearray, not ${text === null ? "NoneType" : Array.isArray(text) ? "list" : typeof text === "object" ? "dict" : typeof text === "number" ? (Number.isInteger(text) ? "int" : "float") : typeof text}`);
    e.name = "TypeError";
    throw e;
  }
  const problem = pythonJsonError(text);
  if (problem) {
    const before = text.slice(0, problem.pos);
    const line = before.split("\n").length;
    const col = problem.pos - before.lastIndexOf("\n");
    const e = new Error(`${problem.msg}: line ${line} column ${col} (char ${problem.pos})`);
    e.name = "JSONDecodeError";
    throw e;
  }
  return JSON.parse(text);
}

/** Python `repr(e)` of a decode error, e.g. `JSONDecodeError('Expecting value: line 1 column 1 (char 0)')`. */
export function pyErrorRepr(e: Error): string {
  return `${e.name}(${pyStrRepr(e.message)})`;
}
