/**
 * resources_servers/inverse_if: single-turn instruction following where each row carries its own
 * judge template and system prompt (config defaults otherwise); one judge call per rubric
 * criterion, a JSON `{"result": "PASS"|"FAIL"}` verdict, scores aggregated (`aggregation_mode`).
 * A row's template with a placeholder the server does not fill is that row's error.
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { answerWithoutThinking } from "../../verify/judge/assistant-text.ts";
import { JudgePrompt, JudgePromptError } from "../../verify/judge/prompt.ts";
import { aggregateScores, inverseIfVerdict } from "../../verify/judge/rubric.ts";
import { pyStr } from "../../util/py-str-of.ts";
import { bool } from "../_support.ts";
import { checkedPrompt, judgeFromContext } from "../_judge.ts";
import type { BuiltinComponent } from "../registry.ts";
import { text } from "./_safety-judge.ts";
import { aggregationMode, askRubricJudge, evaluateAll } from "./_rubric-judge.ts";
import { ConfigError } from "../../errors.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "InverseIFServer";
const Maybe = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
const FIELDS = ["prompt", "model_response", "standard_response", "criteria"];

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "inverse_if",
  className: CLASS_NAME,
  async create(ctx) {
    const judge = judgeFromContext(ctx, null);
    const mode = aggregationMode(ctx);
    for (const key of ["default_judge_prompt_template", "default_judge_system_prompt"]) {
      if (typeof ctx.config[key] !== "string") throw new ConfigError(`${ctx.instanceName}: ${key} is not set`, { key, hint: "upstream's configs/inverse_if.yaml has both defaults" });
    }
    const defaultTemplate = checkedPrompt(ctx, "default_judge_prompt_template", text(ctx, "default_judge_prompt_template", ""), FIELDS);
    const defaultSystem = text(ctx, "default_judge_system_prompt", "");
    const parallel = bool(ctx, "parallel_evaluation", true);
    const rowTemplates = new Map<string, JudgePrompt>();
    const rowTemplate = (t: string): JudgePrompt => {
      let p = rowTemplates.get(t);
      if (!p) {
        try {
          p = new JudgePrompt(t, FIELDS);
        } catch (e) {
          if (e instanceof JudgePromptError) throw new Error(`the row's judge_prompt_template cannot be used: ${e.message}`);
          throw e;
        }
        if (rowTemplates.size > 1000) rowTemplates.clear();
        rowTemplates.set(t, p);
      }
      return p;
    };
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        uuid: Maybe(Type.Union([Type.String(), Type.Integer()])),
        task_id: Maybe(Type.Integer()),
        prompt: Maybe(Type.String()),
        rubric: Maybe(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
        reference_response: Maybe(Type.String()),
        judge_prompt_template: Maybe(Type.String()),
        judge_system_prompt: Maybe(Type.String()),
        metadata: Maybe(Type.Record(Type.String(), Type.Unknown())),
      },
      async verify(body) {
        const generated = answerWithoutThinking(body.response);
        let prompt = (body.prompt as string | null | undefined) || "";
        let reference = (body.reference_response as string | null | undefined) || "";
        let rubric = (body.rubric as Obj[] | null | undefined) ?? [];
        const template = body.judge_prompt_template ? rowTemplate(body.judge_prompt_template as string) : defaultTemplate;
        const system = (body.judge_system_prompt as string | null | undefined) || defaultSystem;
        const md = body.metadata as Obj | null | undefined;
        if (md && Object.keys(md).length > 0) {
          if (!prompt) prompt = pyStr(md.prompt ?? "");
          if (!reference) reference = pyStr(md.reference_response ?? "");
          if (rubric.length === 0) rubric = (md.rubric as Obj[] | undefined) ?? [];
        }
        const evaluations = await evaluateAll(rubric, parallel, async (item) => {
          const criterionId = pyStr(item.id ?? "");
          const criteria = pyStr(item.criteria ?? "");
          const judgePrompt = template.render({ prompt, model_response: generated, standard_response: reference, criteria });
          const judgeText = await askRubricJudge(judge, judgePrompt, system);
          const [verdict, explanation] = inverseIfVerdict(judgeText);
          return { criterion_id: criterionId, criteria, judge_prompt: judgePrompt, judge_response: judgeText, verdict, explanation, score: verdict === "PASS" ? 1.0 : 0.0 };
        });
        const { responses_create_params: _r, response: _p, prompt: _a, rubric: _b, reference_response: _c, judge_prompt_template: _d, judge_system_prompt: _e, ...rest } = body;
        return {
          ...rest,
          reward: aggregateScores(evaluations.map((e) => e.score), mode),
          prompt,
          generated_response: generated,
          reference_response: reference,
          rubric_evaluations: evaluations,
          aggregation_mode: mode,
          num_passed: evaluations.filter((e) => e.score >= 0.99).length,
          num_total: evaluations.length,
        };
      },
    });
  },
};
