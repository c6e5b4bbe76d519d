/**
 * resources_servers/abstention: reward abstaining (`\boxed{[IDK]}`) over hallucinating. An answer
 * equal to the abstention token (SQuAD-normalised) earns `abstention_reward` without a judge call;
 * otherwise the Omniscience grader judges it: A correct, C not attempted (abstention), else incorrect.
 * The default `judge_prompt_template` is upstream's, shipped verbatim in
 * prompts/default_judge_prompt.txt (upstream keeps it inline in app.py).
 */
import { readFileSync } from "node:fs";
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { pyRegex } from "../../util/py-regex.ts";
import { pySplit, pyStrip } from "../../util/py-str.ts";
import { lastBoxedInner } from "../../verify/choices/boxed.ts";
import { judgeMessages } from "../../verify/judge/judge-client.ts";
import { JudgeError } from "../../verify/judge/judge-error.ts";
import { stripThinkingTraces } from "../../verify/judge/omniscience.ts";
import { lastAssistantText } from "../../verify/response-text.ts";
import { str } from "../_support.ts";
import { checkedPrompt, judgeFromContext, serverFile } from "../_judge.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "AbstentionServer";
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
const ARTICLES = pyRegex("\\b(a|an|the)\\b");
const PUNCT = pyRegex("[^\\w\\s]");

/** SQuAD-style normalisation: lower-case, articles and punctuation removed, whitespace collapsed. */
export function normalizeAnswer(s: string): string {
  let t = pyStrip(s.toLowerCase());
  t = t.replace(ARTICLES.re, " ").replace(PUNCT.re, "");
  return pySplit(t).join(" ");
}

/** The grade of the Omniscience grader with three letters: exact, last line, first found, else B. */
export function parseAbcStrict(judgeText: string): "A" | "B" | "C" {
  const cleaned = pyStrip(judgeText);
  if (cleaned === "A" || cleaned === "B" || cleaned === "C") return cleaned;
  const nl = cleaned.lastIndexOf("\n");
  const last = pyStrip(nl < 0 ? cleaned : cleaned.slice(nl + 1));
  if (last === "A" || last === "B" || last === "C") return last;
  for (const l of ["A", "B", "C"] as const) if (cleaned.includes(l)) return l;
  return "B";
}

function numKey(ctx: ComponentContext, key: string, fallback: number): number {
  const v = ctx.config[key];
  return v === undefined || v === null ? fallback : Number(v);
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "abstention",
  className: CLASS_NAME,
  async create(ctx) {
    const judge = judgeFromContext(ctx, null);
    const inline = str(ctx, "judge_prompt_template");
    const text = inline ?? readFileSync(await serverFile(ctx, "resources_servers", "abstention", "prompts/default_judge_prompt.txt", "judge_prompt_template"), "utf8");
    const prompt = checkedPrompt(ctx, "judge_prompt_template", text, ["question", "target", "predicted_answer"]);
    const abstainReward = numKey(ctx, "abstention_reward", 0.5);
    const token = str(ctx, "abstention_token") ?? "[IDK]";
    const correctReward = numKey(ctx, "correct_reward", 1.0);
    const incorrectReward = numKey(ctx, "incorrect_reward", 0.0);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { id: Nullable(Type.Union([Type.Integer(), Type.String()])), question: Nullable(Type.String()), answer: Nullable(Type.String()) },
      async verify(body) {
        const output = stripThinkingTraces(lastAssistantText(body.response));
        const extracted = lastBoxedInner(output) ?? output;
        const truth = (body.answer as string | null | undefined) || "";
        let verdict: "correct" | "abstain" | "incorrect";
        let reward: number;
        let judgeText: string | null = null;
        if (normalizeAnswer(extracted) === normalizeAnswer(token)) {
          verdict = "abstain";
          reward = abstainReward;
        } else {
          const call = await judge.respond(judgeMessages(prompt.render({ question: (body.question as string | null | undefined) || "", target: truth, predicted_answer: extracted })));
          judgeText = stripThinkingTraces(lastAssistantText(call.response));
          if (!judgeText) throw new JudgeError("empty judge response");
          const g = parseAbcStrict(judgeText);
          [verdict, reward] = g === "A" ? ["correct", correctReward] : g === "C" ? ["abstain", abstainReward] : ["incorrect", incorrectReward];
        }
        const { responses_create_params: _r, response: _p, ...rest } = body;
        const is = (v: string) => (verdict === v ? 1.0 : 0.0);
        return { ...rest, reward, extracted_answer: extracted, ground_truth: truth, verdict, judge_output: judgeText, is_correct: is("correct"), is_abstain: is("abstain"), is_incorrect: is("incorrect"), omniscience_index: is("correct") - is("incorrect") };
      },
    });
  },
};
