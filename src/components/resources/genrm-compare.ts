/**
 * resources_servers/genrm_compare: rewards relative to a rollout group, from pairwise GenRM
 * comparisons (verify/judge/genrm.ts). With `num_rollouts_per_prompt` > 1, `/verify` holds each
 * rollout until its group is complete — grouped by `_ng_task_index` (else `prompt_id`) plus a hash
 * of the prompt and principle — comparing each arrival with the group members already present, and
 * answers every member with its reward once the last one is in. With 1, every rollout gets
 * `default_score`. `POST /compare` scores N responses in one call. The GenRM model is called over
 * `/v1/responses` with the pair in `metadata` (genrm_model turns it into its comparison roles).
 *
 * Faults: an unparseable GenRM answer is retried `genrm_parse_retries` times, then scored neutral
 * (`default_score`, `default_ranking`) as upstream does; a failed call (transport, HTTP status, bad
 * body) fails the whole group as `judge_failed` (upstream scores it neutral and logs), so an outage
 * never turns into rewards.
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { HttpError } from "../../runtime/http/http-types.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import {
  aggregateScores, AGGREGATOR_METHODS, COMPARISON_STRATEGIES, comparisonPairs, conversationHistory, GenrmParseError, outputTextOf, parseGenrmOutput, promptKey,
  type AggregateOptions, type PairMeta, type Triple,
} from "../../verify/judge/genrm.ts";
import { JudgeClient } from "../../verify/judge/judge-client.ts";
import { JudgeError } from "../../verify/judge/judge-error.ts";
import { bool, clientsFor, obj, refName, str } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "GenRMCompareResourcesServer";
/** Upstream's default principle text (used when use_principle is on and a row has none). */
export const DEFAULT_PRINCIPLE =
  "Please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants to the user prompt. Begin your evaluation by generating your own answer to the prompt. You must provide your answer before judging any answers. When evaluating the assistants' answers, compare both assistants' answers with your answer. You must identify and correct any mistakes or inaccurate information. Then consider if the assistant's answers are helpful, relevant, and concise. Helpful means the answer correctly responds to the prompt or follows the instructions. Note when user prompt has any ambiguity or more than one interpretation, it is more helpful and appropriate to ask for clarifications or more information from the user than providing an answer based on assumptions. Relevant means all parts of the response closely connect or are appropriate to what is being asked. Concise means the response is clear and not verbose or excessive. Then consider the creativity and novelty of the assistant's answers when needed. Finally, identify any missing important information in the assistants' answers that would be beneficial to include when responding to the user prompt.";

/** The leaf's settings with upstream's defaults. */
export interface GenrmSettings extends AggregateOptions {
  groupSize: number;
  strategy: string;
  judges: number;
  usePrinciple: boolean;
  defaultPrinciple: string;
  defaultRanking: number;
  parseRetries: number;
  retrySleepS: number;
}

/** Read and check the leaf (bad strategy/aggregator/counts are config errors at start, not per-call 500s). */
export function genrmSettings(ctx: Pick<ComponentContext, "instanceName" | "config">): GenrmSettings {
  const n = (key: string, d: number, integer = false, min = -Infinity): number => {
    const raw = ctx.config[key];
    if (raw === undefined || raw === null) return d;
    const v = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
    if (typeof v !== "number" || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < min) {
      throw new ConfigError(`${ctx.instanceName}: ${key} must be ${integer ? "an integer" : "a number"}${min > -Infinity ? ` ≥ ${min}` : ""}, got ${JSON.stringify(raw)}`, { key });
    }
    return v;
  };
  const oneOf = (key: string, d: string, allowed: readonly string[]) => {
    const v = str(ctx, key) ?? d;
    if (!allowed.includes(v)) throw new ConfigError(`${ctx.instanceName}: ${key} must be one of ${allowed.join(", ")}, got ${JSON.stringify(v)}`, { key });
    return v;
  };
  return {
    groupSize: n("num_rollouts_per_prompt", 1, true),
    strategy: oneOf("comparison_strategy", "circular", COMPARISON_STRATEGIES),
    judges: n("num_judges_per_comparison", 1, true, 1),
    usePrinciple: bool(ctx, "use_principle", false),
    defaultPrinciple: str(ctx, "default_principle") ?? DEFAULT_PRINCIPLE,
    aggregatorMethod: oneOf("aggregator_method", "simple_tiebreaker", AGGREGATOR_METHODS),
    reasoningBonus: n("reasoning_bonus", 0),
    answerBonus: n("answer_bonus", 0),
    topPercentile: n("top_percentile", 0.2),
    reasoningLengthPenalty: n("group_reasoning_length_penalty_coeff", 0),
    answerLengthPenalty: n("group_answer_length_penalty_coeff", 0),
    stylePenalty: n("group_style_penalty_coeff", 0),
    defaultScore: n("default_score", 3.0),
    defaultRanking: n("default_ranking", 3.5),
    parseRetries: n("genrm_parse_retries", 3, true),
    retrySleepS: n("genrm_parse_retry_sleep_s", 0.2, false, 0),
  };
}

/** One group being collected: its members in arrival order and the comparisons already started. */
interface Cohort {
  members: { response: Obj; settle: { resolve(r: number): void; reject(e: unknown): void } }[];
  results: Promise<[Triple, PairMeta]>[];
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "genrm_compare",
  className: CLASS_NAME,
  checkConfig: (ctx) => void genrmSettings(ctx),
  async create(ctx) {
    const cfg = genrmSettings(ctx);
    const server = refName(ctx, "genrm_model_server");
    const base = obj(ctx, "genrm_responses_create_params");
    if (!base) throw new ConfigError(`${ctx.instanceName}: genrm_responses_create_params is not set`, { key: "genrm_responses_create_params", hint: "give the GenRM's base request, e.g. genrm_responses_create_params: {input: [], max_output_tokens: 16384}" });
    const genrm = new JudgeClient({ transport: clientsFor(ctx).inner, server, createParams: base, maxConcurrency: null });
    const cohorts = new Map<string, Cohort>();

    /** Compare one pair; parse failures are retried then scored neutral, call failures throw JudgeError. */
    async function compareOne(history: { role: string; content: string }[], r1: unknown, r2: unknown, principle: string | null | undefined): Promise<Triple> {
      const metadata: Obj = { response_1: outputTextOf(r1), response_2: outputTextOf(r2) };
      if (cfg.usePrinciple) metadata.principle = principle || cfg.defaultPrinciple;
      const params: Obj = { ...structuredClone(base!), input: history.map((m) => ({ role: m.role, content: m.content, type: "message" })), metadata };
      const attempts = Math.max(1, cfg.parseRetries + 1);
      for (let attempt = 0; attempt < attempts; attempt++) {
        const { response } = await genrm.respondWith(params);
        try {
          return parseGenrmOutput(outputTextOf(response), cfg.defaultScore, cfg.defaultRanking);
        } catch (e) {
          if (!(e instanceof GenrmParseError)) throw e;
          if (attempt < attempts - 1) await Bun.sleep(cfg.retrySleepS * 1000);
        }
      }
      return [cfg.defaultScore, cfg.defaultScore, cfg.defaultRanking];
    }

    const aggregate = (pairs: [Triple, PairMeta][], responses: unknown[]) => {
      // Upstream's batch order: judge pass, then i, then j.
      const sorted = [...pairs].sort((a, b) => a[1][2] - b[1][2] || a[1][0] - b[1][0] || a[1][1] - b[1][1]);
      return aggregateScores(sorted.map((p) => p[0]), sorted.map((p) => p[1]), responses, cfg);
    };

    /** Add one rollout to its group; the returned promise settles when the group is complete. */
    function join(key: string, history: { role: string; content: string }[], response: Obj, principle: string | null | undefined): Promise<number> {
      let cohort = cohorts.get(key);
      if (!cohort) cohorts.set(key, (cohort = { members: [], results: [] }));
      const c = cohort;
      const reward = new Promise<number>((resolve, reject) => c.members.push({ response, settle: { resolve, reject } }));
      const me = c.members.length - 1;
      const responses = c.members.map((m) => m.response);
      if (responses.length > 1) {
        for (let judge = 0; judge < cfg.judges; judge++) {
          for (const [i, j] of comparisonPairs(cfg.strategy, cfg.groupSize)) {
            if (i >= responses.length || j >= responses.length || (i !== me && j !== me)) continue;
            c.results.push(compareOne(history, responses[i], responses[j], principle).then((t) => [t, [i, j, judge]] as [Triple, PairMeta]));
          }
        }
      }
      if (responses.length >= cfg.groupSize) {
        cohorts.delete(key);
        // Unlike upstream, wait for every comparison of the group (an earlier arrival's may still be running).
        Promise.all(c.results).then(
          (pairs) => {
            const { rewards } = aggregate(pairs, responses);
            c.members.forEach((m, i) => m.settle.resolve(rewards[i]!));
          },
          (e) => c.members.forEach((m) => m.settle.reject(e)),
        );
      }
      // A comparison that fails before the group is complete is reported once the group settles.
      for (const p of c.results) p.catch(() => {});
      return reward;
    }

    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        principle: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        _ng_task_index: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
        _ng_rollout_index: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
        prompt_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      },
      async verify(body) {
        if (cfg.groupSize <= 1) return { reward: cfg.defaultScore };
        const rcp = body.responses_create_params as Obj;
        const input = Array.isArray(rcp.input) ? rcp.input : [];
        const principle = body.principle as string | null | undefined;
        const hash = promptKey(input, principle);
        const task = body._ng_task_index;
        const key = typeof task === "number" ? `task_idx::${task}::${hash}` : typeof body.prompt_id === "string" ? `prompt_id::${body.prompt_id}::${hash}` : hash;
        return { reward: await join(key, conversationHistory(input), body.response as Obj, principle) };
      },
      tools: {
        compare: {
          schema: Type.Object({
            conversation_history: Type.Array(Type.Record(Type.String(), Type.String())),
            response_objs: Type.Array(Type.Record(Type.String(), Type.Unknown())),
            principle: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          }),
          async handler(args) {
            const responses = args.response_objs as Obj[];
            if (responses.length < 2) return { rewards: [cfg.defaultScore], comparison_results: null, metrics: null };
            const history = (args.conversation_history as Record<string, string>[]).map((m) => ({ role: m.role ?? "user", content: m.content ?? "" }));
            const jobs: Promise<[Triple, PairMeta]>[] = [];
            for (let judge = 0; judge < cfg.judges; judge++) {
              for (const [i, j] of comparisonPairs(cfg.strategy, responses.length)) jobs.push(compareOne(history, responses[i], responses[j], args.principle as string | null | undefined).then((t) => [t, [i, j, judge]]));
            }
            let pairs: [Triple, PairMeta][];
            try {
              pairs = await Promise.all(jobs);
            } catch (e) {
              if (e instanceof JudgeError) throw new HttpError(502, `${CLASS_NAME}: GenRM model server '${server}' failed: ${e.message}`);
              throw e;
            }
            const { rewards, metrics } = aggregate(pairs, responses);
            return {
              rewards,
              comparison_results: pairs.map(([[score_1, score_2, ranking], [i, j, judge]]) => ({ response_i: i, response_j: j, judge_idx: judge, score_1, score_2, ranking })),
              metrics,
            };
          },
        },
      },
    });
  },
};
