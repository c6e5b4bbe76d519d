/**
 * resources_servers/terminal_multi_harness: harness-aware next-action verification for pivot RL on
 * terminal-agent trajectories (verify/rules/terminal-harness/). The comparator's config is the
 * required `tool_call_comparator_config` leaf key; declared tools come from the row's
 * `declared_tools`, else from `responses_create_params.tools`.
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { extractHarnessAction, normalizeAction, type HarnessAction } from "../../verify/rules/terminal-harness/actions.ts";
import { STEP } from "../../verify/rules/terminal-harness/categories.ts";
import { compareHarnessAction, type HarnessComparatorConfig } from "../../verify/rules/terminal-harness/compare.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "TerminalMultiHarnessResourcesServer";
const Call = Type.Object({ type: Type.Literal("function_call"), name: Type.String(), arguments: Type.String() });
/** Upstream's ExpectedAction (a union discriminated on `type`). */
const ExpectedAction = Type.Union([
  Type.Object({ type: Type.Literal("message"), content: Type.String() }),
  Call,
  Type.Object({ type: Type.Literal("function_call_batch"), calls: Type.Array(Call), ordered: Type.Optional(Type.Boolean()) }),
]);

function comparatorConfig(ctx: Pick<ComponentContext, "instanceName" | "config">): HarnessComparatorConfig {
  const key = "tool_call_comparator_config";
  const c = ctx.config[key] as Record<string, unknown> | undefined;
  if (!c || typeof c !== "object" || Array.isArray(c)) throw new ConfigError(`${ctx.instanceName}: ${key} is required`, { key, hint: `e.g. ${key}: {string_similarity_threshold: 0.9}` });
  const bad = (k: string, want: string) => new ConfigError(`${ctx.instanceName}: ${key}.${k} must be ${want}, got ${JSON.stringify(c[k])}`, { key: `${key}.${k}` });
  const t = c.string_similarity_threshold;
  if (typeof t !== "number") throw bad("string_similarity_threshold", "a number");
  const f = c.floating_point_comparison_threshold ?? 1e-6;
  if (typeof f !== "number") throw bad("floating_point_comparison_threshold", "a number");
  const ignored = c.ignored_argument_keys_by_tool ?? {};
  const okIgnored = typeof ignored === "object" && !Array.isArray(ignored) && Object.values(ignored as object).every((v) => Array.isArray(v) && v.every((x) => typeof x === "string"));
  if (!okIgnored) throw bad("ignored_argument_keys_by_tool", "a map of tool name to a list of argument keys");
  // Other keys (stirrup's query_string_similarity_threshold) are ignored, as upstream's pydantic model ignores them.
  return { string_similarity_threshold: t, floating_point_comparison_threshold: f, ignored_argument_keys_by_tool: ignored as Record<string, string[]> };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "terminal_multi_harness",
  className: CLASS_NAME,
  checkConfig: (ctx) => void comparatorConfig(ctx),
  async create(ctx) {
    const cfg = comparatorConfig(ctx);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        harness: Type.Optional(Type.String()),
        expected_action: ExpectedAction,
        declared_tools: Type.Optional(Type.Union([Type.Array(Type.Record(Type.String(), Type.Unknown())), Type.Null()])),
        threshold: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
      },
      verify: (body) => {
        const harness = (body.harness as string | undefined) ?? "generic";
        const expected = normalizeAction(body.expected_action as HarnessAction);
        const declaredTools = (body.declared_tools as unknown[] | null | undefined) ?? null;
        const threshold = (body.threshold as number | null | undefined) ?? null;
        const echo = { harness, expected_action: expected, declared_tools: declaredTools, threshold };
        const actual = extractHarnessAction(body.response);
        if (!actual) return { reward: 0.0, ...echo, category: STEP.NO_ACTION_FOUND, similarity_score: null };
        // No declared_tools on the row: the tools the model was offered are the declared ones.
        const tools = declaredTools ?? ((body.responses_create_params as { tools?: unknown }).tools as unknown[] | null | undefined) ?? [];
        const r = compareHarnessAction(expected, actual, cfg, { declaredTools: Array.isArray(tools) ? tools : [], threshold, harness });
        return { reward: r.matches ? 1.0 : 0.0, ...echo, category: r.category, similarity_score: r.similarity_score };
      },
    });
  },
};
