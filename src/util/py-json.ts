/**
 * Python's `json.dumps` with its default separators and `ensure_ascii`: strings that reach the
 * model or a dataset file verbatim (runtime.md §8.2) must read exactly as upstream wrote them.
 */

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
