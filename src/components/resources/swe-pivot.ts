/**
 * resources_servers/swe_pivot: PivotRL's layered next-action verifier on SWE agent trajectories
 * (verify/rules/swe-pivot.ts). Config keys and defaults are upstream's SwePivotResourcesServerConfig.
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { gradeSwePivot, SWE_PIVOT_DEFAULTS, type SwePivotConfig, type SwePivotRow } from "../../verify/rules/swe-pivot.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "SwePivotResourcesServer";
const OptDict = Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]));

function pivotConfig(ctx: Pick<ComponentContext, "instanceName" | "config">): SwePivotConfig {
  const out: Record<string, unknown> = {};
  for (const [k, def] of Object.entries(SWE_PIVOT_DEFAULTS)) {
    const v = ctx.config[k] ?? def;
    if (typeof v !== typeof def) throw new ConfigError(`${ctx.instanceName}: ${k} must be ${typeof def === "boolean" ? "true or false" : `a ${typeof def}`}, got ${JSON.stringify(v)}`, { key: k, hint: `upstream's default is ${JSON.stringify(def)}` });
    out[k] = v;
  }
  return out as unknown as SwePivotConfig;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "swe_pivot",
  className: CLASS_NAME,
  checkConfig: (ctx) => void pivotConfig(ctx),
  async create(ctx) {
    const cfg = pivotConfig(ctx);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        uuid: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Null()])),
        expected_answer: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        expected_action: OptDict,
        metadata: OptDict,
      },
      verify: (body) => {
        const r = gradeSwePivot(body.response, body as SwePivotRow, cfg);
        const { reward, ...rest } = r;
        return { reward, uuid: body.uuid ?? null, ...rest, metadata: body.metadata ?? null };
      },
    });
  },
};
