/**
 * resources_servers/frontierscience_judge: one judge pass per answer. `olympiad` mode reads
 * `Judgement: YES|NO` (last wins); `research` mode reads a rubric score and passes at
 * `rubric_pass_score_threshold`. The judge is asked over chat completions when
 * `use_chat_completions_for_judge` (the shipped config does), else over /v1/responses.
 * An answer that opened `<think>` and never closed it is no answer (cut mid-reasoning).
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { highestKMetrics } from "../../verify/aggregate-metrics.ts";
import { stripThinkingTraces } from "../../verify/judge/omniscience.ts";
import { chatText } from "../../verify/judge/labels.ts";
import { frontierscienceMetrics, parseJudgement, parseRubricScore } from "../../verify/judge/frontierscience.ts";
import { lastAssistantText } from "../../verify/response-text.ts";
import { pyStrip } from "../../util/py-str.ts";
import { bool, str } from "../_support.ts";
import { judgeFromContext, loadYamlPrompt } from "../_judge.ts";
import type { BuiltinComponent } from "../registry.ts";
import { num } from "./_safety-judge.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "FrontierScienceJudgeServer";
const Maybe = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

/** Headline metrics (upstream get_key_metrics). */
export function frontierscienceKeyMetrics(am: Obj): Obj {
  const key: Obj = {};
  for (const n of ["mean/input_tokens", "mean/output_tokens"]) if (n in am) key[n] = am[n];
  Object.assign(key, highestKMetrics(am, "pass@1[avg-of-{k}]"));
  Object.assign(key, highestKMetrics(am, "pass@{k}", { excludeNames: ["no_answer"] }));
  Object.assign(key, highestKMetrics(am, "majority@{k}", { excludeNames: ["no_answer"] }));
  return key;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "frontierscience_judge",
  className: CLASS_NAME,
  async create(ctx) {
    const judge = judgeFromContext(ctx, null);
    const mode = str(ctx, "judge_mode") ?? "olympiad";
    if (mode !== "olympiad" && mode !== "research") throw new ConfigError(`${ctx.instanceName}: judge_mode must be olympiad or research, got ${JSON.stringify(mode)}`, { key: "judge_mode" });
    const threshold = num(ctx, "rubric_pass_score_threshold", 7.0);
    const maxScore = num(ctx, "rubric_max_score", 10.0);
    const prompt = await loadYamlPrompt(ctx, "resources_servers", "frontierscience_judge", "judge_prompt_path", str(ctx, "judge_prompt_path") ?? "prompts/judge.yaml", ["question", "expected_answer", "rubric", "generation"]);
    const useChat = bool(ctx, "use_chat_completions_for_judge", false);
    const params = judge.opts.createParams;

    /** The chat request upstream builds: max_tokens ← max_output_tokens (or 2048); temperature/top_p when set, else 0 / 1 in olympiad mode. */
    function chatRequest(user: string): Obj {
      const out: Obj = { messages: [{ role: "user", content: user }], max_tokens: typeof params.max_output_tokens === "number" && params.max_output_tokens ? params.max_output_tokens : 2048 };
      if (params.temperature !== undefined && params.temperature !== null) out.temperature = params.temperature;
      else if (mode === "olympiad") out.temperature = 0.0;
      if (params.top_p !== undefined && params.top_p !== null) out.top_p = params.top_p;
      else if (mode === "olympiad") out.top_p = 1.0;
      return out;
    }

    async function judgeText(user: string): Promise<string> {
      if (useChat) {
        const text = chatText((await judge.chat(chatRequest(user))).completion);
        return text ? pyStrip(text) : "";
      }
      return stripThinkingTraces(lastAssistantText((await judge.respond([{ role: "user", content: user }])).response));
    }

    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { id: Maybe(Type.Union([Type.Integer(), Type.String()])), subject: Maybe(Type.String()), question: Maybe(Type.String()), expected_answer: Maybe(Type.String()), rubric: Maybe(Type.String()) },
      async verify(body) {
        const raw = lastAssistantText(body.response);
        let generation = raw ? stripThinkingTraces(raw) : "";
        if ((raw.includes("<think>") || raw.includes("<thinking>")) && !(raw.includes("</think>") || raw.includes("</thinking>"))) generation = "";
        const question = (body.question as string | null | undefined) || "";
        const expected = (body.expected_answer as string | null | undefined) || "";
        const rubric = (body.rubric as string | null | undefined) || expected;
        const text = await judgeText(prompt.render({ question, expected_answer: expected, rubric, generation }));
        let verdict = parseJudgement(text);
        let rubricScore: number | null = null;
        let normalized: number | null = null;
        let invalid = false;
        let reward: number;
        if (mode === "research") {
          rubricScore = parseRubricScore(text, maxScore);
          if (rubricScore === null) {
            invalid = true;
            reward = verdict === "YES" ? 1.0 : 0.0;
          } else {
            normalized = Math.max(0.0, Math.min(rubricScore, maxScore)) / maxScore;
            reward = rubricScore >= threshold ? 1.0 : 0.0;
            if (verdict === null) verdict = reward ? "YES" : "NO";
          }
        } else reward = verdict === "YES" ? 1.0 : 0.0;
        const { responses_create_params: _r, response: _p, expected_answer: _e, extracted_answer: _x, ...rest } = body;
        return { ...rest, reward, extracted_answer: generation || null, expected_answer: expected, verdict, judge_output: text, rubric_score: rubricScore, rubric_score_normalized: normalized, invalid_judge_response: invalid };
      },
      computeMetrics: frontierscienceMetrics,
      keyMetrics: frontierscienceKeyMetrics,
    });
  },
};
