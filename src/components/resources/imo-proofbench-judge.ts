/**
 * resources_servers/imo_proofbench_judge: IMO-style proofs graded by an LLM judge with the problem's
 * rubric (Skills' imo-proofbench). The post-think text's last \boxed{…} is the answer: none → a prefilled
 * "No" without a judge call; equal to the gold by math_equal → a prefilled "Yes"; else one judge call
 * whose text is parsed in Skills' three-format priority. Metrics: any/symbolic/judge correctness and
 * judge-point buckets, with category/level subsets. Row fields are echoed (extra=allow).
 */
import { readFileSync } from "node:fs";
import Type from "typebox";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { highestKMetrics, passMajorityMetrics, type VerifyResponse } from "../../verify/aggregate-metrics.ts";
import { chatText } from "../../verify/judge/labels.ts";
import { mathEqual, parseJudgementVerdict, parsePoints, searchBoxedLast, stripThinkingTraces } from "../../verify/proof/proofbench.ts";
import { pyStrip } from "../../util/py-str.ts";
import { bool, str } from "../_support.ts";
import { checkedPrompt, judgeFromContext, serverFile } from "../_judge.ts";
import { echoFields } from "./_proof-support.ts";
import { mathKeyMetrics } from "./math-with-judge/index.ts";
import { subsetMetrics } from "../../verify/sample-metrics.ts";
import type { BuiltinComponent } from "../registry.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "ImoProofBenchJudgeServer";
const FIELDS = ["problem", "reference_solution", "rubric", "predicted_answer"] as const;
const MaybeStr = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const NO_ANSWER = "Reasoning: No answer was provided.\nJudgement: No";
const IDENTICAL = "Reasoning: The two answers are identical.\nJudgement: Yes";

/** The last assistant message with text: parts joined by newlines, stripped, thinking traces removed. */
export function lastAssistantAnswer(response: unknown, stripThinking = true): string {
  const output = ((response as Obj | undefined)?.output ?? []) as Obj[];
  for (let i = output.length - 1; i >= 0; i--) {
    const o = output[i]!;
    if (o?.type !== "message" || o.role !== "assistant") continue;
    const texts = Array.isArray(o.content) ? (o.content as Obj[]).map((c) => c?.text).filter((t): t is string => typeof t === "string") : typeof o.content === "string" ? [o.content] : [];
    if (texts.length > 0) {
      const full = pyStrip(texts.join("\n"));
      return stripThinking ? stripThinkingTraces(full) : full;
    }
  }
  return "";
}

const scores = (r: VerifyResponse) => {
  const sym = Number(r.symbolic_correct ?? 0) >= 0.5;
  const judge = Number(r.judge_correct ?? 0) >= 0.5;
  const pts = r.judge_points;
  return {
    any_correct: sym || judge ? 1 : 0,
    symbolic_correct: sym ? 1 : 0,
    judge_correct: judge ? 1 : 0,
    judge_score_7: pts === 7 ? 1 : 0,
    judge_score_6: pts === 6 ? 1 : 0,
    judge_score_1: pts === 1 ? 1 : 0,
    judge_score_0: pts === 0 ? 1 : 0,
  };
};

/** compute_metrics: pass/majority (vote = extracted_answer) plus category and level subsets when the first rollout has them. */
export function proofbenchComputeMetrics(tasks: VerifyResponse[][]): Record<string, unknown> {
  const m = passMajorityMetrics(tasks, scores, "extracted_answer");
  for (const field of ["category", "level"]) {
    if (tasks.length === 0 || tasks[0]!.length === 0) break;
    if (!(field in tasks[0]![0]!)) continue;
    Object.assign(m, subsetMetrics(tasks, field, scores, "extracted_answer"));
  }
  return m;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "imo_proofbench_judge",
  className: CLASS_NAME,
  async create(ctx) {
    const path = str(ctx, "judge_prompt_path") ?? "prompts/judge.yaml";
    const abs = await serverFile(ctx, "resources_servers", "imo_proofbench_judge", path, "judge_prompt_path");
    const doc = parseYaml(readFileSync(abs, "utf8")) as Obj | null;
    if (!doc || typeof doc.user !== "string") throw new ConfigError(`${ctx.instanceName}: judge_prompt_path ${abs} has no 'user' key`, { key: "judge_prompt_path", hint: "the judge prompt file is YAML with the template under `user:`" });
    const template = checkedPrompt(ctx, `judge_prompt_path (${abs})`, doc.user, FIELDS);
    const useChat = bool(ctx, "use_chat_completions_for_judge", false);
    const judge = judgeFromContext(ctx, null);

    const askJudge = async (prompt: string): Promise<string> => {
      if (useChat) {
        const { completion } = await judge.chat(judge.chatParams([{ role: "user", content: prompt }], { max_tokens: 4096, temperature: 0.0, top_p: 1.0 }));
        const text = chatText(completion);
        return text ? pyStrip(text) : "";
      }
      const call = await judge.respond([{ role: "user", content: prompt }]);
      return lastAssistantAnswer(call.response);
    };

    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: { problem_id: MaybeStr, problem: MaybeStr, reference_solution: MaybeStr, rubric: MaybeStr, category: MaybeStr, level: MaybeStr, expected_answer: MaybeStr, source: MaybeStr },
      computeMetrics: proofbenchComputeMetrics,
      keyMetrics: mathKeyMetrics,
      async verify(body) {
        const echo = echoFields(body);
        const text = lastAssistantAnswer(body.response);
        const extracted = text ? searchBoxedLast(text) : null;
        const base = { judge_points: null, no_judge_score: 0.0 };
        if (!extracted) return { ...echo, reward: 0.0, extracted_answer: "", judge_output: NO_ANSWER, ...base, judge_correct: 0.0, symbolic_correct: 0.0, any_correct: 0.0 };
        if (mathEqual(body.expected_answer, extracted)) {
          return { ...echo, reward: 1.0, extracted_answer: extracted, judge_output: IDENTICAL, ...base, judge_correct: 1.0, symbolic_correct: 1.0, any_correct: 1.0 };
        }
        const s = (v: unknown) => (typeof v === "string" ? v : "");
        const judgeText = await askJudge(template.render({ problem: s(body.problem), reference_solution: s(body.reference_solution), rubric: s(body.rubric), predicted_answer: extracted }));
        const verdict = parseJudgementVerdict(judgeText);
        const ok = verdict === true;
        return {
          ...echo,
          reward: ok ? 1.0 : 0.0,
          extracted_answer: extracted,
          judge_output: judgeText,
          judge_points: parsePoints(judgeText),
          judge_correct: ok ? 1.0 : 0.0,
          symbolic_correct: 0.0,
          any_correct: ok ? 1.0 : 0.0,
          no_judge_score: verdict === null ? 1.0 : 0.0,
        };
      },
    });
  },
};
