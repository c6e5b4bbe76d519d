/**
 * resources_servers/multichallenge: a conversation context and a rubric of yes/no questions; one
 * judge call per rubric item (global template), the item passes when the verdict equals its
 * `pass_criteria`, and the item scores are aggregated (`aggregation_mode`).
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { answerWithoutThinking } from "../../verify/judge/assistant-text.ts";
import { aggregateScores, contextFromMessages, multichallengeVerdict } from "../../verify/judge/rubric.ts";
import { pyStr } from "../../util/py-str-of.ts";
import { bool } from "../_support.ts";
import { checkedPrompt, judgeFromContext } from "../_judge.ts";
import type { BuiltinComponent } from "../registry.ts";
import { text } from "./_safety-judge.ts";
import { aggregationMode, askRubricJudge, evaluateAll } from "./_rubric-judge.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "MultiChallengeServer";
const Maybe = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

const DEFAULT_TEMPLATE = `You are evaluating whether a model's response meets a specific criterion.

CONVERSATION CONTEXT:
{context}

MODEL'S FINAL RESPONSE:
{response}

EVALUATION QUESTION:
{question}

EXPECTED ANSWER: {pass_criteria}

Does the model's response satisfy the criterion described in the evaluation question?
Analyze carefully, then respond with exactly [[YES]] or [[NO]] on the last line.`;
const DEFAULT_SYSTEM = "You are a precise evaluator. Assess responses objectively based on the given criteria.";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "multichallenge",
  className: CLASS_NAME,
  async create(ctx) {
    const judge = judgeFromContext(ctx, null);
    const mode = aggregationMode(ctx);
    const template = checkedPrompt(ctx, "judge_prompt_template", text(ctx, "judge_prompt_template", DEFAULT_TEMPLATE), ["context", "response", "question", "pass_criteria"]);
    // An explicit null turns the system message off; an absent key keeps upstream's default.
    const system = ctx.config.judge_system_message === undefined ? DEFAULT_SYSTEM : (ctx.config.judge_system_message as string | null);
    const parallel = bool(ctx, "parallel_evaluation", true);
    const yes = text(ctx, "yes_label", "[[YES]]");
    const no = text(ctx, "no_label", "[[NO]]");
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        uuid: Maybe(Type.Union([Type.String(), Type.Integer()])),
        task_id: Maybe(Type.Integer()),
        rubric: Maybe(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
        context: Maybe(Type.String()),
        metadata: Maybe(Type.Record(Type.String(), Type.Unknown())),
      },
      async verify(body) {
        const generated = answerWithoutThinking(body.response);
        const md = (body.metadata as Obj | null | undefined) ?? null;
        let context = (body.context as string | null | undefined) || "";
        if (!context && md && "messages" in md) context = contextFromMessages(md.messages as Obj[]);
        let rubric = (body.rubric as Obj[] | null | undefined) ?? [];
        if (rubric.length === 0 && md && "rubric" in md) rubric = md.rubric as Obj[];
        const evaluations = await evaluateAll(rubric, parallel, async (item) => {
          const question = pyStr(item.question ?? "");
          const passCriteria = pyStr(item.pass_criteria ?? "YES");
          const weight = typeof item.weight === "number" ? item.weight : 1.0;
          const judgePrompt = template.render({ context, response: generated, question, pass_criteria: passCriteria });
          const judgeText = await askRubricJudge(judge, judgePrompt, system);
          const verdict = multichallengeVerdict(judgeText, yes, no);
          const want = passCriteria.toUpperCase() === "NO" ? "NO" : "YES";
          return { question, pass_criteria: passCriteria, judge_prompt: judgePrompt, judge_response: judgeText, verdict, score: verdict === want ? 1.0 : 0.0, weight };
        });
        const { responses_create_params: _r, response: _p, context: _c, rubric: _b, ...rest } = body;
        return {
          ...rest,
          reward: aggregateScores(evaluations.map((e) => e.score), mode, evaluations.map((e) => e.weight)),
          context,
          generated_response: generated,
          rubric_evaluations: evaluations,
          aggregation_mode: mode,
          num_passed: evaluations.filter((e) => e.score >= 0.99).length,
          num_total: evaluations.length,
        };
      },
    });
  },
};
