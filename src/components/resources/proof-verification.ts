/**
 * resources_servers/proof_verification: the policy grades a given proof (its last \boxed{} is the
 * predicted score, 0/½/1); reward (1 − |predicted − ground_truth_verify_score|) · r_meta, where a
 * meta-verifier judge scores the policy's verification against the ground-truth judgement. Malformed
 * answers, over-long texts and a ground-truth score outside {0, ½, 1} score 0 without a judge call.
 * The answer is the request plus `reward`, as upstream's.
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { extractBoxedScore, lengthProblem, MAX_PROOF_CHARS, MAX_VERIFICATION_CHARS, parseVerificationAnswer, verificationReward } from "../../verify/proof/self-verify.ts";
import type { BuiltinComponent } from "../registry.ts";
import { echoFields } from "./_proof-support.ts";
import { assistantOutputText, proofTemplate, verifierJudge } from "./_proof-verifier.ts";

const CLASS_NAME = "ProofVerificationResourcesServer";
const IMPL = "proof_verification";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: IMPL,
  className: CLASS_NAME,
  async create(ctx) {
    const judge = verifierJudge(ctx, IMPL);
    const meta = await proofTemplate(ctx, IMPL, "meta-verifier.yaml", ["problem", "proof", "ground_truth_judgement", "candidate_judgement"]);

    const score = async (body: Record<string, unknown>): Promise<number> => {
      const text = assistantOutputText(body.response);
      if (!text) return 0.0;
      const answer = parseVerificationAnswer(text, judge.assertThinkEnd);
      if ("reason" in answer) return 0.0;
      const proof = body.proof as string;
      if (lengthProblem(proof, "proof", MAX_PROOF_CHARS) || lengthProblem(answer.verification, "verification", MAX_VERIFICATION_CHARS)) return 0.0;
      const gold = body.ground_truth_verify_score as number;
      if (gold !== 0 && gold !== 0.5 && gold !== 1) return 0.0;
      const m = await judge.ask(meta.render({ problem: body.problem as string, proof, ground_truth_judgement: body.ground_truth_judgement as string, candidate_judgement: answer.verification }));
      return verificationReward(answer.predicted, gold, extractBoxedScore(m.text) ?? 0.0);
    };

    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: {
        problem: Type.Optional(Type.String()),
        proof: Type.Optional(Type.String()),
        ground_truth_judgement: Type.String(),
        ground_truth_verify_score: Type.Number(),
      },
      async verify(body) {
        const row = { ...body, problem: body.problem ?? "", proof: body.proof ?? "" };
        return { ...echoFields(row), reward: await score(row) };
      },
    });
  },
};
