/**
 * Python `json` module behaviour that reaches the model verbatim (runtime.md §8.2): `json.loads`
 * and its `JSONDecodeError` messages (`json.dumps` is util/py-json.ts).
 */
import { pythonJsonError } from "../runtime/http/json-error.ts";
import { pyStrRepr } from "../util/py-repr.ts";

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
