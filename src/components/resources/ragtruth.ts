/** resources_servers/ragtruth: RAGTruth hallucination detection (verify/rules/ragtruth.ts); `think_tag` names the reasoning tag to strip. */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { ragtruthKeyMetrics, ragtruthMetrics, scoreRagtruth } from "../../verify/rules/ragtruth.ts";
import { responseOutputText } from "../../verify/rules/response-output-text.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "RagtruthResourcesServer";
type Obj = Record<string, unknown>;

function thinkTag(ctx: Pick<ComponentContext, "instanceName" | "config">): string {
  const v = ctx.config.think_tag ?? "think";
  if (typeof v !== "string") throw new ConfigError(`${ctx.instanceName}: think_tag must be a string (the reasoning tag name, e.g. think)`, { key: "think_tag" });
  return v;
}

// pydantic's lax bool: true/false, 0/1 and its accepted strings.
const TRUE = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE = new Set(["0", "off", "f", "false", "n", "no"]);

/** Grade one verify body: the row echoed (task_type defaulted), is_halu re-emitted as 0/1, plus the score fields. */
export function gradeRagtruth(body: Obj, tag = "think"): Obj {
  const { responses_create_params: _rcp, response, is_halu: raw, ...row } = body;
  const isHalu = raw === true || raw === 1 || (typeof raw === "string" && TRUE.has(raw.toLowerCase()));
  return { task_type: "", ...row, ...scoreRagtruth(responseOutputText(response), isHalu, tag) };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "ragtruth",
  className: CLASS_NAME,
  checkConfig: (ctx) => void thinkTag(ctx),
  async create(ctx) {
    const tag = thinkTag(ctx);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        is_halu: Type.Optional(Type.Union([Type.Boolean(), Type.Literal(0), Type.Literal(1), Type.Enum([...TRUE, ...FALSE])])),
        task_type: Type.Optional(Type.String()),
      },
      verify: (body) => gradeRagtruth(body, tag),
      computeMetrics: (tasks) => ragtruthMetrics(tasks),
      keyMetrics: ragtruthKeyMetrics,
    });
  },
};
