/**
 * LongMemEval grading (upstream `longmemeval`, after LongMemEval's evaluate_qa.py): a rubric per
 * question type (the abstention rubric for `_abs` rows), a judge answer that contains "yes", and
 * metrics whose denominator leaves out rows with an unknown question type.
 */
import { pyRegex } from "../../util/py-regex.ts";
import { pyStr as pyStrOf } from "../../util/py-str-of.ts";
import { pyStrip } from "../../util/py-str.ts";
import type { VerifyResponse } from "../aggregate-metrics.ts";
import { outputText } from "../response-text.ts";

const HEAD = "I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no.";
const CONTAIN_TAIL = " If the response is equivalent to the correct answer or contains all the intermediate steps to get the correct answer, you should also answer yes. If the response only contains a subset of the information required by the answer, answer no.";
const QA = "\n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no only.";

const CONTAIN = `${HEAD}${CONTAIN_TAIL} ${QA}`;
const TEMPORAL = `${HEAD}${CONTAIN_TAIL} In addition, do not penalize off-by-one errors for the number of days. If the question asks for the number of days/weeks/months, etc., and the model makes off-by-one errors (e.g., predicting 19 days when the answer is 18), the model's response is still correct. ${QA}`;
const KNOWLEDGE_UPDATE = `${HEAD} If the response contains some previous information along with an updated answer, the response should be considered as correct as long as the updated answer is the required answer.${QA}`;
const PREFERENCE = "I will give you a question, a rubric for desired personalized response, and a response from a model. Please answer yes if the response satisfies the desired response. Otherwise, answer no. The model does not need to reflect all the points in the rubric. The response is correct as long as it recalls and utilizes the user's personal information correctly.\n\nQuestion: {}\n\nRubric: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no only.";
const ABSTENTION = "I will give you an unanswerable question, an explanation, and a response from a model. Please answer yes if the model correctly identifies the question as unanswerable. The model could say that the information is incomplete, or some other information is given but the asked information is not.\n\nQuestion: {}\n\nExplanation: {}\n\nModel Response: {}\n\nDoes the model correctly identify the question as unanswerable? Answer yes or no only.";

const RUBRIC_BY_TYPE: Record<string, string> = {
  "single-session-user": CONTAIN,
  "single-session-assistant": CONTAIN,
  "multi-session": CONTAIN,
  "temporal-reasoning": TEMPORAL,
  "knowledge-update": KNOWLEDGE_UPDATE,
  "single-session-preference": PREFERENCE,
};

/** Row markers upstream sets in `judge_error`. */
export const LME_ERRORS = { judgeCallFailed: "judge_call_failed", emptyJudgeOutput: "empty_judge_output", unknownQuestionType: "unknown_question_type", badMetadata: "bad_metadata" } as const;
const EXCLUDED = new Set<string>([LME_ERRORS.judgeCallFailed, LME_ERRORS.unknownQuestionType]);
const COUNTERS: Record<string, string> = {
  judge_call_failed: "n_judge_call_failed",
  empty_judge_output: "n_empty_judge_output",
  unknown_question_type: "n_unknown_question_type",
  bad_metadata: "n_bad_metadata",
};

/** The rubric prompt for a row (positional `{}` filled in order), or null for an unknown question type. */
export function longmemevalPrompt(questionType: string, question: string, answer: string, response: string, abstention: boolean): string | null {
  const template = abstention ? ABSTENTION : RUBRIC_BY_TYPE[questionType];
  if (template === undefined) return null;
  const parts = template.split("{}");
  const values = [question, answer, response];
  return parts.map((p, i) => (i < values.length ? p + values[i] : p)).join("");
}

const THINK_BLOCK = pyRegex("<think>.*?</think>", { dotAll: true });

/** Drop `<think>` blocks, including an unclosed trailing one (everything from it on). */
export function stripThink(text: string): string {
  if (!text) return "";
  if (text.includes("<think>") && !text.includes("</think>")) return pyStrip(text.slice(0, text.indexOf("<think>")));
  if (!text.includes("</think>")) return text;
  let cleaned = text.replace(THINK_BLOCK.re, "");
  if (cleaned === text) cleaned = text.slice(text.indexOf("</think>") + "</think>".length);
  return pyStrip(cleaned);
}

type Obj = Record<string, unknown>;

function coerceText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => (typeof c === "string" ? c : typeof (c as Obj)?.text === "string" ? ((c as Obj).text as string) : "")).join("");
  return content === null || content === undefined ? "" : pyStrOf(content);
}

/** The answer text: the SDK's `output_text` when non-empty, else every message's content concatenated. */
export function longmemevalResponseText(response: unknown): string {
  const t = outputText(response);
  if (t) return t;
  const output = (response as Obj | undefined)?.output;
  return ((Array.isArray(output) ? output : []) as Obj[]).filter((o) => o?.type === "message").map((o) => coerceText(o.content ?? "")).join("");
}

/** `str(meta.get(key, "") or "")`. */
export function metaStr(meta: Obj, key: string): string {
  const v = meta[key];
  return isTruthy(v) ? pyStrOf(v) : "";
}

/** Python truthiness of a JSON value. */
export function isTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v as object).length > 0;
  return true;
}

/** Metadata unusable for grading: not a non-empty object, or no question type / question. */
export function isBadMetadata(meta: unknown): boolean {
  if (!meta || typeof meta !== "object" || Array.isArray(meta) || Object.keys(meta).length === 0) return true;
  return !metaStr(meta as Obj, "question_type") || !metaStr(meta as Obj, "question");
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Upstream compute_metrics: condition counters, accuracy over the rows kept, per type and abstention. */
export function longmemevalMetrics(tasks: VerifyResponse[][]): Record<string, unknown> {
  const rows = tasks.flat();
  const m: Record<string, unknown> = {};
  const rewarded = rows.filter((r) => typeof r.reward === "number");
  if (rewarded.length === 0) return m;
  for (const c of Object.values(COUNTERS)) m[c] = 0;
  let other = 0;
  for (const r of rewarded) {
    if (!isTruthy(r.judge_error)) continue;
    const c = COUNTERS[pyStrOf(r.judge_error)];
    if (c === undefined) other++;
    else m[c] = (m[c] as number) + 1;
  }
  m.n_judge_errors_other = other;
  const scored = rewarded.filter((r) => !EXCLUDED.has(r.judge_error as string));
  m.n_excluded = rewarded.length - scored.length;
  m.n_empty_response = scored.filter((r) => isTruthy(r.empty_response)).length;
  m.accuracy_strict = mean(rewarded.map((r) => r.reward as number));
  if (scored.length === 0) return m;
  m.accuracy = mean(scored.map((r) => r.reward as number));
  m.count = scored.length;
  const buckets = new Map<string, number[]>();
  for (const r of scored) {
    const k = isTruthy(r.question_type) ? pyStrOf(r.question_type) : "unknown";
    buckets.set(k, [...(buckets.get(k) ?? []), r.reward as number]);
  }
  for (const k of [...buckets.keys()].sort()) {
    const vals = buckets.get(k)!;
    m[`question_type/${k}/accuracy`] = mean(vals);
    m[`question_type/${k}/count`] = vals.length;
  }
  const abstain = scored.filter((r) => isTruthy(r.abstention)).map((r) => r.reward as number);
  if (abstain.length > 0) {
    m["abstention/accuracy"] = mean(abstain);
    m["abstention/count"] = abstain.length;
  }
  return m;
}

/** Upstream get_key_metrics. */
export function longmemevalKeyMetrics(am: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ["accuracy", "abstention/accuracy", "n_excluded"]) if (k in am) out[k] = am[k];
  return out;
}
