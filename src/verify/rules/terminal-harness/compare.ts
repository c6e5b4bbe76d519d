/**
 * terminal_multi_harness's comparator: is the model's next action the trajectory's expected one, as
 * the harness would judge it? A message only needs text. A call's arguments must decode to a JSON
 * object, validate against the tool's declared schema (JSON Schema 2020-12, the OpenAPI 3.1 dialect
 * upstream's openapi-schema-validator applies: `nullable` is not a keyword there), name the expected
 * tool, use no argument key the expected call lacks, and pass the harness's rule for that tool. A
 * batch is compared pairwise after sorting both sides by (name, canonical arguments).
 */
import { jsonLoadsTyped, PyFloat } from "../../../util/py-json-typed.ts";
import { pyStrip } from "../../../util/py-str.ts";
import { byCodePoint, pyTypedDumps } from "../../../util/py-typed-str.ts";
import { schemaShapeError } from "../../structured/schema-check.ts";
import { validateAgainstSchema } from "../../structured/structured-outputs.ts";
import type { BatchAction, CallAction, HarnessAction } from "./actions.ts";
import { result, STEP, type StepResult } from "./categories.ts";
import { harnessRule } from "./harness-rules.ts";

type Obj = Record<string, unknown>;

/** The comparator's config (upstream ToolCallComparatorConfig). */
export interface HarnessComparatorConfig {
  string_similarity_threshold: number;
  floating_point_comparison_threshold: number;
  ignored_argument_keys_by_tool: Record<string, string[]>;
}

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof PyFloat);
const plain = (v: unknown): unknown => (v instanceof PyFloat ? v.value : Array.isArray(v) ? v.map(plain) : isObj(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v);

/** Tool name → parameters schema, from OpenAI chat tools (`{function: {name, parameters}}`) or Responses tools (`{name, parameters}`). */
export function declaredToolSchemas(tools: unknown[] | null | undefined): Map<string, Obj> {
  const out = new Map<string, Obj>();
  for (const t of tools ?? []) {
    if (!isObj(t)) continue;
    const def = isObj(t.function) ? t.function : t;
    if (typeof def.name === "string" && isObj(def.parameters)) out.set(def.name, def.parameters);
  }
  return out;
}

type Decoded = { args: Obj } | { fail: StepResult };

function decode(text: string): Decoded {
  let v: unknown;
  try {
    v = jsonLoadsTyped(text);
  } catch {
    return { fail: result(false, STEP.ARGUMENTS_DECODE_ERROR) };
  }
  return isObj(v) ? { args: v } : { fail: result(false, STEP.ARGUMENTS_NOT_OBJECT) };
}

/** A top-level argument declared array/object but sent as JSON text of that shape is replaced by its value (in place). */
export function coerceJsonStringArguments(args: Obj, schema: Obj): void {
  const props = schema.properties;
  if (!isObj(props)) return;
  for (const [name, prop] of Object.entries(props)) {
    if (!Object.hasOwn(args, name) || !isObj(prop) || typeof args[name] !== "string") continue;
    let parsed: unknown;
    try {
      parsed = jsonLoadsTyped(args[name] as string);
    } catch {
      continue;
    }
    if ((prop.type === "array" && Array.isArray(parsed)) || (prop.type === "object" && isObj(parsed))) args[name] = parsed;
  }
}

function compareCall(expected: CallAction, actual: CallAction, schemas: Map<string, Obj>, threshold: number, harness: string): StepResult {
  const e = decode(expected.arguments);
  if ("fail" in e) return e.fail;
  const a = decode(actual.arguments);
  if ("fail" in a) return a.fail;
  const schema = schemas.get(actual.name);
  if (!schema) return result(false, STEP.TOOL_SCHEMA_NOT_FOUND);
  coerceJsonStringArguments(a.args, schema);
  // The schema itself is checked first (a malformed one fails every call, as openapi-schema-validator raises SchemaError).
  if (schemaShapeError(schema) !== null || validateAgainstSchema(plain(a.args), schema) !== null) return result(false, STEP.TOOL_SCHEMA_VALIDATION_FAILED);
  if (expected.name !== actual.name) return result(false, STEP.UNEXPECTED_TOOL);
  if (!Object.keys(a.args).every((k) => Object.hasOwn(e.args, k))) return result(false, STEP.UNEXPECTED_ARGUMENT_KEYS);
  return harnessRule(harness, expected.name, e.args, a.args, threshold) ?? result(true, STEP.EXPECTED_TOOL_CALL);
}

/** A call's batch sort key: its name, then its arguments as compact sorted-key JSON (the raw text when not a JSON object). */
function sortKey(c: CallAction): [string, string] {
  const d = decode(c.arguments);
  return [c.name, "args" in d ? pyTypedDumps(d.args, { sortKeys: true, compact: true }) : c.arguments];
}

function sortCalls(calls: CallAction[]): CallAction[] {
  const keyed = calls.map((c) => ({ c, k: sortKey(c) }));
  keyed.sort((x, y) => byCodePoint(x.k[0], y.k[0]) || byCodePoint(x.k[1], y.k[1]));
  return keyed.map((x) => x.c);
}

function compareBatch(expected: BatchAction, actual: BatchAction, schemas: Map<string, Obj>, threshold: number, harness: string): StepResult {
  if (expected.calls.length !== actual.calls.length) return result(false, STEP.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT);
  const es = sortCalls(expected.calls), as = sortCalls(actual.calls);
  for (let i = 0; i < es.length; i++) {
    const r = compareCall(es[i]!, as[i]!, schemas, threshold, harness);
    if (!r.matches) return r;
  }
  return result(true, STEP.EXPECTED_TOOL_CALL_BATCH);
}

/** Compare the model's action with the expected one under a harness's rules. */
export function compareHarnessAction(
  expected: HarnessAction,
  actual: HarnessAction,
  cfg: HarnessComparatorConfig,
  opts: { declaredTools?: unknown[] | null; threshold?: number | null; harness?: string } = {},
): StepResult {
  const schemas = declaredToolSchemas(opts.declaredTools);
  const threshold = opts.threshold ?? cfg.string_similarity_threshold;
  const harness = opts.harness ?? "generic";
  if (expected.type !== actual.type) return result(false, STEP.ACTION_TYPE_MISMATCH);
  if (expected.type === "message") return pyStrip((actual as { content: string }).content) ? result(true, STEP.EXPECTED_CHAT_MESSAGE_FOUND) : result(false, STEP.EMPTY_MESSAGE);
  if (expected.type === "function_call") return compareCall(expected, actual as CallAction, schemas, threshold, harness);
  return compareBatch(expected, actual as BatchAction, schemas, threshold, harness);
}
