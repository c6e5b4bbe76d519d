/**
 * resources_servers/omniscience: AA-Omniscience factual QA graded by a four-tier LLM judge
 * (verify/judge/omniscience.ts). The judge sees the answer with reasoning traces removed, or ""
 * when a trace was opened and never closed (a truncated answer); an empty judge answer is a
 * failed judge call.
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { JudgeError } from "../../verify/judge/judge-error.ts";
import { omniscienceMetrics, omniVerdict, parseAbcdGrade, stripThinkingTraces } from "../../verify/judge/omniscience.ts";
import { lastAssistantText } from "../../verify/response-text.ts";
import { bool, str } from "../_support.ts";
import { askJudgeText, judgeFromContext, loadYamlPrompt } from "../_judge.ts";
import type { BuiltinComponent } from "../registry.ts";
import { simpleqaKeyMetrics } from "./simpleqa.ts";

const CLASS_NAME = "OmniscienceServer";
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "omniscience",
  className: CLASS_NAME,
  async create(ctx) {
    const judge = judgeFromContext(ctx, null);
    const prompt = await loadYamlPrompt(ctx, "resources_servers", "omniscience", "judge_prompt_path", str(ctx, "judge_prompt_path") ?? "prompts/judge.yaml", ["question", "expected_answer", "generation"]);
    const useChat = bool(ctx, "use_chat_completions_for_judge", false);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { id: Nullable(Type.Union([Type.Integer(), Type.String()])), domain: Nullable(Type.String()), topic: Nullable(Type.String()), question: Nullable(Type.String()), expected_answer: Nullable(Type.String()) },
      async verify(body) {
        const raw = lastAssistantText(body.response);
        const opened = raw.includes("<think>") || raw.includes("<thinking>");
        const closed = raw.includes("</think>") || raw.includes("</thinking>");
        const generation = opened && !closed ? "" : stripThinkingTraces(raw);
        const expected = (body.expected_answer as string | null | undefined) || "";
        const judgeText = await askJudgeText(judge, prompt.render({ question: (body.question as string | null | undefined) || "", expected_answer: expected, generation }), useChat, (r) => stripThinkingTraces(lastAssistantText(r)));
        if (!judgeText) throw new JudgeError("empty judge response");
        const verdict = omniVerdict(parseAbcdGrade(judgeText));
        const is = (v: string) => (verdict === v ? 1.0 : 0.0);
        const { responses_create_params: _r, response: _p, expected_answer: _e, extracted_answer: _x, ...rest } = body;
        return {
          ...rest,
          reward: is("correct"),
          extracted_answer: generation,
          expected_answer: expected,
          verdict,
          judge_output: judgeText,
          is_correct: is("correct"),
          is_incorrect: is("incorrect"),
          is_partial: is("partial"),
          is_not_attempted: is("not_attempted"),
          omniscience_index: is("correct") - is("incorrect"),
          is_hallucination: is("incorrect"),
        };
      },
      computeMetrics: omniscienceMetrics,
      keyMetrics: simpleqaKeyMetrics,
    });
  },
};
