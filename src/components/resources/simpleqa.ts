/**
 * resources_servers/simpleqa: short-form factual QA graded by a three-tier LLM judge
 * (A CORRECT / B INCORRECT / C NOT_ATTEMPTED, verify/judge/simpleqa.ts), over chat completions
 * when `use_chat_completions_for_judge`. An empty judge answer is a failed judge call
 * (`judge_failed`), as upstream raises it.
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { highestKMetrics } from "../../verify/aggregate-metrics.ts";
import { JudgeError } from "../../verify/judge/judge-error.ts";
import { parseAbcGrade, simpleqaMetrics, verdictOf } from "../../verify/judge/simpleqa.ts";
import { lastAssistantText } from "../../verify/response-text.ts";
import { bool, str } from "../_support.ts";
import { askJudgeText, judgeFromContext, loadYamlPrompt } from "../_judge.ts";
import type { BuiltinComponent } from "../registry.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "SimpleQAServer";
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

/** SimpleQA's headline metrics. */
export function simpleqaKeyMetrics(am: Obj): Obj {
  const key: Obj = {};
  for (const n of ["mean/input_tokens", "mean/output_tokens"]) if (n in am) key[n] = am[n];
  Object.assign(key, highestKMetrics(am, "pass@1[avg-of-{k}]"));
  Object.assign(key, highestKMetrics(am, "pass@{k}", { excludeNames: ["no_answer"] }));
  return key;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "simpleqa",
  className: CLASS_NAME,
  async create(ctx) {
    const judge = judgeFromContext(ctx, null);
    const prompt = await loadYamlPrompt(ctx, "resources_servers", "simpleqa", "judge_prompt_path", str(ctx, "judge_prompt_path") ?? "prompts/judge.yaml", ["question", "expected_answer", "generation"]);
    const useChat = bool(ctx, "use_chat_completions_for_judge", false);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { id: Nullable(Type.Union([Type.Integer(), Type.String()])), question: Nullable(Type.String()), expected_answer: Nullable(Type.String()) },
      async verify(body) {
        const generation = lastAssistantText(body.response);
        const expected = (body.expected_answer as string | null | undefined) || "";
        const judgeText = await askJudgeText(judge, prompt.render({ question: (body.question as string | null | undefined) || "", expected_answer: expected, generation }), useChat, lastAssistantText);
        if (!judgeText) throw new JudgeError("empty judge response");
        const verdict = verdictOf(parseAbcGrade(judgeText));
        const { responses_create_params: _r, response: _p, expected_answer: _e, extracted_answer: _x, ...rest } = body;
        return {
          ...rest,
          reward: verdict === "correct" ? 1.0 : 0.0,
          extracted_answer: generation,
          expected_answer: expected,
          verdict,
          judge_output: judgeText,
          is_correct: verdict === "correct" ? 1.0 : 0.0,
          is_incorrect: verdict === "incorrect" ? 1.0 : 0.0,
          is_not_attempted: verdict === "not_attempted" ? 1.0 : 0.0,
        };
      },
      computeMetrics: simpleqaMetrics,
      keyMetrics: simpleqaKeyMetrics,
    });
  },
};
