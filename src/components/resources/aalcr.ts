/**
 * resources_servers/aalcr: AA-LCR long-context document QA. A judge answers exactly CORRECT or
 * INCORRECT (anything else is an invalid judge response scoring 0); the reward is also reported
 * under the row's input-token band. The judge call is recorded (`judge_responses_create_params`,
 * `judge_response`) so scripted_model can replay it.
 */
import Type from "typebox";
import { HttpError } from "../../runtime/http/http-types.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { pyStrip } from "../../util/py-str.ts";
import { JudgeError } from "../../verify/judge/judge-error.ts";
import { outputText } from "../../verify/response-text.ts";
import { obj } from "../_support.ts";
import { judgeFromContext } from "../_judge.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "AalcrResourcesServer";
const BANDS: Record<string, string> = { "<80k": "reward_lt_80k", "80k-100k": "reward_80k_100k", "100k-110k": "reward_100k_110k", "110k-128k": "reward_110k_128k", "128k+": "reward_128k_plus" };
const FIELDS = ["document_category", "document_set_id", "question_id", "question", "answer", "data_source_filenames", "data_source_urls", "input_tokens", "input_tokens_band"] as const;

/** AA-LCR's judge prompt (upstream writes it inline). */
export function aalcrPrompt(question: string, answer: string, candidate: string): string {
  return `Assess whether the following CANDIDATE ANSWER is CORRECT or INCORRECT.
For the CANDIDATE ANSWER to be correct, it must be consistent with the OFFICIAL ANSWER.

The question, for reference only: ${question}
The OFFICIAL ANSWER: ${answer}
CANDIDATE ANSWER TO ASSESS: ${candidate}

Reply only with CORRECT or INCORRECT.`;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "aalcr",
  className: CLASS_NAME,
  async create(ctx) {
    // aalcr has no judge_responses_create_params: its overrides are merged over {input} per call.
    const overrides = obj(ctx, "judge_responses_create_params_overrides") ?? {};
    const judge = judgeFromContext({ ...ctx, config: { judge_responses_create_params: {}, ...ctx.config } }, null);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        document_category: Type.String(), document_set_id: Type.String(), question_id: Type.Integer(), question: Type.String(), answer: Type.String(),
        data_source_filenames: Type.String(), data_source_urls: Type.String(), input_tokens: Type.Integer(), input_tokens_band: Type.String(),
      },
      async verify(body) {
        const band = BANDS[body.input_tokens_band as string];
        if (!band) throw new HttpError(422, `input_tokens_band ${JSON.stringify(body.input_tokens_band)} is not one of ${Object.keys(BANDS).join(", ")}`);
        const echo: Record<string, unknown> = {};
        for (const f of FIELDS) echo[f] = body[f];
        // Upstream's response model carries every band (null but the row's own).
        for (const k of Object.values(BANDS)) echo[k] = null;
        const candidate = pyStrip(outputText(body.response));
        if (!candidate) return { ...echo, invalid_model_response: true, invalid_judge_response: null, judge_responses_create_params: null, judge_response: null, reward: 0.0, [band]: 0.0 };
        const params = { input: [{ role: "user", content: aalcrPrompt(body.question as string, body.answer as string, candidate) }], ...overrides };
        const call = await judge.respondWith(params);
        const text = pyStrip(outputText(call.response));
        if (!text) throw new JudgeError("empty judge response");
        const reward = text === "CORRECT" ? 1.0 : 0.0;
        return { ...echo, reward, invalid_model_response: false, invalid_judge_response: text !== "CORRECT" && text !== "INCORRECT", judge_responses_create_params: params, judge_response: call.response, [band]: reward };
      },
    });
  },
};
