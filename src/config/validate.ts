/**
 * TypeBox checking with pydantic-like messages. Schemas are compiled once; errors come back as
 * (path segments, message) pairs so callers can add `file:line:col` (D12) and their own context.
 * Values are only checked, never cleaned or defaulted here (user config is never rewritten).
 */
import type { TSchema } from "typebox";

// TypeBox's checker is required on first use (a `check` call), not imported: the common path of a
// CLI run validates nothing through it, and loading it costs a cold process a few milliseconds.
function typeboxValue(): typeof import("typebox/value") {
  return require("typebox/value") as typeof import("typebox/value");
}

/** How many problems one check reports at most (TypeBox buffers only 8 by default). */
export const MAX_ERRORS = 1000;

/** One validation problem: where (key segments relative to the checked value) and what. */
export interface Problem {
  path: string[];
  message: string;
}

/** `'a', 'b' or 'c'` as pydantic lists literal choices. */
export function choiceList(values: readonly unknown[]): string {
  const q = values.map((v) => (typeof v === "string" ? `'${v}'` : String(v)));
  return q.length <= 1 ? (q[0] ?? "") : `${q.slice(0, -1).join(", ")} or ${q[q.length - 1]}`;
}

function pointerToPath(ptr: string): string[] {
  if (ptr === "") return [];
  return ptr
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** pydantic's wording for each JSON type ("Input should be a valid string"). */
export const TYPE_WORDS: Record<string, string> = {
  string: "a valid string",
  integer: "a valid integer",
  number: "a valid number",
  boolean: "a valid boolean",
  object: "a valid dictionary",
  array: "a valid list",
  null: "null",
};

/** Let TypeBox report up to MAX_ERRORS problems per check (it buffers 8 by default). */
export function raiseMaxErrors(): void {
  const { Settings } = require("typebox/system") as typeof import("typebox/system");
  if (Settings.Get().maxErrors < MAX_ERRORS) Settings.Set({ maxErrors: MAX_ERRORS });
}

/** Check `value` against `schema`; every problem, in schema order. */
export function check(schema: TSchema, value: unknown): Problem[] {
  // The interpreting checker: a CLI run validates each shape a few hundred times at most, which
  // costs less than generating and compiling checker code on every cold start.
  const { Value } = typeboxValue();
  if (Value.Check(schema, value)) return [];
  raiseMaxErrors();
  const out: Problem[] = [];
  const seen = new Set<string>();
  for (const e of Value.Errors(schema, value)) {
    const path = pointerToPath(e.instancePath);
    const params = e.params as Record<string, unknown>;
    let problems: Problem[];
    switch (e.keyword) {
      case "required":
        problems = ((params.requiredProperties as string[]) ?? []).map((p) => ({ path: [...path, p], message: "Field required" }));
        break;
      case "enum":
        problems = [{ path, message: `Input should be ${choiceList((params.allowedValues as unknown[]) ?? [])}` }];
        break;
      case "const":
        problems = [{ path, message: `Input should be ${choiceList([params.allowedValue])}` }];
        break;
      case "type": {
        const t = params.type;
        const words = (Array.isArray(t) ? t : [t]).map((x) => TYPE_WORDS[String(x)] ?? String(x));
        problems = [{ path, message: `Input should be ${words.join(" or ")}` }];
        break;
      }
      case "minimum":
        problems = [{ path, message: `Input should be greater than or equal to ${String(params.limit)}` }];
        break;
      case "maximum":
        problems = [{ path, message: `Input should be less than or equal to ${String(params.limit)}` }];
        break;
      case "additionalProperties":
        problems = ((params.additionalProperties as string[]) ?? []).map((p) => ({ path: [...path, p], message: "Extra inputs are not permitted" }));
        break;
      case "boolean":
        // The per-property echo of additionalProperties: false; reported above.
        problems = [];
        break;
      case "anyOf":
      case "oneOf":
        problems = [{ path, message: "Input does not match any allowed shape" }];
        break;
      default:
        problems = [{ path, message: e.message }];
    }
    for (const p of problems) {
      const key = `${p.path.join("\u0000")}\u0001${p.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(p);
    }
  }
  return out;
}
