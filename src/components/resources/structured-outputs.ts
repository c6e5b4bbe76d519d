/** resources_servers/structured_outputs: schema-constrained JSON / YAML / XML / TOML / CSV answers or tool-call arguments (verify/structured/structured-outputs.ts). */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { evaluateObject, evaluateText, SCHEMA_TYPES, structuredOutputsMetrics, toolCallPayload } from "../../verify/structured/structured-outputs.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "StructuredOutputsResourcesServer";
type Obj = Record<string, unknown>;

// Upstream's request model: declared optional fields come back with their defaults; others are not echoed.
const OPTIONAL_STR = ["problem_type", "schema_repr", "source_format", "source_record_id", "tool_name", "tool_schema_mode", "tool_payload_key", "tool_choice", "source_schema_type", "instruction_layout", "instruction_detail_level", "system_instruction_style", "tool_name_style", "distractor_style", "tool_union_mode"];
const OPTIONAL_INT = ["num_turns", "num_tools", "num_distractors"];
const OPTIONAL_BOOL = ["parallel_tool_calls", "has_distractors"];

function xmlCoerce(ctx: Pick<ComponentContext, "instanceName" | "config">): boolean {
  const v = ctx.config.xml_coerce_types ?? true;
  if (typeof v !== "boolean") throw new ConfigError(`${ctx.instanceName}: xml_coerce_types must be true or false`, { key: "xml_coerce_types" });
  return v;
}

function assistantText(response: Obj): string {
  const parts: string[] = [];
  for (const item of (response.output as Obj[] | undefined) ?? []) {
    if (item?.type !== "message" || !Array.isArray(item.content)) continue;
    for (const c of item.content as Obj[]) if (c?.type === "output_text" && typeof c.text === "string") parts.push(c.text);
  }
  return parts.join("");
}

/** Grade one verify body: the declared request fields (defaults filled) plus reward, error_type and error_message. */
export function gradeStructuredOutputs(body: Obj, coerceXml = true): Obj {
  const echo: Obj = { schema_str: body.schema_str, schema_type: body.schema_type ?? "json", response_mode: body.response_mode === undefined ? "text" : body.response_mode };
  for (const k of [...OPTIONAL_STR, ...OPTIONAL_INT, ...OPTIONAL_BOOL]) echo[k] = body[k] ?? null;
  const type = String(echo.schema_type);
  const response = body.response as Obj;
  let result: [number, string | null, string | null];
  if (echo.response_mode === "tool_call") {
    const p = toolCallPayload(response, body.tool_name, body.tool_payload_key);
    result = p.errorType ? [0, p.errorType, p.errorMessage ?? null] : evaluateObject(body.schema_str as string, p.payload);
  } else result = evaluateText(type, body.schema_str as string, assistantText(response), coerceXml);
  const [reward, error_type, error_message] = result;
  return { ...echo, reward, error_type, error_message };
}

const optional = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "structured_outputs",
  className: CLASS_NAME,
  checkConfig: (ctx) => void xmlCoerce(ctx),
  async create(ctx) {
    const coerce = xmlCoerce(ctx);
    const schema: Record<string, ReturnType<typeof Type.Optional> | ReturnType<typeof Type.String>> = {
      schema_str: Type.String(),
      schema_type: Type.Optional(Type.Enum([...SCHEMA_TYPES])),
    };
    for (const k of [...OPTIONAL_STR, "response_mode"]) schema[k] = optional(Type.String());
    for (const k of OPTIONAL_INT) schema[k] = optional(Type.Integer() as never);
    for (const k of OPTIONAL_BOOL) schema[k] = optional(Type.Boolean() as never);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: schema,
      verify: (body) => gradeStructuredOutputs(body, coerce),
      computeMetrics: (tasks) => structuredOutputsMetrics(tasks),
    });
  },
};
