/**
 * resources_servers/physics_judge: math_with_judge with NeMo Skills' physics judge — on a symbolic miss
 * one call (no A/B swap) with the full generation, `[Correct]` anywhere (case-insensitive) is correct,
 * anything else is not; per-`domain` subset metrics when rollouts carry a domain.
 */
import { bool } from "../_support.ts";
import { mathComputeMetrics, mathScores, mathServer, type MathJudgeFn } from "./math-with-judge/index.ts";
import { askOnce, loadJudgePromptYaml, promptMessages } from "./_physics-judge.ts";
import { subsetMetrics } from "../../verify/sample-metrics.ts";
import type { VerifyResponse } from "../../verify/aggregate-metrics.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "PhysicsJudgeResourcesServer";
const FIELDS = ["problem", "generation", "expected_answer"] as const;

/** Skills' PhysicsMetrics.is_correct_judgement: `[correct]` present, any case. */
export function physicsVerdict(text: string | null): boolean {
  return text !== null && /\[correct\]/i.test(text);
}

/** math_with_judge's metrics plus per-domain subsets. */
export function physicsComputeMetrics(tasks: VerifyResponse[][]): Record<string, unknown> {
  const m = mathComputeMetrics(tasks);
  if (tasks.some((rs) => rs.some((r) => "domain" in r))) Object.assign(m, subsetMetrics(tasks, "domain", mathScores, "extracted_answer"));
  return m;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "physics_judge",
  className: CLASS_NAME,
  async create(ctx) {
    const prompt = await loadJudgePromptYaml(ctx, "physics_judge", "resources_servers/physics_judge/prompts/judge.yaml", FIELDS);
    const useChat = bool(ctx, "use_chat_completions_for_judge", false);
    const judgeFn: MathJudgeFn = async (judge, i) => {
      const { text, evaluation } = await askOnce(judge, promptMessages(prompt, { problem: i.question, generation: i.generated, expected_answer: i.expected }), useChat);
      return { reward: physicsVerdict(text) ? 1.0 : 0.0, evaluations: [evaluation] };
    };
    return mathServer(ctx, CLASS_NAME, judgeFn, { computeMetrics: physicsComputeMetrics });
  },
};
