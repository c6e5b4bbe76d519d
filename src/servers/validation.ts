/**
 * Request-body validation with FastAPI-shaped 422 details (runtime.md §5.2): TypeBox errors are
 * rewritten into pydantic's `{type, loc: ["body", …], msg, input}` items so clients that parse
 * upstream's error bodies keep working.
 */
import type { Static, TSchema } from "typebox";
import { Compile, type Validator } from "typebox/compile";
import type { TLocalizedValidationError } from "typebox/error";
import { RequestValidationError, type ValidationDetail } from "../runtime/http/http-types.ts";

/** Pydantic's documentation base for the `url` member some upstream routes emit. */
const PYDANTIC_ERRORS_URL = "https://errors.pydantic.dev/2.11/v/";

/** Options of one validation call. */
export interface ValidateOptions {
  /** Add pydantic's `url` member to each detail (upstream `/v1/responses` does). */
  withUrl?: boolean;
}

function pointerToLoc(pointer: string): (string | number)[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^(0|[1-9][0-9]*)$/.test(s) ? Number(s) : s));
}

function valueAt(root: unknown, loc: (string | number)[]): unknown {
  let cur: unknown = root;
  for (const k of loc) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

function typeDetail(expected: string, input: unknown): { type: string; msg: string } {
  switch (expected) {
    case "integer":
      return typeof input === "string" ? { type: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer" } : { type: "int_type", msg: "Input should be a valid integer" };
    case "number":
      return typeof input === "string" ? { type: "float_parsing", msg: "Input should be a valid number, unable to parse string as a number" } : { type: "float_type", msg: "Input should be a valid number" };
    case "string":
      return { type: "string_type", msg: "Input should be a valid string" };
    case "boolean":
      return { type: "bool_type", msg: "Input should be a valid boolean" };
    case "array":
      return { type: "list_type", msg: "Input should be a valid list" };
    case "object":
      return { type: "dict_type", msg: "Input should be a valid dictionary" };
    case "null":
      return { type: "none_required", msg: "Input should be None" };
    default:
      return { type: "value_error", msg: `Input should be of type ${expected}` };
  }
}

function pyRepr(v: unknown): string {
  return typeof v === "string" ? `'${v}'` : JSON.stringify(v);
}

function toDetail(e: TLocalizedValidationError, body: unknown): ValidationDetail | undefined {
  const loc = pointerToLoc(e.instancePath);
  const input = valueAt(body, loc);
  switch (e.keyword) {
    case "boolean": // `additionalProperties: false` reports each extra key at its own path
      return { type: "extra_forbidden", loc: ["body", ...loc], msg: "Extra inputs are not permitted", input };
    case "additionalProperties":
    case "anyOf":
    case "oneOf":
      return undefined; // summaries of errors reported individually
    case "required": {
      const props = e.params.requiredProperties;
      // One detail per missing property, as pydantic does; the first is returned, the rest added by the caller.
      return { type: "missing", loc: ["body", ...loc, props[0] ?? ""], msg: "Field required", input, ctx: props.length > 1 ? { more: props.slice(1) } : undefined } as ValidationDetail;
    }
    case "type": {
      const t = typeDetail(String(e.params.type), input);
      return { type: t.type, loc: ["body", ...loc], msg: t.msg, input };
    }
    case "const":
      return { type: "literal_error", loc: ["body", ...loc], msg: `Input should be ${pyRepr(e.params.allowedValue)}`, input, ctx: { expected: pyRepr(e.params.allowedValue) } };
    case "enum": {
      const vals = e.params.allowedValues.map(pyRepr);
      const expected = vals.length > 1 ? `${vals.slice(0, -1).join(", ")} or ${vals[vals.length - 1]}` : (vals[0] ?? "");
      return { type: "literal_error", loc: ["body", ...loc], msg: `Input should be ${expected}`, input, ctx: { expected } };
    }
    case "minimum":
    case "exclusiveMinimum":
      return { type: "greater_than_equal", loc: ["body", ...loc], msg: e.message, input };
    case "maximum":
    case "exclusiveMaximum":
      return { type: "less_than_equal", loc: ["body", ...loc], msg: e.message, input };
    default:
      return { type: "value_error", loc: ["body", ...loc], msg: e.message, input };
  }
}

/** A compiled body validator for one schema. */
export interface BodyValidator<T> {
  /** Return the body typed, or throw RequestValidationError with FastAPI-shaped details. */
  parse(body: unknown): T;
  /** The FastAPI-shaped details for a body (empty when valid). */
  details(body: unknown): ValidationDetail[];
}

/**
 * Compile a TypeBox schema into a validator that raises upstream-shaped 422s; `parse` returns the
 * body as `Static<S>` (the compiled Check is a type guard, so no cast stands between them).
 */
export function bodyValidator<S extends TSchema>(schema: S, opts: ValidateOptions = {}): BodyValidator<Static<S>> {
  // Compiled on first use: a server registers validators for every route it might serve (e.g. the
  // Anthropic `/v1/messages` one), and compiling them all at start costs every process time and memory.
  let compiledOnce: Validator<{}, S> | undefined;
  const compiled = () => (compiledOnce ??= Compile<S>(schema));
  const details = (body: unknown): ValidationDetail[] => {
    if (body === undefined) return [{ type: "missing", loc: ["body"], msg: "Field required", input: null }];
    if (compiled().Check(body)) return [];
    return failureDetails(schema, compiled().Errors(body), body, opts);
  };
  return {
    details,
    parse(body: unknown): Static<S> {
      if (body === undefined) throw new RequestValidationError(details(body));
      if (compiled().Check(body)) return body;
      throw new RequestValidationError(details(body));
    },
  };
}

/** The FastAPI-shaped details of a body the schema refused. */
function failureDetails(schema: TSchema, errors: TLocalizedValidationError[], body: unknown, opts: ValidateOptions): ValidationDetail[] {
  const isObjectSchema = (schema as { type?: unknown }).type === "object";
  if (isObjectSchema && (body === null || typeof body !== "object" || Array.isArray(body))) {
    return [{ type: "model_attributes_type", loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", input: body }];
  }
  const out: ValidationDetail[] = [];
  const seen = new Set<string>();
  for (const raw of errors) {
    const d = toDetail(raw, body);
    if (!d) continue;
    const extra = (d.ctx as { more?: string[] } | undefined)?.more;
    const all: ValidationDetail[] = [extra ? { ...d, ctx: undefined } : d];
    if (extra) for (const p of extra) all.push({ ...d, loc: [...d.loc.slice(0, -1), p], ctx: undefined });
    for (const one of all) {
      if (one.ctx === undefined) delete one.ctx;
      const key = `${one.type}|${JSON.stringify(one.loc)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (opts.withUrl) (one as ValidationDetail & { url?: string }).url = PYDANTIC_ERRORS_URL + one.type;
      out.push(one);
    }
  }
  if (out.length === 0) out.push({ type: "value_error", loc: ["body"], msg: "Input is not valid", input: body });
  return out;
}
