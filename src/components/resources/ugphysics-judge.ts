/**
 * resources_servers/ugphysics_judge: math_with_judge with the UGPhysics TRUE/FALSE judge — on a symbolic
 * miss one call (no swap) with the problem, reference solution, gold and generation; the verdict is the
 * `## Equivalence Judgement` line, else the last standalone TRUE/FALSE. `extracted_verdict` (TRUE when
 * the library matched, FALSE when the judge is off) is the majority vote; per-`subject` subsets.
 */
import Type from "typebox";
import { bool } from "../_support.ts";
import { mathKeyMetrics, mathServer, type MathJudgeFn } from "./math-with-judge/index.ts";
import { echoFields } from "./_proof-support.ts";
import { askOnce, loadJudgePromptYaml, promptMessages } from "./_physics-judge.ts";
import { subsetMetrics } from "../../verify/sample-metrics.ts";
import { passMajorityMetrics, type VerifyResponse } from "../../verify/aggregate-metrics.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "UGPhysicsJudgeResourcesServer";
const FIELDS = ["problem", "solution", "expected_answer", "generation"] as const;
const HEADER = /##\s*Equivalence\s*Judgement\s*\n\s*(TRUE|FALSE)/i;
// Python's \b is Unicode-aware: a word character is a letter, a number or `_`.
const TOKEN = /(?<![\p{L}\p{N}_])(TRUE|FALSE)(?![\p{L}\p{N}_])/giu;

/** UGPhysicsMetrics.is_correct_judgement: header first, then the last standalone TRUE/FALSE; null when neither. */
export function parseUgphysicsJudgement(text: string | null | undefined): boolean | null {
  if (!text) return null;
  const m = HEADER.exec(text);
  if (m) return m[1]!.toUpperCase() === "TRUE";
  const all = [...text.matchAll(TOKEN)];
  return all.length > 0 ? all[all.length - 1]![1]!.toUpperCase() === "TRUE" : null;
}

const scores = (r: VerifyResponse) => ({ symbolic_accuracy: Number(r.library_reward ?? 0), judge_accuracy: Number(r.reward ?? 0) });

/** pass/majority (vote = extracted_verdict) plus per-subject subsets. */
export function ugphysicsComputeMetrics(tasks: VerifyResponse[][]): Record<string, unknown> {
  return { ...passMajorityMetrics(tasks, scores, "extracted_verdict"), ...subsetMetrics(tasks, "subject", scores, "extracted_verdict") };
}

const label = (v: boolean | null) => (v === true ? "TRUE" : v === false ? "FALSE" : null);

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "ugphysics_judge",
  className: CLASS_NAME,
  async create(ctx) {
    const prompt = await loadJudgePromptYaml(ctx, "ugphysics_judge", "resources_servers/ugphysics_judge/prompts/judge.yaml", FIELDS);
    const useChat = bool(ctx, "use_chat_completions_for_judge", false);
    const judgeFn: MathJudgeFn = async (judge, i) => {
      const solution = typeof i.body.solution === "string" ? i.body.solution : "";
      const { text, evaluation } = await askOnce(judge, promptMessages(prompt, { problem: i.question, solution, expected_answer: i.expected, generation: i.generated }), useChat);
      const verdict = parseUgphysicsJudgement(text);
      return { reward: verdict === true ? 1.0 : 0.0, evaluations: [evaluation], fields: { extracted_verdict: label(verdict) } };
    };
    return mathServer(ctx, CLASS_NAME, judgeFn, {
      verifyFields: { solution: Type.Optional(Type.String()), subject: Type.Optional(Type.Union([Type.String(), Type.Null()])) },
      // The request model allows extra fields and the response dumps them back (the gold stays as read).
      echo: (body) => {
        const { expected_answer: _, ...rest } = echoFields(body);
        return { solution: "", subject: null, ...rest };
      },
      libraryFields: (r) => ({ extracted_verdict: r > 0.5 ? "TRUE" : "FALSE" }),
      computeMetrics: ugphysicsComputeMetrics,
      keyMetrics: mathKeyMetrics,
    });
  },
};
