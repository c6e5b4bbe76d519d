/**
 * resources_servers/math_proof_judgement: the policy model judges a math proof ("Judgement: Yes/No"),
 * scored deterministically by verify/proof/judgement.ts; pass@k / majority@k of accuracy and the
 * confusion counters, plus Skills' precision / recall / F1. Row fields are echoed (extra=allow).
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { highestKMetrics, passMajorityMetrics, type VerifyResponse } from "../../verify/aggregate-metrics.ts";
import { judgeJudgement, judgementClassificationMetrics } from "../../verify/proof/judgement.ts";
import { assistantMessagesText, echoFields } from "./_proof-support.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "MathProofJudgementResourcesServer";
const MaybeStr = Type.Optional(Type.Union([Type.String(), Type.Null()]));

const scores = (r: VerifyResponse) => ({
  accuracy: Number(r.reward ?? 0),
  true_positive: Number(r.tp ?? 0),
  false_positive: Number(r.fp ?? 0),
  false_negative: Number(r.fn ?? 0),
  true_negative: Number(r.tn ?? 0),
});

/** compute_metrics: pass/majority over accuracy and confusion one-hots (vote = extracted_judgement), then P/R/F1. */
export function judgementComputeMetrics(tasks: VerifyResponse[][]): Record<string, unknown> {
  return { ...passMajorityMetrics(tasks, scores, "extracted_judgement"), ...judgementClassificationMetrics(tasks) };
}

/** get_key_metrics: mean reward and the highest-k accuracy / F1 views. */
export function judgementKeyMetrics(am: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  if ("mean/reward" in am) key["mean/reward"] = am["mean/reward"];
  Object.assign(key, highestKMetrics(am, "pass@1[avg-of-{k}]", { scoreNames: ["accuracy", "f1", "precision", "recall", "no_answer"] }));
  Object.assign(key, highestKMetrics(am, "pass@{k}", { scoreNames: ["accuracy", "f1", "no_answer"] }));
  Object.assign(key, highestKMetrics(am, "majority@{k}", { scoreNames: ["accuracy", "f1"] }));
  return key;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "math_proof_judgement",
  className: CLASS_NAME,
  create: async (ctx) =>
    resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: { expected_judgement: MaybeStr, problem_id: MaybeStr, problem: MaybeStr, proof: MaybeStr },
      computeMetrics: judgementComputeMetrics,
      keyMetrics: judgementKeyMetrics,
      verify(body) {
        const v = judgeJudgement(assistantMessagesText(body.response), body.expected_judgement);
        return { reward: v.reward, expected_judgement: body.expected_judgement ?? null, extracted_judgement: v.extracted_judgement, tp: v.tp, fp: v.fp, fn: v.fn, tn: v.tn, ...echoFields(body) };
      },
    }),
};
