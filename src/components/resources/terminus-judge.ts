/**
 * resources_servers/terminus_judge: one terminal next step, scored against the gold step. The
 * answer (after `</think>`) and the gold must be JSON objects valid under the row's harness schema
 * (metadata.harness: terminus_1 | terminus_2), and the task-complete flag must agree; then keystroke
 * similarity (fast path) and/or an LLM judge (`[[A=B]]` / `[[A!=B]]`, optionally asked again swapped)
 * decide. Every outcome carries a `failure_reason`; judge calls are recorded in `judge_evaluations`.
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { JudgeClient, judgeMessages, type JudgeEvaluation } from "../../verify/judge/judge-client.ts";
import { validateAgainstSchema } from "../../verify/structured/structured-outputs.ts";
import { commandSimilarity, taskCompleteOk, TERMINUS_SCHEMAS, terminusVerdict } from "../../verify/rules/terminus.ts";
import { pyStrip } from "../../util/py-str.ts";
import { replaceLoneSurrogates, replaceLoneSurrogatesDeep } from "../../util/py-surrogates.ts";
import { bool, clientsFor, obj, refName, str } from "../_support.ts";
import { loadPrompt } from "../_judge.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { numberKey } from "./_proof-verifier.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "TerminusJudgeResourcesServer";
const IMPL = "terminus_judge";

/** Upstream's FailureCode values. */
const FAIL = {
  none: "none",
  expectedInvalid: "expected_answer_invalid",
  outputInvalid: "model_output_invalid",
  schema: "schema_check_failed",
  taskComplete: "task_complete_check_failed",
  similarity: "string_similarity_below_threshold",
  harness: "unknown_harness",
  notEquivalent: "judge_not_equivalent",
  parsing: "judge_parsing_failed",
  swapParsing: "judge_swap_parsing_failed",
} as const;

/** Every assistant message's text (string content or each part's text), joined by newlines and stripped. */
export function assistantText(response: unknown): string {
  const texts: string[] = [];
  for (const o of ((response as Obj | null)?.output ?? []) as Obj[]) {
    if (o?.type !== "message" || o.role !== "assistant") continue;
    if (typeof o.content === "string") texts.push(o.content);
    else if (Array.isArray(o.content)) for (const c of o.content as Obj[]) if (typeof c?.text === "string") texts.push(c.text);
  }
  return pyStrip(texts.join("\n"));
}

/** The judge's text: the last output item's last content part, when that item is a message. */
function judgeText(response: Obj): string {
  const out = response.output as Obj[] | undefined;
  const last = Array.isArray(out) ? out[out.length - 1] : undefined;
  if (last?.type !== "message" || !Array.isArray(last.content)) return "";
  const part = (last.content as Obj[])[last.content.length - 1];
  return typeof part?.text === "string" ? part.text : "";
}

/** A JSON object, or null when the text is not JSON or not an object (Python json.loads + isinstance dict). */
function jsonObject(text: string): Obj | null | "invalid" {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return "invalid";
  }
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : null;
}

interface Settings {
  judge: JudgeClient | null;
  template: { render(v: Record<string, string>): string } | null;
  system: string | undefined;
  equal: string;
  notEqual: string;
  swap: boolean;
  rewardIfSwapFails: number;
  useSimilarity: boolean;
  threshold: number;
  useJudge: boolean;
}

async function settings(ctx: ComponentContext): Promise<Settings> {
  const useJudge = bool(ctx, "enable_llm_judge", true);
  let judge: JudgeClient | null = null;
  let template: Settings["template"] = null;
  if (useJudge) {
    if (!obj(ctx, "judge_model_server")) throw new ConfigError(`${ctx.instanceName}: judge_model_server is required when enable_llm_judge is True`, { key: "judge_model_server" });
    const createParams = obj(ctx, "judge_responses_create_params");
    if (!createParams) throw new ConfigError(`${ctx.instanceName}: judge_responses_create_params is required when enable_llm_judge is True`, { key: "judge_responses_create_params" });
    const raw = ctx.config.judge_endpoint_max_concurrency;
    const max = raw === undefined ? 64 : raw === null ? null : Number(raw);
    if (max !== null && (!Number.isInteger(max) || max <= 0)) throw new ConfigError(`${ctx.instanceName}: judge_endpoint_max_concurrency must be a positive integer or null`, { key: "judge_endpoint_max_concurrency" });
    judge = new JudgeClient({ transport: clientsFor(ctx).inner, server: refName(ctx, "judge_model_server"), createParams, maxConcurrency: max });
    const path = str(ctx, "judge_prompt_template_fpath") ?? "prompt_templates/terminus_prompt.txt";
    template = await loadPrompt(ctx, "resources_servers", IMPL, "judge_prompt_template_fpath", path, ["expected_answer", "generated_answer"]);
  }
  return {
    judge,
    template,
    system: str(ctx, "judge_system_message"),
    equal: str(ctx, "judge_equal_label") ?? "[[A=B]]",
    notEqual: str(ctx, "judge_not_equal_label") ?? "[[A!=B]]",
    swap: bool(ctx, "check_twice_swap", false),
    rewardIfSwapFails: numberKey(ctx, "reward_if_swap_fails", 0.0),
    useSimilarity: bool(ctx, "enable_string_similarity", false),
    threshold: numberKey(ctx, "string_similarity_threshold", 0.95),
    useJudge,
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: IMPL,
  className: CLASS_NAME,
  async create(ctx) {
    const s = await settings(ctx);

    /** One judge call: is `generated` equivalent to `expected`? The call is recorded with its verdict label. */
    const ask = async (expected: string, generated: string): Promise<[boolean, JudgeEvaluation & { verdict_label: string | null }]> => {
      const call = await s.judge!.respond(judgeMessages(s.template!.render({ expected_answer: expected, generated_answer: generated }), s.system));
      const text = judgeText(call.response);
      const [equal, label] = text ? terminusVerdict(text, s.equal, s.notEqual) : [false, null];
      return [equal, { ...call, verdict_label: label }];
    };

    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: {
        uuid: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Null()])),
        expected_answer: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
        threshold: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
      },
      async verify(body) {
        const metadata = (body.metadata as Obj | null | undefined) ?? null;
        const expectedRaw = body.expected_answer ? String(body.expected_answer) : metadata?.expected_answer != null ? String(metadata.expected_answer) : null;
        const threshold = typeof body.threshold === "number" ? body.threshold : null;
        const r = {
          reward: 0.0,
          failure_reason: FAIL.none as string,
          schema_check_passed: null as boolean | null,
          task_complete_check_passed: null as boolean | null,
          string_similarity_passed: null as boolean | null,
          judge_passed: null as boolean | null,
          similarity_score: null as number | null,
          parsed_output: null as Obj | null,
          judge_evaluations: [] as Obj[],
        };
        const done = (expected: string, output: string) => ({
          ...r,
          uuid: body.uuid ?? null,
          expected_answer: replaceLoneSurrogates(expected),
          model_output: replaceLoneSurrogates(output),
          parsed_output: replaceLoneSurrogatesDeep(r.parsed_output),
          judge_evaluations: replaceLoneSurrogatesDeep(r.judge_evaluations),
          metadata: replaceLoneSurrogatesDeep(metadata),
          threshold,
        });
        if (!expectedRaw) return { ...done("", ""), failure_reason: FAIL.expectedInvalid };
        const generated = assistantText(body.response);
        if (!generated) return { ...done(expectedRaw, ""), failure_reason: FAIL.outputInvalid };
        const think = generated.lastIndexOf("</think>");
        const text = think >= 0 ? pyStrip(generated.slice(think + "</think>".length)) : generated;
        const fail = (reason: string) => ({ ...done(expectedRaw, text), failure_reason: reason });

        const gold = jsonObject(expectedRaw);
        if (gold === "invalid" || gold === null) return fail(FAIL.expectedInvalid);
        const pred = jsonObject(text);
        if (pred === "invalid" || pred === null) return fail(FAIL.outputInvalid);
        r.parsed_output = pred;
        const harness = metadata?.harness;
        const schema = typeof harness === "string" && Object.hasOwn(TERMINUS_SCHEMAS, harness) ? TERMINUS_SCHEMAS[harness]! : null;
        if (!schema) return fail(FAIL.harness);
        if (validateAgainstSchema(gold, schema) !== null) return fail(FAIL.expectedInvalid);
        r.schema_check_passed = validateAgainstSchema(pred, schema) === null;
        if (!r.schema_check_passed) return fail(FAIL.schema);
        r.task_complete_check_passed = taskCompleteOk(pred, gold);
        if (!r.task_complete_check_passed) return fail(FAIL.taskComplete);

        let needJudge = s.useJudge;
        if (s.useSimilarity) {
          r.similarity_score = commandSimilarity(gold, pred);
          r.string_similarity_passed = r.similarity_score >= (threshold ?? s.threshold);
          if (r.string_similarity_passed) {
            r.reward = 1.0;
            needJudge = false;
          } else if (!s.useJudge) r.failure_reason = FAIL.similarity;
        }
        if (needJudge) {
          const [firstEqual, first] = await ask(expectedRaw, text);
          r.judge_evaluations.push(first);
          if (first.verdict_label === null) r.failure_reason = FAIL.parsing;
          else if (!firstEqual) {
            r.judge_passed = false;
            r.failure_reason = FAIL.notEquivalent;
          } else if (!s.swap) {
            r.judge_passed = true;
            r.reward = 1.0;
          } else {
            const [secondEqual, second] = await ask(text, expectedRaw);
            r.judge_evaluations.push(second);
            if (second.verdict_label === null) r.failure_reason = FAIL.swapParsing;
            else if (secondEqual) {
              r.judge_passed = true;
              r.reward = 1.0;
            } else {
              r.judge_passed = false;
              r.reward = s.rewardIfSwapFails;
              r.failure_reason = FAIL.notEquivalent;
            }
          }
        }
        if (!s.useSimilarity && !s.useJudge) r.reward = 1.0;
        return done(expectedRaw, text);
      },
    });
  },
};
