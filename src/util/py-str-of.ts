/**
 * Python's `str()` of a config value. OmegaConf builds concatenated interpolation results and
 * Hydra builds its override messages with `str()`, so `true` prints as `True`, null as `None`
 * and maps as `{'a': 1}`; reproducing it keeps gym's strings identical to upstream's.
 */

function pyFloat(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (n === Infinity) return "inf";
  if (n === -Infinity) return "-inf";
  return String(n);
}

function pyQuote(s: string): string {
  // Python prefers single quotes and switches to double quotes when the text holds a single quote only.
  if (s.includes("'") && !s.includes('"')) return `"${s.replaceAll("\\", "\\\\")}"`;
  return `'${s.replaceAll("\\", "\\\\").replaceAll("'", "\\'").replaceAll("\n", "\\n").replaceAll("\t", "\\t")}'`;
}

/** Python `repr()` of a JSON-like value. */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return pyFloat(v);
  if (typeof v === "string") return pyQuote(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (typeof v === "object") {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${pyQuote(k)}: ${pyRepr(x)}`)
      .join(", ")}}`;
  }
  return String(v);
}

/** Python `str()` of a JSON-like value (strings unquoted at the top level). */
export function pyStr(v: unknown): string {
  return typeof v === "string" ? v : pyRepr(v);
}
