/**
 * structured_outputs scoring: the response (text in one of five formats, or one tool call's JSON
 * arguments) must validate against the row's JSON Schema made strict (every object with
 * `properties` requires all of them and allows no others). Validation is JSON Schema 2020-12 (the
 * OpenAPI 3.1 dialect upstream's openapi-schema-validator applies) on TypeBox's schema compiler,
 * already a dependency and checked against the JSON-Schema-Test-Suite; `format` stays an
 * annotation, as upstream asserts none. XML leaves and CSV cells are coerced to the schema's types
 * first, as upstream does.
 */
import Schema from "typebox/schema";
import { pyInt, pyFloat } from "../../util/py-int.ts";
import { pyStrip } from "../../util/py-str.ts";
import { ParseError, parseCsv, parseJson, parseToml, parseXml, parseYaml } from "./parse.ts";

type Obj = Record<string, unknown>;
const isDict = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);
const cut = (s: string) => [...s].slice(0, 200).join("");

/** The schema types a row may name. */
export const SCHEMA_TYPES = ["json", "yaml", "xml", "toml", "csv"] as const;

/** Upstream strictify_schema, in place: recurses through dict values only (list members such as anyOf entries are left as they are). */
export function strictifySchema(schema: unknown): void {
  if (!isDict(schema)) return;
  if ("properties" in schema) {
    schema.required = isDict(schema.properties) ? Object.keys(schema.properties) : [...String(schema.properties)];
    schema.additionalProperties = false;
  }
  for (const v of Object.values(schema)) strictifySchema(v);
}

const MAP_KEYS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
const LIST_KEYS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SUB_KEYS = new Set(["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"]);

/** The schema with `format` keywords dropped (upstream's validator asserts no format). */
function dropFormats(schema: unknown): unknown {
  if (!isDict(schema)) return schema;
  const out: Obj = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "format" && typeof v === "string") continue;
    if (MAP_KEYS.has(k) && isDict(v)) out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, dropFormats(s)]));
    else if (LIST_KEYS.has(k) && Array.isArray(v)) out[k] = v.map(dropFormats);
    else if (SUB_KEYS.has(k)) out[k] = Array.isArray(v) ? v.map(dropFormats) : dropFormats(v);
    else out[k] = v;
  }
  return out;
}

/** Validate; the first error as `ValidationError: …` (texts are TypeBox's, not jsonschema's), or null. */
export function validateAgainstSchema(instance: unknown, schema: Obj): string | null {
  let v: ReturnType<typeof Schema.Compile>;
  try {
    v = Schema.Compile(dropFormats(schema) as never);
  } catch (e) {
    return `SchemaError: ${cut((e as Error).message)}`;
  }
  if (v.Check(instance)) return null;
  const [, errors] = v.Errors(instance) as unknown as [boolean, { instancePath: string; message: string }[]];
  const first = errors?.find((e) => e.message !== "schema is false") ?? errors?.[0];
  return `ValidationError: ${cut(first ? `${first.instancePath || "/"} ${first.message}` : "does not match the schema")}`;
}

/** Upstream coerce_xml_types: xmltodict's strings turned into the schema's integer / number / boolean; arrays unwrapped from their single child key. */
export function coerceXmlTypes(data: unknown, schema: unknown): unknown {
  if (!isDict(schema) || !("type" in schema)) return data;
  const t = schema.type;
  if (t === "object" && isDict(data)) {
    const props = (isDict(schema.properties) ? schema.properties : {}) as Obj;
    return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Object.hasOwn(props, k) ? coerceXmlTypes(v, props[k]) : v]));
  }
  if (t === "array") {
    const items = schema.items ?? {};
    let d = data;
    if (isDict(d) && Object.keys(d).length === 1) d = Object.values(d)[0];
    if (!Array.isArray(d)) d = d === null || d === undefined ? [] : [d];
    return (d as unknown[]).map((x) => coerceXmlTypes(x, items));
  }
  if ((data === null || data === undefined) && t === "string") return "";
  if (typeof data === "string") return coerceScalar(data, t, false) ?? data;
  return data;
}

/** A string as `int()` / `float()` / the boolean spellings; undefined when it does not convert. */
function coerceScalar(value: string, t: unknown, _csv: boolean): unknown {
  try {
    if (t === "integer") return pyInt(value);
    if (t === "number") return pyFloat(value);
    if (t === "boolean") {
      const l = value.toLowerCase();
      if (l === "true" || l === "1") return true;
      if (l === "false" || l === "0") return false;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** Upstream _coerce_csv_scalar. */
export function coerceCsvScalar(value: unknown, t: unknown): unknown {
  if (Array.isArray(t)) {
    if ((value === null || value === "") && t.includes("null")) return null;
    for (const x of t) {
      if (x === "null") continue;
      const r = coerceCsvScalar(value, x);
      if (typeof r !== "string" || x === "string") return r;
    }
    return value;
  }
  if (value === null || value === undefined || value === "") return value;
  if (typeof value !== "string") return value;
  return coerceScalar(value, t, true) ?? value;
}

/** Upstream coerce_csv_types over DictReader rows. */
export function coerceCsvTypes(rows: Obj[], schema: Obj): Obj[] {
  const items = (schema.items ?? schema) as Obj;
  const props = (isDict(items.properties) ? items.properties : {}) as Obj;
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, coerceCsvScalar(v, (isDict(props[k]) ? (props[k] as Obj).type : undefined) ?? "string")])));
}

/** Upstream parse_content. */
export function parseContent(type: string, content: string): unknown {
  switch (type.toLowerCase()) {
    case "json":
      return parseJson(content);
    case "yaml":
      return parseYaml(content);
    case "xml":
      return parseXml(content);
    case "toml":
      return parseToml(content, "TOMLDecodeError");
    case "csv":
      return parseCsv(content).rows;
    default:
      return null;
  }
}

/** `(reward, error_type, error_message)` of an already-parsed object (tool-call arguments). */
export function evaluateObject(schemaStr: string, obj: unknown): [number, string | null, string | null] {
  let schema: unknown;
  try {
    schema = JSON.parse(schemaStr);
  } catch (e) {
    return [0, "schema_error", cut((e as Error).message)];
  }
  strictifySchema(schema);
  const err = validateAgainstSchema(obj, schema as Obj);
  return err === null ? [1, null, null] : [0, "validation_error", err];
}

/** `(reward, error_type, error_message)` of a text response in a schema type. */
export function evaluateText(type: string, schemaStr: string, text: string, xmlCoerce: boolean): [number, string | null, string | null] {
  if (!text || !pyStrip(text)) return [0, "empty_response", "No assistant response text"];
  let schema: unknown;
  try {
    schema = JSON.parse(schemaStr);
  } catch (e) {
    return [0, "schema_error", cut((e as Error).message)];
  }
  strictifySchema(schema);
  let obj: unknown;
  try {
    obj = parseContent(type, text);
  } catch (e) {
    if (e instanceof ParseError) return [0, "parse_error", `${e.pyName}: ${cut(e.message)}`];
    throw e;
  }
  if (type === "xml" && xmlCoerce) obj = coerceXmlTypes(obj, schema);
  if (type === "csv") {
    if (!isDict(schema)) return [0, "validation_error", "AttributeError: the schema is not an object"];
    obj = coerceCsvTypes(obj as Obj[], schema);
  }
  const err = validateAgainstSchema(obj, schema as Obj);
  return err === null ? [1, null, null] : [0, "validation_error", err];
}

/** Upstream extract_tool_call_payload: one function call (of the named tool), its JSON arguments, optionally one key of them. */
export function toolCallPayload(response: Obj, toolName: unknown, payloadKey: unknown): { payload?: unknown; errorType?: string; errorMessage?: string } {
  if (response.error !== undefined && response.error !== null) {
    const e = response.error as Obj;
    return { errorType: "api_error", errorMessage: cut(isDict(e) ? Object.entries(e).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" ") : String(e)) };
  }
  const calls = ((response.output as Obj[] | undefined) ?? []).filter((o) => o?.type === "function_call");
  if (calls.length === 0) return { errorType: "missing_tool_call", errorMessage: "No function_call item found in assistant response" };
  const names = calls.map((c) => String(c.name)).join(", ");
  if (calls.length > 1) return { errorType: "multiple_tool_calls", errorMessage: `Expected exactly one function_call, got: ${names}` };
  let call = calls[0]!;
  if (toolName) {
    const found = calls.find((c) => c.name === toolName);
    if (!found) return { errorType: "wrong_tool_name", errorMessage: `Expected tool '${String(toolName)}', got: ${names}` };
    call = found;
  }
  let args: unknown = call.arguments;
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch (e) {
      return { errorType: "tool_arguments_parse_error", errorMessage: `JSONDecodeError: ${cut((e as Error).message)}` };
    }
  } else if (!isDict(args)) return { errorType: "tool_arguments_parse_error", errorMessage: `Unsupported arguments type: ${args === null ? "NoneType" : Array.isArray(args) ? "list" : typeof args}` };
  if (payloadKey) {
    if (!isDict(args) || !Object.hasOwn(args, String(payloadKey))) return { errorType: "missing_tool_payload_key", errorMessage: `Missing tool payload key: ${String(payloadKey)}` };
    return { payload: args[String(payloadKey)] };
  }
  return { payload: args };
}

const BREAKDOWNS: [string, string][] = [
  ["problem_type", ""],
  ["schema_repr", "repr_"],
  ["response_mode", "response_mode_"],
  ["tool_schema_mode", "tool_schema_mode_"],
  ["tool_choice", "tool_choice_"],
  ["parallel_tool_calls", "parallel_tool_calls_"],
  ["num_tools", "num_tools_"],
  ["has_distractors", "has_distractors_"],
  ["instruction_layout", "instruction_layout_"],
  ["instruction_detail_level", "instruction_detail_level_"],
  ["system_instruction_style", "system_instruction_style_"],
  ["tool_name_style", "tool_name_style_"],
  ["distractor_style", "distractor_style_"],
  ["tool_union_mode", "tool_union_mode_"],
];
const truthy = (v: unknown) => !(v === undefined || v === null || v === false || v === 0 || v === "");

/** Upstream compute_metrics: mean reward by schema type and by every row breakdown field (a later breakdown's key overwrites an earlier equal one, as dict.update does). */
export function structuredOutputsMetrics(tasks: Obj[][]): Obj {
  const rows = tasks.flat();
  const out: Obj = {};
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const reward = (r: Obj) => Number("reward" in r ? r.reward : 0);
  const emit = (prefix: string, keyOf: (r: Obj) => string | undefined) => {
    const g = new Map<string, number[]>();
    for (const r of rows) {
      const k = keyOf(r);
      if (k !== undefined) g.set(k, [...(g.get(k) ?? []), reward(r)]);
    }
    for (const [k, v] of g) out[`mean/reward_${prefix}${k}`] = mean(v);
  };
  emit("", (r) => ("schema_type" in r ? String(r.schema_type) : "unknown"));
  for (const [field, prefix] of BREAKDOWNS) {
    emit(prefix, (r) => {
      const v = r[field];
      if (field === "parallel_tool_calls" || field === "has_distractors") return v === undefined || v === null ? undefined : truthy(v) ? "true" : "false";
      if (field === "num_tools") return v === undefined || v === null ? undefined : String(v);
      return truthy(v) ? String(v) : undefined;
    });
  }
  return out;
}
