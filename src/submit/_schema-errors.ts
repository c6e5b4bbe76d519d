/**
 * Turn TypeBox errors into the submit config's error vocabulary (spec submit.md §2.2):
 * `missing required configuration: a.b, c` and `invalid configuration: a.b (<reason>)`.
 */
import type { TSchema } from "typebox";
import { Value } from "typebox/value";
import { raiseMaxErrors, TYPE_WORDS } from "../config/validate.ts";

/** Problems found by a schema check, split the way the message reports them. */
export interface SchemaProblems {
  missing: string[];
  invalid: string[];
}

/** A fresh, empty problem list. */
export function noProblems(): SchemaProblems {
  return { missing: [], invalid: [] };
}


function join(prefix: string, instancePath: string): string {
  const parts = instancePath.split("/").filter((p) => p !== "").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  return [prefix, ...parts].filter((p) => p !== "").join(".");
}

/** Check `value` against `schema` and add its problems (paths prefixed by `prefix`) to `out`. */
export function collectSchemaProblems(schema: TSchema, value: unknown, prefix: string, out: SchemaProblems): void {
  raiseMaxErrors();
  const byPath = new Map<string, { types: string[]; other?: string }>();
  for (const e of Value.Errors(schema, value) as Iterable<{ keyword: string; instancePath: string; params: Record<string, unknown> }>) {
    const p = e.params ?? {};
    if (e.keyword === "required") {
      for (const r of (p.requiredProperties as string[] | undefined) ?? []) out.missing.push(join(prefix, `${e.instancePath}/${r}`));
      continue;
    }
    if (e.keyword === "additionalProperties") {
      for (const a of (p.additionalProperties as string[] | undefined) ?? []) out.invalid.push(`${join(prefix, `${e.instancePath}/${a}`)} (Extra inputs are not permitted)`);
      continue;
    }
    if (e.keyword === "boolean" || e.keyword === "anyOf") continue;
    const key = join(prefix, e.instancePath);
    const slot = byPath.get(key) ?? { types: [] };
    if (e.keyword === "type") slot.types.push(TYPE_WORDS[String(p.type)] ?? String(p.type));
    else if (e.keyword === "const") slot.types.push(`'${String(p.allowedValue ?? p.const)}'`);
    else if (e.keyword === "enum") slot.other = `Input should be ${((p.allowedValues as unknown[]) ?? []).map((v) => `'${String(v)}'`).join(" or ")}`;
    else if (e.keyword === "minimum") slot.other = `Input should be greater than or equal to ${String(p.limit)}`;
    else slot.other = `Input is not valid (${e.keyword})`;
    byPath.set(key, slot);
  }
  for (const [key, slot] of byPath) {
    const reason = slot.other ?? `Input should be ${slot.types.join(" or ")}`;
    out.invalid.push(`${key} (${reason})`);
  }
}
