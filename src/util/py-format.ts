/**
 * Python `str.format` for upstream's prompt templates (judge prompts, benchmark prompts): named
 * fields `{question}`, `{{`/`}}` escapes, `!s`/`!r` conversions. Anything else Python accepts
 * (positional `{0}`, attribute/index access, format specs) is refused with a clear message rather
 * than rendered differently. Parse once with `parsePyFormat`, check the fields at start, render per call.
 */
import { pyStrRepr } from "./py-repr.ts";

/** A template Python's `str.format` would reject, or one using a feature we do not translate. */
export class PyFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PyFormatError";
  }
}

type Part = string | { field: string; conversion?: "s" | "r" };

/** A parsed template: literal text and named fields, in order. */
export interface PyFormatTemplate {
  parts: readonly Part[];
  /** Field names the template uses (each once). */
  fields: readonly string[];
}

/** Parse a `str.format` template (throws PyFormatError naming the offset of a bad brace or field). */
export function parsePyFormat(template: string): PyFormatTemplate {
  const parts: Part[] = [];
  const fields = new Set<string>();
  let lit = "";
  let i = 0;
  while (i < template.length) {
    const ch = template[i]!;
    if (ch === "}") {
      if (template[i + 1] !== "}") throw new PyFormatError(`Single '}' encountered in format string (offset ${i}); write '}}' for a literal brace`);
      lit += "}";
      i += 2;
      continue;
    }
    if (ch !== "{") {
      lit += ch;
      i++;
      continue;
    }
    if (template[i + 1] === "{") {
      lit += "{";
      i += 2;
      continue;
    }
    const close = template.indexOf("}", i + 1);
    if (close < 0) throw new PyFormatError(`Single '{' encountered in format string (offset ${i}); write '{{' for a literal brace`);
    const body = template.slice(i + 1, close);
    if (body.includes("{")) throw new PyFormatError(`nested replacement field at offset ${i} ('{${body}}') is not supported`);
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:!([sr]))?$/.exec(body);
    if (!m) {
      const why = body === "" || /^\d/.test(body) ? "positional fields are not supported; name the field" : body.includes(":") ? "format specs are not supported" : "only plain names (optionally !s or !r) are supported";
      throw new PyFormatError(`replacement field '{${body}}' at offset ${i}: ${why}; write '{{' and '}}' for literal braces`);
    }
    if (lit !== "") parts.push(lit);
    lit = "";
    parts.push(m[2] ? { field: m[1]!, conversion: m[2] as "s" | "r" } : { field: m[1]! });
    fields.add(m[1]!);
    i = close + 1;
  }
  if (lit !== "") parts.push(lit);
  return { parts, fields: [...fields] };
}

/** The fields a template uses that `available` lacks (what Python would raise KeyError for). */
export function missingFields(t: PyFormatTemplate, available: Iterable<string>): string[] {
  const have = new Set(available);
  return t.fields.filter((f) => !have.has(f));
}

/** `str(v)` as Python prints the JSON-ish values a template receives. */
function pyStr(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** Render a parsed template; a field absent from `values` throws PyFormatError (Python's KeyError). */
export function renderPyFormat(t: PyFormatTemplate, values: Record<string, unknown>): string {
  let out = "";
  for (const p of t.parts) {
    if (typeof p === "string") {
      out += p;
      continue;
    }
    if (!Object.hasOwn(values, p.field)) throw new PyFormatError(`KeyError: '${p.field}' (the template uses {${p.field}}, which is not provided)`);
    const v = values[p.field];
    out += p.conversion === "r" && typeof v === "string" ? pyStrRepr(v) : pyStr(v);
  }
  return out;
}

/** Parse and render in one step (`template.format(**values)`). */
export function pyFormat(template: string, values: Record<string, unknown>): string {
  return renderPyFormat(parsePyFormat(template), values);
}
