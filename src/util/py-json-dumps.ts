/**
 * Python `json.dumps` for files benchmark preparers write: default separators (`", "`, `": "`),
 * with `ensure_ascii` on (Python's default) or off, and Python's float repr for the exponents.
 */

function pyFloat(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return String(n);
  // JS writes 1e+21 / 1e-7; Python writes 1e+21 / 1e-07 and uses exponents from 1e16 up.
  const s = Math.abs(n) >= 1e16 && !String(n).includes("e") ? n.toExponential().replace(/\.?0+e/, "e") : String(n);
  return s.replace(/e([+-])(\d)$/, "e$10$2");
}

/** A JSON string literal as Python's json.dumps writes it (`ensure_ascii` escapes everything past 0x7e). */
export function pyJsonString(s: string, ascii: boolean): string {
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
    else if (c < 0x20 || (ascii && c > 0x7e)) {
      for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** `json.dumps(value, ensure_ascii=ascii)`; integral numbers print as ints (JSON cannot tell 1.0 from 1). */
export function pyDumps(value: unknown, ascii = true): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return pyJsonString(value, ascii);
  if (typeof value === "number") return pyFloat(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map((v) => pyDumps(v, ascii)).join(", ")}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${pyJsonString(k, ascii)}: ${pyDumps(v, ascii)}`)
    .join(", ")}}`;
}

/** `json.dumps(value, sort_keys=True, ensure_ascii=ascii)`: keys sorted at every level (code-unit order, as Python sorts str). */
export function pyDumpsSorted(value: unknown, ascii = true): string {
  if (Array.isArray(value)) return `[${value.map((v) => pyDumpsSorted(v, ascii)).join(", ")}]`;
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${pyDumps(k, ascii)}: ${pyDumpsSorted(o[k], ascii)}`).join(", ")}}`;
  }
  return pyDumps(value, ascii);
}
