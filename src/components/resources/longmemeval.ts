/**
 * resources_servers/longmemeval: long-term-memory QA. The row's `verifier_metadata` holds the
 * question, gold answer and type; the judge gets the type's rubric and the row scores 1 when its
 * answer contains "yes". An empty generation, bad metadata or an unknown question type score 0
 * without a judge call (the latter two marked in `judge_error`); a failed judge call is a
 * `judge_failed` row (upstream's `judge_call_failed`, kept out of the denominator there too).
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { isBadMetadata, isTruthy, LME_ERRORS, longmemevalKeyMetrics, longmemevalMetrics, longmemevalPrompt, longmemevalResponseText, metaStr, stripThink } from "../../verify/judge/longmemeval.ts";
import { pyStrip } from "../../util/py-str.ts";
import { judgeFromContext } from "../_judge.ts";
import type { BuiltinComponent } from "../registry.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "LongMemEvalResourcesServer";
const OWN = ["reward", "question_id", "question_type", "abstention", "judge_label", "judge_raw", "judge_error", "judge_error_detail", "empty_response", "generation"];

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "longmemeval",
  className: CLASS_NAME,
  async create(ctx) {
    const judge = judgeFromContext(ctx, 32);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { verifier_metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])) },
      async verify(body) {
        const raw = body.verifier_metadata;
        const meta = (raw && typeof raw === "object" && !Array.isArray(raw) ? raw : {}) as Obj;
        const questionId = metaStr(meta, "question_id");
        const questionType = metaStr(meta, "question_type");
        const abstention = isTruthy(meta.abstention) || questionId.includes("_abs");
        const response = pyStrip(stripThink(longmemevalResponseText(body.response)));
        const emptyResponse = !response;
        let judgeRaw = "";
        let judgeError: string | null = null;
        let label = false;
        const bad = isBadMetadata(raw);
        const prompt = bad ? null : longmemevalPrompt(questionType, metaStr(meta, "question"), metaStr(meta, "answer"), response, abstention);
        if (bad) judgeError = LME_ERRORS.badMetadata;
        else if (prompt === null) judgeError = LME_ERRORS.unknownQuestionType;
        else if (!emptyResponse) {
          const call = await judge.respond([{ role: "user", content: prompt }]);
          judgeRaw = pyStrip(stripThink(longmemevalResponseText(call.response)));
          if (!judgeRaw) judgeError = LME_ERRORS.emptyJudgeOutput;
          else label = judgeRaw.toLowerCase().includes("yes");
        }
        const echo: Obj = {};
        for (const [k, v] of Object.entries(body)) if (k !== "responses_create_params" && k !== "response" && !OWN.includes(k)) echo[k] = v;
        return {
          ...echo,
          reward: label ? 1.0 : 0.0,
          question_id: questionId,
          question_type: questionType,
          abstention,
          judge_label: label,
          judge_raw: judgeRaw,
          judge_error: judgeError,
          judge_error_detail: "",
          empty_response: emptyResponse,
          // Python slices code points, not UTF-16 units.
          generation: Array.from(response).slice(0, 500).join(""),
        };
      },
      computeMetrics: longmemevalMetrics,
      keyMetrics: longmemevalKeyMetrics,
    });
  },
};
