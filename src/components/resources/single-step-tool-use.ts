/**
 * resources_servers/single_step_tool_use_with_argument_comparison: grade one step of an expert
 * trajectory (behaviour cloning) by comparing the model's action with the expected one
 * (verify/rules/action-compare.ts). The comparator's config is the required
 * `tool_call_comparator_config` leaf key.
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { compareAction, extractAction, type Action, type ComparatorConfig } from "../../verify/rules/action-compare.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "SingleStepToolUseArgumentComparisonResourcesServer";
const Call = Type.Object({ type: Type.Literal("function_call"), name: Type.String(), arguments: Type.String() });
/** Upstream's ExpectedAction (a discriminated union on `type`). */
const ExpectedAction = Type.Union([
  Type.Object({ type: Type.Literal("message"), content: Type.String() }),
  Call,
  Type.Object({ type: Type.Literal("function_call_batch"), calls: Type.Array(Call, { minItems: 1 }) }),
]);
const MODES = ["binary_strict", "fractional", "f1"] as const;

function comparatorConfig(ctx: Pick<ComponentContext, "instanceName" | "config">): ComparatorConfig {
  const key = "tool_call_comparator_config";
  const c = ctx.config[key] as Record<string, unknown> | undefined;
  const bad = (k: string, want: string) => new ConfigError(`${ctx.instanceName}: ${key}.${k} must be ${want}, got ${JSON.stringify(c?.[k])}`, { key: `${key}.${k}` });
  if (!c || typeof c !== "object") throw new ConfigError(`${ctx.instanceName}: ${key} is required`, { key, hint: `e.g. ${key}: {word_count_similarity_threshold: 0.1}` });
  const num = (k: string, def?: number) => {
    const v = c[k] ?? def;
    if (typeof v !== "number") throw bad(k, "a number");
    return v;
  };
  const flag = (k: string) => {
    const v = c[k] ?? false;
    if (typeof v !== "boolean") throw bad(k, "true or false");
    return v;
  };
  const mode = c.parallel_tool_call_reward_mode ?? "binary_strict";
  if (!(MODES as readonly unknown[]).includes(mode)) throw bad("parallel_tool_call_reward_mode", MODES.join(", "));
  return {
    word_count_similarity_threshold: num("word_count_similarity_threshold"),
    floating_point_comparison_threshold: num("floating_point_comparison_threshold", 1e-6),
    parallel_tool_call_rewarding: flag("parallel_tool_call_rewarding"),
    allow_subset: flag("allow_subset"),
    allow_superset: flag("allow_superset"),
    parallel_tool_call_reward_mode: mode as ComparatorConfig["parallel_tool_call_reward_mode"],
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "single_step_tool_use_with_argument_comparison",
  className: CLASS_NAME,
  checkConfig: (ctx) => void comparatorConfig(ctx),
  async create(ctx) {
    const cfg = comparatorConfig(ctx);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { expected_action: ExpectedAction },
      verify: (body) => {
        const expected = body.expected_action as Action;
        return { expected_action: expected, ...compareAction(expected, extractAction(body.response), cfg) };
      },
    });
  },
};
