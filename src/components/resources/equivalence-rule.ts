/** resources_servers/equivalence_rule: rule-based answer equivalence (exact / seq_match / weighted_seq_match) with no judge. */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { outputText } from "../../verify/response-text.ts";
import { GRADING_RULES, gradeEquivalence, type GradingRule } from "../../verify/rules/equivalence.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "EquivalenceRuleResourcesServer";

function rule(ctx: Pick<ComponentContext, "instanceName" | "config">): GradingRule {
  const v = ctx.config.grading_rule ?? "exact";
  if (!(GRADING_RULES as readonly unknown[]).includes(v)) throw new ConfigError(`${ctx.instanceName}: grading_rule ${JSON.stringify(v)} is not one of ${GRADING_RULES.join(", ")}`, { key: "grading_rule", hint: "exact is the default" });
  return v as GradingRule;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "equivalence_rule",
  className: CLASS_NAME,
  checkConfig: (ctx) => void rule(ctx),
  async create(ctx) {
    const r = rule(ctx);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { expected_answer: Type.String() },
      verify: (body) => {
        const score = gradeEquivalence(outputText(body.response), body.expected_answer as string, r);
        // Upstream's request and response models allow extra fields, so the row's own fields are echoed.
        const { responses_create_params: _p, response: _r, ...row } = body;
        return { ...row, reward: score, equivalence_score: score };
      },
    });
  },
};
