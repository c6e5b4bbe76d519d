/**
 * Argument synthesis from a tool's JSON schema (components.md §3.10): default, const, first
 * enum, first example, else a value by type; objects get every required property.
 */

type Schema = Record<string, unknown>;

/** A deterministic value that satisfies `schema` in the common cases. */
export function synthesize(schema: unknown, depth = 0): unknown {
  if (!schema || typeof schema !== "object" || depth > 16) return null;
  const s = schema as Schema;
  if ("default" in s) return s.default;
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const alts = s[key];
    if (Array.isArray(alts) && alts.length > 0) return synthesize(alts[0], depth + 1);
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") ?? s.type[0] : s.type;
  switch (type) {
    case "string":
      return "test";
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 0;
    case "boolean":
      return false;
    case "null":
      return null;
    case "array": {
      const n = typeof s.minItems === "number" ? s.minItems : 0;
      return Array.from({ length: n }, () => synthesize(s.items, depth + 1));
    }
    case "object":
    default: {
      if (type === undefined && !("properties" in s)) return null;
      const props = (s.properties as Record<string, unknown> | undefined) ?? {};
      const out: Record<string, unknown> = {};
      for (const name of (s.required as string[] | undefined) ?? []) out[name] = synthesize(props[name], depth + 1);
      return out;
    }
  }
}

/** The JSON text of the synthesised arguments object for a function tool's `parameters`. */
export function synthesizeArguments(parameters: unknown): string {
  const v = synthesize(parameters ?? { type: "object" });
  return JSON.stringify(v && typeof v === "object" && !Array.isArray(v) ? v : {});
}
