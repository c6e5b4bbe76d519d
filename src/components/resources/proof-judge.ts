/**
 * resources_servers/proof_judge: theorem proving with a self-evaluation. The policy writes
 * `## Solution … ## Self Evaluation … \boxed{s′}`; a verifier judge scores the proof (r_y) and, when
 * `beta` ≠ 0, a meta-verifier scores the self-evaluation (r_meta, asked in parallel). Reward
 * α·r_y + β·(1 − |s′ − r_y|)·r_meta. With `zero_reward_incorrect_groups`, the rollouts of one
 * problem wait for each other (`expected_group_size` of them) and all get 0 when every verifier
 * score was 0. The answer is the request plus `reward`, as upstream's.
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { HttpError } from "../../runtime/http/http-types.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { extractBoxedScore, lengthProblem, MAX_PROOF_CHARS, MAX_VERIFICATION_CHARS, parseProofAnswer, proofReward } from "../../verify/proof/self-verify.ts";
import { bool } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { echoFields } from "./_proof-support.ts";
import { numberKey, assistantOutputText, proofTemplate, verifierJudge } from "./_proof-verifier.ts";

const CLASS_NAME = "ProofWithJudgeResourcesServer";
const IMPL = "proof_judge";

/** The group settings, checked at start (upstream's model_post_init). */
function groupSettings(ctx: Pick<ComponentContext, "instanceName" | "config">): { zeroGroups: boolean; size: number } {
  const zeroGroups = bool(ctx, "zero_reward_incorrect_groups", false);
  const size = numberKey(ctx as ComponentContext, "expected_group_size", -1);
  if (zeroGroups && !(size > 0)) {
    throw new ConfigError(`${ctx.instanceName}: expected_group_size must be > 0 when zero_reward_incorrect_groups is enabled`, { key: "expected_group_size", hint: "set it to the number of rollouts per problem (num_repeats)" });
  }
  return { zeroGroups, size };
}

/** The rollouts of one problem waiting for the last of the group (upstream's IncorrectGroupCoordinator). */
class GroupBarrier {
  private readonly groups = new Map<string, { scores: number[]; done: Promise<boolean>; resolve: (allZero: boolean) => void }>();
  constructor(private readonly size: number) {}

  /** Add one verifier score; resolves, once the group is complete, to whether every score was 0. */
  join(problem: string, score: number): Promise<boolean> {
    let g = this.groups.get(problem);
    if (!g) {
      let resolve!: (allZero: boolean) => void;
      const done = new Promise<boolean>((r) => (resolve = r));
      g = { scores: [], done, resolve };
      this.groups.set(problem, g);
    }
    g.scores.push(score);
    if (g.scores.length === this.size) {
      this.groups.delete(problem);
      g.resolve(g.scores.every((s) => s === 0));
    }
    return g.done;
  }
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: IMPL,
  className: CLASS_NAME,
  checkConfig: (ctx) => void groupSettings(ctx),
  async create(ctx) {
    const alpha = numberKey(ctx, "alpha", 1.0);
    const beta = numberKey(ctx, "beta", 0.0);
    const { zeroGroups, size } = groupSettings(ctx);
    const judge = verifierJudge(ctx, IMPL);
    const verifier = await proofTemplate(ctx, IMPL, "verifier.yaml", ["problem", "proof"]);
    const meta = await proofTemplate(ctx, IMPL, "meta-verifier.yaml", ["problem", "proof", "proof_analysis"]);
    const barrier = new GroupBarrier(size);

    /** One rollout's reward and the verifier score the group rule reads (0 when the judge never ran). */
    const judgeOne = async (problem: string, text: string): Promise<{ reward: number; verifierScore: number }> => {
      const none = { reward: 0.0, verifierScore: 0.0 };
      if (!text) return none;
      const answer = parseProofAnswer(text, judge.assertThinkEnd);
      if ("reason" in answer) return none;
      if (lengthProblem(answer.proof, "proof", MAX_PROOF_CHARS) || lengthProblem(answer.selfEval, "self_verification", MAX_VERIFICATION_CHARS)) return none;
      const asks = [judge.ask(verifier.render({ problem, proof: answer.proof }))];
      if (beta !== 0) asks.push(judge.ask(meta.render({ problem, proof: answer.proof, proof_analysis: answer.selfEval })));
      const [v, m] = await Promise.all(asks);
      const r_y = extractBoxedScore(v!.text) ?? 0.0;
      const r_meta = m ? (extractBoxedScore(m.text) ?? 0.0) : null;
      return { reward: proofReward(alpha, beta, answer.predicted, r_y, r_meta), verifierScore: r_y };
    };

    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: zeroGroups ? "unsupported" : "stateless",
      verifySchema: { problem: Type.Optional(Type.String()) },
      async verify(body) {
        const problem = typeof body.problem === "string" ? body.problem : "";
        let { reward, verifierScore } = await judgeOne(problem, assistantOutputText(body.response));
        if (zeroGroups) {
          if (!problem) throw new HttpError(422, "problem must be set when zero_reward_incorrect_groups is enabled");
          if (await barrier.join(problem, verifierScore)) reward = 0.0;
        }
        return { ...echoFields(body), problem, reward };
      },
    });
  },
};
