/**
 * resources_servers/equivalence_llm_judge (components.md §3.7): an LLM judge decides whether the
 * candidate answer equals the row's `expected_answer` (`[[A=B]]` / `[[A!=B]]`, first label wins),
 * with the optional swap check, per-record regex extraction and full-generation rescue. Every
 * judge call is recorded in `judge_evaluations` so `gym eval reverify` can replay it through
 * scripted_model (D26); a failed judge call becomes a `judge_failed` row (servers/resources.ts).
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { HttpError } from "../../runtime/http/http-types.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { PyRegexError, type PyRegex } from "../../util/py-regex.ts";
import { pyLen } from "../../util/py-str.ts";
import { assistantText, extractionRegex, questionText } from "../../verify/judge/extract.ts";
import { judgeMessages, type JudgeClient, type JudgeEvaluation } from "../../verify/judge/judge-client.ts";
import type { JudgePrompt } from "../../verify/judge/prompt.ts";
import { bool, str } from "../_support.ts";
import { judgeFromContext, loadPrompt } from "../_judge.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "LLMJudgeResourcesServer";
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

/** The server's settings (upstream's config keys with the class defaults). */
export interface EquivalenceSettings {
  judge: JudgeClient;
  prompt: JudgePrompt;
  systemMessage: string | null;
  equalLabel: string;
  notEqualLabel: string;
  questionRegex?: PyRegex;
  responseRegex?: PyRegex;
  extractionFailure: string;
  checkTwiceSwap: boolean;
  rewardIfSwapFails: number;
  usePerRecordRegex: boolean;
  extractionLengthThreshold: number | null;
  checkFullGenerationOnFail: boolean;
  rewardIfFullGenerationSucceeds: number;
}

/** Upstream's verdict rule: the earlier label wins; neither (or a non-message answer) is "not equal" with no label. */
export function equivalenceVerdict(response: Obj, equal: string, notEqual: string): string | null {
  const output = response.output as Obj[] | undefined;
  const last = Array.isArray(output) && output.length > 0 ? output[output.length - 1] : undefined;
  if (!last || last.type !== "message" || !Array.isArray(last.content) || last.content.length === 0) return null;
  const part = last.content[last.content.length - 1] as Obj;
  const text = typeof part?.text === "string" ? part.text : "";
  const eq = text.indexOf(equal);
  const neq = text.indexOf(notEqual);
  if (eq < 0 && neq < 0) return null;
  return eq >= 0 && (neq < 0 || eq < neq) ? equal : notEqual;
}

async function evaluate(s: EquivalenceSettings, question: string, expected: string, generated: string): Promise<[boolean, JudgeEvaluation]> {
  const user = s.prompt.render({ question, expected_answer: expected, generated_answer: generated });
  const call = await s.judge.respond(judgeMessages(user, s.systemMessage));
  const verdict = equivalenceVerdict(call.response, s.equalLabel, s.notEqualLabel);
  return [verdict === s.equalLabel, { ...call, verdict_label: verdict }];
}

function perRecordRegex(body: Obj): string | undefined {
  const tm = body.template_metadata as Obj | undefined;
  const v = tm && typeof tm === "object" ? tm.output_regex : undefined;
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") throw new HttpError(422, `template_metadata.output_regex must be a string for equivalence_llm_judge, got ${JSON.stringify(v)}`);
  return v;
}

function rowRegex(pattern: string): PyRegex | undefined {
  try {
    return extractionRegex(pattern);
  } catch (e) {
    if (e instanceof PyRegexError) throw new HttpError(422, `template_metadata.output_regex: ${e.message}`);
    throw e;
  }
}

/** Grade one rollout: `{reward, expected_answer, judge_evaluations}`. */
export async function verifyEquivalence(s: EquivalenceSettings, body: Obj): Promise<Obj> {
  const md = body.metadata as Obj | undefined;
  const expected = body.expected_answer ? String(body.expected_answer) : md?.expected_answer !== undefined && md?.expected_answer !== null ? String(md.expected_answer) : "";
  const question = questionText((body.responses_create_params as Obj).input, s.questionRegex);
  const recordRegex = s.usePerRecordRegex ? perRecordRegex(body) : undefined;
  const longAnswer = s.extractionLengthThreshold !== null && pyLen(expected) > s.extractionLengthThreshold;
  // A per-record regex replaces the server's; a long expected answer means the full generation is judged.
  const regex = recordRegex !== undefined ? (longAnswer ? undefined : rowRegex(recordRegex)) : s.responseRegex;
  const skipSecond = recordRegex !== undefined && longAnswer;
  const generated = assistantText(body.response, regex, s.extractionFailure);
  const done = (reward: number, evaluations: JudgeEvaluation[]) => ({ reward, expected_answer: expected, judge_evaluations: evaluations });

  const [equal, first] = await evaluate(s, question, expected, generated);
  if (!equal) {
    if (skipSecond || !(s.checkFullGenerationOnFail && recordRegex !== undefined)) return done(0.0, [first]);
    const full = assistantText(body.response, undefined, s.extractionFailure);
    const [rescued, second] = await evaluate(s, question, expected, full);
    return done(rescued ? s.rewardIfFullGenerationSucceeds : 0.0, [first, second]);
  }
  if (!s.checkTwiceSwap || skipSecond) return done(1.0, [first]);
  const [swapped, second] = await evaluate(s, question, generated, expected);
  return done(swapped ? 1.0 : s.rewardIfSwapFails, [first, second]);
}

function num(ctx: ComponentContext, key: string, fallback: number | null): number | null {
  const v = ctx.config[key];
  if (v === undefined) return fallback;
  if (v === null) return null;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new ConfigError(`${ctx.instanceName}: ${key} must be a number, got ${JSON.stringify(v)}`, { key });
  return n;
}

function serverRegex(ctx: ComponentContext, key: string): PyRegex | undefined {
  const p = str(ctx, key);
  if (p === undefined) return undefined;
  try {
    return extractionRegex(p);
  } catch (e) {
    throw new ConfigError(`${ctx.instanceName}: ${key}: ${(e as Error).message}`, { key, hint: "rewrite the pattern without that feature" });
  }
}

/** Read and check the settings at start (a bad template or regex is a config error now, not mid-run). */
export async function equivalenceSettings(ctx: ComponentContext, implementation = "equivalence_llm_judge"): Promise<EquivalenceSettings> {
  const templatePath = str(ctx, "judge_prompt_template_fpath") ?? "prompt_templates/equivalence_llm_judge.txt";
  return {
    judge: judgeFromContext(ctx, 64),
    prompt: await loadPrompt(ctx, "resources_servers", implementation, "judge_prompt_template_fpath", templatePath, ["question", "expected_answer", "generated_answer"]),
    systemMessage: str(ctx, "judge_system_message") ?? null,
    equalLabel: str(ctx, "judge_equal_label") ?? "[[A=B]]",
    notEqualLabel: str(ctx, "judge_not_equal_label") ?? "[[A!=B]]",
    questionRegex: serverRegex(ctx, "question_extract_regex"),
    responseRegex: serverRegex(ctx, "response_extract_regex"),
    extractionFailure: typeof ctx.config.msg_extraction_failure === "string" ? ctx.config.msg_extraction_failure : "[NO VALID ANSWER EXTRACTED]",
    checkTwiceSwap: bool(ctx, "check_twice_swap", false),
    rewardIfSwapFails: num(ctx, "reward_if_swap_fails", 0.0) ?? 0.0,
    usePerRecordRegex: bool(ctx, "use_per_record_regex", true),
    extractionLengthThreshold: num(ctx, "extraction_length_threshold", 120),
    checkFullGenerationOnFail: bool(ctx, "check_full_generation_on_fail", true),
    rewardIfFullGenerationSucceeds: num(ctx, "reward_if_full_generation_succeeds", 0.5) ?? 0.5,
  };
}

/** Declared fields of upstream's LLMJudgeVerifyRequest (extra fields allowed). */
export const EQUIVALENCE_VERIFY_FIELDS = {
  uuid: Nullable(Type.Union([Type.String(), Type.Integer()])),
  expected_answer: Nullable(Type.String()),
  options: Nullable(Type.Array(Type.Record(Type.String(), Type.String()))),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
};

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "equivalence_llm_judge",
  className: CLASS_NAME,
  async create(ctx) {
    const settings = await equivalenceSettings(ctx);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: EQUIVALENCE_VERIFY_FIELDS,
      verify: (body) => verifyEquivalence(settings, body),
    });
  },
};
