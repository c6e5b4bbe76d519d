/**
 * Config dict ↔ YAML text for hand-off (D3) and printing. The emitter writes block YAML the way
 * PyYAML dumps it (lists not indented under their key, insertion order kept) and double-quotes
 * every string that a YAML 1.1 reader (PyYAML/OmegaConf in an upstream server) would otherwise
 * retype or misread. It is a few times faster than a general-purpose YAML stringifier, which
 * matters for `gym env resolve` on large configs.
 */
import { parseConfigText } from "./load.ts";
import type { ConfigDict } from "./types.ts";

// Plain scalars that stay strings in YAML 1.1 and 1.2: start with a letter, `_`, `/` or `.`
// followed by a "word" character, and contain no indicator sequences.
const SAFE_PLAIN = /^(?:[A-Za-z_/]|\.[A-Za-z_/])[A-Za-z0-9_ ./@+()=,:-]*$/;
const RESERVED = /^(?:y|Y|n|N|yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|\.inf|\.Inf|\.INF|\.nan|\.NaN|\.NAN)$/;

function scalarText(v: string): string {
  if (v !== "" && SAFE_PLAIN.test(v) && !RESERVED.test(v) && !v.endsWith(" ") && !v.endsWith(":") && !v.includes(" #") && !v.includes(": ") && !v.includes("${")) {
    return v;
  }
  return JSON.stringify(v);
}

function leafText(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return scalarText(v);
  if (typeof v === "number") {
    if (Number.isNaN(v)) return ".nan";
    if (!Number.isFinite(v)) return v > 0 ? ".inf" : "-.inf";
    return String(v);
  }
  if (typeof v === "boolean") return v ? "true" : "false";
  return JSON.stringify(String(v));
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function emit(v: unknown, indent: string, out: string[]): void {
  if (isMap(v)) {
    for (const [k, x] of Object.entries(v)) {
      const key = scalarText(k);
      if (isMap(x) && Object.keys(x).length > 0) {
        out.push(`${indent}${key}:\n`);
        emit(x, `${indent}  `, out);
      } else if (Array.isArray(x) && x.length > 0) {
        out.push(`${indent}${key}:\n`);
        emit(x, indent, out);
      } else out.push(`${indent}${key}: ${isMap(x) ? "{}" : Array.isArray(x) ? "[]" : leafText(x)}\n`);
    }
    return;
  }
  if (Array.isArray(v)) {
    for (const x of v) {
      if ((isMap(x) && Object.keys(x).length > 0) || (Array.isArray(x) && x.length > 0)) {
        // The first line of a nested block shares the `- ` line, as PyYAML writes it.
        const inner: string[] = [];
        emit(x, `${indent}  `, inner);
        const first = inner[0]!.slice(indent.length + 2);
        out.push(`${indent}- ${first}`, ...inner.slice(1));
      } else out.push(`${indent}- ${isMap(x) ? "{}" : Array.isArray(x) ? "[]" : leafText(x)}\n`);
    }
    return;
  }
  out.push(`${indent}${leafText(v)}\n`);
}

/** YAML text of a config dict; interpolations are written as-is (quoted). */
export function serializeConfigDict(dict: ConfigDict): string {
  if (Object.keys(dict).length === 0) return "{}\n";
  const out: string[] = [];
  emit(dict, "", out);
  return out.join("");
}

/** Parse YAML text produced by `serializeConfigDict` (or upstream's dump). */
export function parseConfigDict(text: string, source = "NEMO_GYM_CONFIG_DICT"): ConfigDict {
  return parseConfigText(text, source).dict;
}
