/**
 * resources_servers/imo_gradingbench: the policy model grades a math proof (correct / almost / partial /
 * incorrect as its last word), scored deterministically by verify/proof/grading.ts; pass@k / majority@k
 * of exact and binarized accuracy plus MAE over the ordinal grade points. Row fields are echoed (extra=allow).
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { highestKMetrics, passMajorityMetrics, type VerifyResponse } from "../../verify/aggregate-metrics.ts";
import { gradeGrading, gradingMae } from "../../verify/proof/grading.ts";
import { assistantMessagesText, echoFields } from "./_proof-support.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "ImoGradingBenchResourcesServer";
const MaybeStr = Type.Optional(Type.Union([Type.String(), Type.Null()]));

const scores = (r: VerifyResponse) => ({ exact_accuracy: Number(r.reward ?? 0), binarized_accuracy: r.binary_match ? 1 : 0 });

/** compute_metrics: pass/majority over exact and binarized accuracy (vote = extracted_grade), then MAE. */
export function gradingComputeMetrics(tasks: VerifyResponse[][]): Record<string, unknown> {
  const out = passMajorityMetrics(tasks, scores, "extracted_grade");
  const maxK = tasks.length === 0 ? 0 : Math.max(...tasks.map((t) => t.length));
  return { ...out, ...gradingMae(tasks, maxK) };
}

/** get_key_metrics: mean reward, highest-k pass@1 / pass@k / majority@k of the named scores, MAE. */
export function gradingKeyMetrics(am: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  if ("mean/reward" in am) key["mean/reward"] = am["mean/reward"];
  Object.assign(key, highestKMetrics(am, "pass@1[avg-of-{k}]", { scoreNames: ["exact_accuracy", "binarized_accuracy", "mae", "no_answer"] }));
  Object.assign(key, highestKMetrics(am, "pass@{k}", { scoreNames: ["exact_accuracy", "binarized_accuracy", "mae"] }));
  Object.assign(key, highestKMetrics(am, "majority@{k}", { scoreNames: ["exact_accuracy", "binarized_accuracy"] }));
  if ("mae" in am) {
    key.mae = am.mae;
    key.mae_count = am.mae_count ?? 0.0;
  }
  return key;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "imo_gradingbench",
  className: CLASS_NAME,
  create: async (ctx) =>
    resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: { expected_answer: MaybeStr, grading_id: MaybeStr, problem_id: MaybeStr },
      computeMetrics: gradingComputeMetrics,
      keyMetrics: gradingKeyMetrics,
      verify(body) {
        const v = gradeGrading(assistantMessagesText(body.response), body.expected_answer);
        return { reward: v.reward, expected_answer: body.expected_answer ?? null, extracted_grade: v.extracted_grade, binary_match: v.binary_match, score_diff: v.score_diff, ...echoFields(body) };
      },
    }),
};
