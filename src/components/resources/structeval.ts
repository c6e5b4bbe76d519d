/** resources_servers/structeval: StructEval non-renderable formats (JSON, YAML, TOML, XML, CSV) — parse, then expected key paths (verify/structured/structeval.ts). */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { scoreStructeval, structevalMetrics } from "../../verify/structured/structeval.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "StructEvalResourcesServer";
type Obj = Record<string, unknown>;

/** Every message's output_text parts, joined (upstream's assistant text). */
export function assistantText(response: unknown): string {
  const parts: string[] = [];
  for (const item of ((response as Obj)?.output as Obj[] | undefined) ?? []) {
    if (item?.type !== "message" || !Array.isArray(item.content)) continue;
    for (const c of item.content as Obj[]) if (c?.type === "output_text" && typeof c.text === "string") parts.push(c.text);
  }
  return parts.join("");
}

/** Grade one verify body: upstream's declared request fields echoed (no others), plus the score fields. */
export function gradeStructeval(body: Obj): Obj {
  const keep = { task_id: body.task_id, task_name: body.task_name, input_type: body.input_type, output_type: body.output_type, raw_output_metric: body.raw_output_metric, rendering: body.rendering ?? false };
  return { responses_create_params: body.responses_create_params, response: body.response, ...keep, ...scoreStructeval(assistantText(body.response), body.output_type as string, body.raw_output_metric as string[]) };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "structeval",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        task_id: Type.String(),
        task_name: Type.String(),
        input_type: Type.String(),
        output_type: Type.String(),
        raw_output_metric: Type.Array(Type.String()),
        rendering: Type.Optional(Type.Boolean()),
      },
      verify: (body) => {
        const { responses_create_params: _rcp, response: _r, ...rest } = gradeStructeval(body);
        return rest;
      },
      computeMetrics: (tasks) => structevalMetrics(tasks),
    });
  },
};
