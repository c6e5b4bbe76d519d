/**
 * Python's `json.dumps` with its default separators and `ensure_ascii`: strings that reach the
 * model or a dataset file verbatim (runtime.md §8.2) must read exactly as upstream wrote them.
 * One implementation serves everyone: util/py-json-dumps.ts.
 */
import { pyDumps } from "./py-json-dumps.ts";

/** `json.dumps(value)` as Python writes it: `", "` and `": "` separators, non-ASCII escaped. */
export function pyJsonDumps(value: unknown): string {
  return pyDumps(value);
}
