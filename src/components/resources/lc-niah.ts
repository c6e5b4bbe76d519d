/** resources_servers/lc_niah: long-context needle-in-a-haystack node lists, F1 with a reasoning-copy penalty (verify/rules/lc-niah.ts). */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { gradeLcNiah, OVERLAP_GRADINGS, OVERLAP_METRICS } from "../../verify/rules/lc-niah.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "LCNIAHResourcesServer";

function pick<T extends string>(ctx: Pick<ComponentContext, "instanceName" | "config">, key: string, allowed: readonly T[], def: T): T {
  const v = ctx.config[key] ?? def;
  if (!(allowed as readonly unknown[]).includes(v)) throw new ConfigError(`${ctx.instanceName}: ${key} ${JSON.stringify(v)} is not one of ${allowed.join(", ")}`, { key, hint: `${def} is the default` });
  return v as T;
}

function settings(ctx: Pick<ComponentContext, "instanceName" | "config">) {
  return { metric: pick(ctx, "overlap_metric_rule", OVERLAP_METRICS, "lcs"), grading: pick(ctx, "overlap_grading_rule", OVERLAP_GRADINGS, "multiply") };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "lc_niah",
  className: CLASS_NAME,
  checkConfig: (ctx) => void settings(ctx),
  async create(ctx) {
    const { metric, grading } = settings(ctx);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { expected_answer: Type.String() },
      verify: (body) => {
        // Upstream's request and response models allow extra fields: the row's own fields are echoed.
        const { responses_create_params: rcp, response, ...row } = body;
        return { ...row, ...gradeLcNiah(response, (rcp as Record<string, unknown>).input, body.expected_answer as string, metric, grading) };
      },
    });
  },
};
