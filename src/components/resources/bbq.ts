/**
 * resources_servers/bbq: BBQ comparative QA graded by two concurrent strict-JSON judges over
 * `/v1/chat/completions` (verify/judge/bbq.ts): reward = Answer Check (0/1) × Explanation Quality
 * (0/0.5/1). Each check gets `judge_max_attempts` tries (transport failures, timeouts and unusable
 * JSON are retried after `judge_retry_backoff_seconds` × attempt); after that the row fails closed as
 * `judge_failed` (no reward), and the sibling check is cancelled. An empty policy answer is scored
 * `empty_response_reward` without asking the judges (null restores upstream's strict error).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { passMajorityMetrics, type VerifyResponse } from "../../verify/aggregate-metrics.ts";
import {
  answerPromptValues, answerReward, answerSchemaFor, bbqScores, BbqJudgeOutputError, EXPLANATION_SCHEMA, explanationPromptValues, explanationReward,
  parseAnswerJudgment, parseExpected, parseExplanationJudgment, policyPrompt, policyResponseText, renderBbqTemplate, type BbqExpected,
} from "../../verify/judge/bbq.ts";
import { JudgeClient } from "../../verify/judge/judge-client.ts";
import { JudgeError } from "../../verify/judge/judge-error.ts";
import { chatText } from "../../verify/judge/labels.ts";
import { clientsFor, obj, refName, str } from "../_support.ts";
import { serverFile } from "../_judge.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { subsetMetrics } from "../../verify/sample-metrics.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "BBQTwoJudgeResourcesServer";
type CheckName = "answer_check" | "explanation_quality_check";
interface Template {
  prompt_version: string;
  prompt_template: string;
}

/** The fields each template must use, exactly (upstream checks this per call; we check it at start). */
const TEMPLATE_FIELDS: Record<CheckName, string[]> = {
  answer_check: ["context_condition", "label", "actor_aliases_json", "policy_prompt_json", "policy_response_json"],
  explanation_quality_check: [
    "category", "protected_axis", "actor_aliases_json", "protected_roles_json", "protected_descriptors_json", "gold_evidence_json",
    "ambiguity_reason_json", "decisive_detail_json", "policy_prompt_json", "policy_response_json",
  ],
};

function num(ctx: Pick<ComponentContext, "instanceName" | "config">, key: string, fallback: number, ok: (n: number) => boolean, range: string, integer = false): number {
  const raw = ctx.config[key];
  if (raw === undefined) return fallback;
  const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
  if (typeof n !== "number" || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || !ok(n)) {
    throw new ConfigError(`${ctx.instanceName}: ${key} must be ${integer ? "an integer" : "a number"} ${range}, got ${JSON.stringify(raw)}`, { key });
  }
  return n;
}

/** The numeric knobs of the leaf, checked against upstream's pydantic bounds. */
function settings(ctx: Pick<ComponentContext, "instanceName" | "config">) {
  const emptyRaw = ctx.config.empty_response_reward;
  return {
    timeoutS: num(ctx, "judge_timeout_seconds", 120, (n) => n > 0 && n <= 600, "in (0, 600]"),
    attempts: num(ctx, "judge_max_attempts", 3, (n) => n >= 1 && n <= 8, "in [1, 8]", true),
    backoffS: num(ctx, "judge_retry_backoff_seconds", 2, (n) => n >= 0 && n <= 60, "in [0, 60]"),
    emptyReward: emptyRaw === null ? null : num(ctx, "empty_response_reward", 0, (n) => n >= 0 && n <= 1, "in [0, 1] or null"),
  };
}

/** Read and check the two versioned templates (exactly the two checks, each exactly version + template). */
function readTemplates(ctx: ComponentContext, path: string, text: string, parse: (t: string) => unknown): Record<CheckName, Template> {
  const fail = (what: string) => new ConfigError(`${ctx.instanceName}: judge_prompt_templates_path ${path}: ${what}`, { key: "judge_prompt_templates_path" });
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw fail(`could not load judge prompt templates: ${(e as Error).message}`);
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw fail("judge prompt template file must contain a mapping");
  const d = doc as Obj;
  const names = Object.keys(TEMPLATE_FIELDS) as CheckName[];
  if (Object.keys(d).length !== 2 || !names.every((n) => n in d)) throw fail(`judge prompt template file must contain exactly ${JSON.stringify(names)}`);
  for (const name of names) {
    const item = d[name] as Obj;
    if (!item || typeof item !== "object" || Object.keys(item).sort().join() !== "prompt_template,prompt_version") throw fail(`${name} must contain exactly prompt_version and prompt_template`);
    if (!Object.values(item).every((v) => typeof v === "string" && v.trim() !== "")) throw fail(`${name} prompt fields must be nonempty strings`);
    const placeholders = new Set([...(item.prompt_template as string).matchAll(/\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g)].map((m) => m[1]!));
    const want = TEMPLATE_FIELDS[name];
    if (placeholders.size !== want.length || !want.every((f) => placeholders.has(f))) {
      throw fail(`${name}.prompt_template must use exactly the placeholders ${want.map((f) => `{{${f}}}`).join(", ")} (it uses ${[...placeholders].map((f) => `{{${f}}}`).join(", ") || "none"})`);
    }
  }
  return d as unknown as Record<CheckName, Template>;
}

/** Upstream `compute_metrics`: pass@k overall, then per category and per context condition (read from expected_values). */
export function bbqMetrics(tasks: VerifyResponse[][]): Record<string, unknown> {
  const flat = tasks.map((rs) =>
    rs.map((r) => {
      const ev = (r.expected_values ?? {}) as Obj;
      return { ...r, category: r.category ?? ev.category ?? null, context_condition: r.context_condition ?? ev.context_condition ?? null };
    }),
  );
  return { ...passMajorityMetrics(flat, bbqScores), ...subsetMetrics(flat, "category", bbqScores), ...subsetMetrics(flat, "context_condition", bbqScores) };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "bbq",
  className: CLASS_NAME,
  checkConfig: (ctx) => void settings(ctx),
  async create(ctx) {
    const server = refName(ctx, "judge_model_server");
    const base = obj(ctx, "judge_chat_create_params");
    if (!base) throw new ConfigError(`${ctx.instanceName}: judge_chat_create_params is not set`, { key: "judge_chat_create_params", hint: "give the judge's base chat request, e.g. judge_chat_create_params: {messages: [], temperature: 0.0}" });
    const cfg = settings(ctx);
    const system = str(ctx, "judge_system_message");
    const tplPath = await serverFile(ctx, "resources_servers", "bbq", str(ctx, "judge_prompt_templates_path") ?? "configs/verifier_prompt_templates.yaml", "judge_prompt_templates_path");
    const { parse } = await import("yaml");
    const templates = readTemplates(ctx, tplPath, readFileSync(tplPath, "utf8"), parse);
    const judge = new JudgeClient({ transport: clientsFor(ctx).inner, server, createParams: base, maxConcurrency: null });

    /** One check: call, parse, retry within the budget; the last failure becomes a JudgeError (judge_failed). */
    async function evaluate<J>(check: CheckName, prompt: string, schema: Obj, read: (text: string) => J, stop: AbortSignal) {
      const version = templates[check].prompt_version;
      const messages = [...(system ? [{ role: "system", content: system }] : []), { role: "user", content: prompt }];
      const request: Obj = { ...structuredClone(base!), messages, response_format: { type: "json_schema", json_schema: { name: `bbq_${check}_${version}`, strict: true, schema } } };
      let last: Error | undefined;
      for (let attempt = 1; attempt <= cfg.attempts; attempt++) {
        try {
          const signal = AbortSignal.any([stop, AbortSignal.timeout(cfg.timeoutS * 1000)]);
          const { completion } = await judge.chat(request, signal);
          const choices = completion.choices;
          if (!Array.isArray(choices) || choices.length === 0) throw new BbqJudgeOutputError(`${check} returned no choices`);
          const content = chatText(completion);
          if (typeof content !== "string" || content.trim() === "") throw new BbqJudgeOutputError(`${check} returned no textual JSON content`);
          const judgment = read(content);
          return {
            evaluation: { check, model_server: server, prompt_version: version, attempt_count: attempt, request, response: completion, raw_output_sha256: createHash("sha256").update(content).digest("hex"), judgment },
            judgment,
          };
        } catch (e) {
          if (stop.aborted) throw stop.reason;
          if (!(e instanceof JudgeError || e instanceof BbqJudgeOutputError)) throw e;
          last = e;
          if (attempt < cfg.attempts && cfg.backoffS > 0) await sleep(cfg.backoffS * attempt * 1000, stop);
        }
      }
      throw last instanceof JudgeError ? last : new JudgeError(`${check}: ${last!.message}`);
    }

    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      async verify(body) {
        let expected: BbqExpected;
        try {
          expected = parseExpected(body.expected_values ?? {});
        } catch (e) {
          throw new Error((e as Error).message);
        }
        const prompt = policyPrompt(body.responses_create_params);
        if (!prompt) throw new Error("responses_create_params contains no policy-facing prompt");
        const answer = policyResponseText(body.response);
        const { reward: _r, responses_create_params: _p, response: _s, ...rest } = body;
        if (!answer) {
          if (cfg.emptyReward === null) throw new Error("policy response contains no assistant text");
          return { ...rest, expected_values: body.expected_values ?? {}, reward: cfg.emptyReward, model_response_text: "", answer_judgment: null, explanation_judgment: null, answer_judge_evaluation: null, explanation_judge_evaluation: null, reward_answer: cfg.emptyReward, reward_explanation_quality: cfg.emptyReward, empty_policy_response: true };
        }
        const answerPrompt = renderBbqTemplate(templates.answer_check.prompt_template, answerPromptValues(expected, prompt, answer));
        const explanationPrompt = renderBbqTemplate(templates.explanation_quality_check.prompt_template, explanationPromptValues(expected, prompt, answer));
        // A failed check cancels its sibling, as upstream's gather does.
        const stop = new AbortController();
        const guard = <T>(p: Promise<T>) => p.catch((e) => (stop.abort(e), Promise.reject(e)));
        const [a, x] = await Promise.all([
          guard(evaluate("answer_check", answerPrompt, answerSchemaFor(expected), (t) => {
            const j = parseAnswerJudgment(t);
            answerReward(j, expected); // an inactive actor is unusable output (retried)
            return j;
          }, stop.signal)),
          guard(evaluate("explanation_quality_check", explanationPrompt, EXPLANATION_SCHEMA, parseExplanationJudgment, stop.signal)),
        ]);
        const rewardAnswer = answerReward(a.judgment, expected);
        const rewardExplanation = explanationReward(x.judgment);
        return {
          ...rest,
          expected_values: body.expected_values ?? {},
          reward: rewardAnswer * rewardExplanation,
          model_response_text: answer,
          answer_judgment: a.judgment,
          explanation_judgment: x.judgment,
          answer_judge_evaluation: a.evaluation,
          explanation_judge_evaluation: x.evaluation,
          reward_answer: rewardAnswer,
          reward_explanation_quality: rewardExplanation,
          empty_policy_response: false,
        };
      },
      computeMetrics: bbqMetrics,
    });
  },
};
