/** Flatten `prepare`/`run` mappings into Hydra override tokens (spec submit.md §6.8). */
import { q } from "./shell.ts";

/** Python `str()` of a YAML scalar or list, as upstream renders values. */
export function pyStr(v: unknown): string {
  if (v === true) return "True";
  if (v === false) return "False";
  if (v === null || v === undefined) return "None";
  if (Array.isArray(v)) return `[${v.map(pyStr).join(",")}]`;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** `[path, value]` leaves of a mapping, depth first in mapping order. */
export function leaves(map: Record<string, unknown>, prefix = ""): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const [k, v] of Object.entries(map)) {
    const path = prefix === "" ? k : `${prefix}.${k}`;
    if (typeof v === "object" && v !== null && !Array.isArray(v)) {
      const sub = leaves(v as Record<string, unknown>, path);
      out.push(...sub);
    } else out.push([path, v]);
  }
  return out;
}

/** One shell-quoted `+path=value` token per leaf. */
export function flattenOverrides(map: Record<string, unknown>): string[] {
  return leaves(map).map(([p, v]) => q(`+${p}=${pyStr(v)}`));
}
