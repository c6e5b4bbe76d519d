/**
 * resources_servers/arena_judge: Arena-Hard pairwise judging (arena-hard-auto's protocol). The policy's
 * answer is judged against the row's `baseline_answer` twice over `/v1/chat/completions`, once as
 * assistant A and once swapped, with the category's `{system, user}` prompt; reward 1 when the
 * gen-base call prefers the candidate (A>B or A>>B). Metrics: verdict pass@k / majority@k, per-category
 * subsets, and the Arena-Elo win-rate with a bootstrap interval (verify/judge/arena.ts).
 */
import { readFileSync } from "node:fs";
import Type from "typebox";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../../errors.ts";
import { log } from "../../log.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { highestKMetrics, passMajorityMetrics, type VerifyResponse } from "../../verify/aggregate-metrics.ts";
import { arenaEloMetrics, arenaScores, parseArenaVerdict } from "../../verify/judge/arena.ts";
import { JudgeClient } from "../../verify/judge/judge-client.ts";
import { chatText } from "../../verify/judge/labels.ts";
import { outputText } from "../../verify/response-text.ts";
import type { JudgePrompt } from "../../verify/judge/prompt.ts";
import { bool, clientsFor, obj, refName, str } from "../_support.ts";
import { checkedPrompt, serverFile } from "../_judge.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { subsetMetrics } from "../../verify/sample-metrics.ts";
import { echoFields } from "./_proof-support.ts";
import { replaceLoneSurrogates } from "../../util/py-surrogates.ts";
import { numberKey } from "./_proof-verifier.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "ArenaJudgeServer";
const IMPL = "arena_judge";
const FIELDS = ["question", "answer_1", "answer_2"] as const;
const DEFAULT_PATHS: Record<string, string> = {
  hard_prompt: "resources_servers/arena_judge/prompts/arena.yaml",
  creative_writing: "resources_servers/arena_judge/prompts/arena_creative.yaml",
};
const MaybeStr = Type.Optional(Type.Union([Type.String(), Type.Null()]));

interface CategoryPrompt {
  system?: JudgePrompt;
  user: JudgePrompt;
}

/**
 * Upstream's `sanitize_generation`: a json.dumps/loads round trip around the surrogate scrub. Its NUL
 * removal is a no-op there (json.dumps has already escaped NUL as \u0000), so NULs stay, as upstream's do.
 */
export function sanitizeGeneration(s: string): string {
  return replaceLoneSurrogates(s);
}

/** compute_metrics: verdict pass@k / majority@k, category subsets, Arena-Elo. */
export function arenaComputeMetrics(tasks: VerifyResponse[][], rounds: number, seed: number): Record<string, unknown> {
  return {
    ...passMajorityMetrics(tasks, arenaScores, "verdict_gen_base"),
    ...subsetMetrics(tasks, "category", arenaScores, "verdict_gen_base"),
    ...arenaEloMetrics(tasks, rounds, seed),
  };
}

/** get_key_metrics: token means, the Arena-Elo headline, the highest-k pass figures. */
export function arenaKeyMetrics(m: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens", "arena_elo/score", "arena_elo/ci_lower", "arena_elo/ci_upper", "arena_elo/invalid_scores"]) if (name in m) key[name] = m[name];
  return { ...key, ...highestKMetrics(m, "pass@1[avg-of-{k}]"), ...highestKMetrics(m, "pass@{k}", { excludeNames: ["no_answer"] }) };
}

/** The category → prompt map (judge_prompt_paths), each file `{system?, user}` checked at start. */
async function loadPrompts(ctx: ComponentContext): Promise<Map<string, CategoryPrompt>> {
  const paths = (obj(ctx, "judge_prompt_paths") as Record<string, unknown> | undefined) ?? DEFAULT_PATHS;
  const out = new Map<string, CategoryPrompt>();
  for (const [category, path] of Object.entries(paths)) {
    const key = `judge_prompt_paths.${category}`;
    if (typeof path !== "string") throw new ConfigError(`${ctx.instanceName}: ${key} must be a path string`, { key });
    const abs = await serverFile(ctx, "resources_servers", IMPL, path, key);
    const doc = parseYaml(readFileSync(abs, "utf8")) as Obj | null;
    if (!doc || typeof doc.user !== "string") throw new ConfigError(`${ctx.instanceName}: ${key} ${abs} needs a string 'user' field`, { key, hint: "a prompt config is YAML with `user:` and an optional `system:`" });
    if (doc.system !== undefined && doc.system !== null && typeof doc.system !== "string") throw new ConfigError(`${ctx.instanceName}: ${key} ${abs}: 'system' must be a string`, { key });
    out.set(category, {
      system: typeof doc.system === "string" ? checkedPrompt(ctx, `${key} (${abs}) system`, doc.system, FIELDS) : undefined,
      user: checkedPrompt(ctx, `${key} (${abs}) user`, doc.user, FIELDS),
    });
  }
  return out;
}

/** default_category must name one of judge_prompt_paths' categories (upstream's model_post_init). */
function defaultCategory(ctx: Pick<ComponentContext, "instanceName" | "config">): string {
  const cat = str(ctx, "default_category") ?? "hard_prompt";
  const paths = (obj(ctx, "judge_prompt_paths") as Record<string, unknown> | undefined) ?? DEFAULT_PATHS;
  if (!Object.hasOwn(paths, cat)) {
    throw new ConfigError(`${ctx.instanceName}: default_category=${JSON.stringify(cat)} is not in judge_prompt_paths keys ${JSON.stringify(Object.keys(paths).sort())}`, { key: "default_category" });
  }
  return cat;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: IMPL,
  className: CLASS_NAME,
  checkConfig: (ctx) => void defaultCategory(ctx),
  async create(ctx) {
    const fallback = defaultCategory(ctx);
    const prompts = await loadPrompts(ctx);
    const base = obj(ctx, "judge_chat_completions_create_params");
    if (!base) throw new ConfigError(`${ctx.instanceName}: judge_chat_completions_create_params is not set`, { key: "judge_chat_completions_create_params", hint: "give the judge's chat request, e.g. {messages: [], max_tokens: 4096, temperature: 0.0}" });
    const judge = new JudgeClient({ transport: clientsFor(ctx).inner, server: refName(ctx, "judge_model_server"), createParams: base, maxConcurrency: null });
    const rounds = numberKey(ctx, "arena_elo_bootstrap_rounds", 100);
    const seed = numberKey(ctx, "arena_elo_bootstrap_seed", 42);
    const sanitize = bool(ctx, "sanitize_generations", false);

    const judgeOnce = async (p: CategoryPrompt, fill: Record<string, string>): Promise<{ text: string; verdict: string | null }> => {
      const messages = [...(p.system ? [{ role: "system", content: p.system.render(fill) }] : []), { role: "user", content: p.user.render(fill) }];
      const { completion } = await judge.chat({ ...structuredClone(base), messages });
      const text = chatText(completion);
      return { text, verdict: parseArenaVerdict(text) };
    };

    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: { question: MaybeStr, baseline_answer: MaybeStr, category: MaybeStr, uid: MaybeStr },
      computeMetrics: (tasks) => arenaComputeMetrics(tasks, rounds, seed),
      keyMetrics: arenaKeyMetrics,
      async verify(body) {
        // Upstream reads every message item's output_text, any role: the SDK's `output_text`.
        let candidate = outputText(body.response);
        let baseline = typeof body.baseline_answer === "string" ? body.baseline_answer : "";
        if (sanitize) {
          candidate = sanitizeGeneration(candidate);
          baseline = sanitizeGeneration(baseline);
        }
        const question = typeof body.question === "string" ? body.question : "";
        let category = typeof body.category === "string" && body.category !== "" ? body.category : fallback;
        if (!prompts.has(category)) {
          log.warn(`${ctx.instanceName}: unknown category ${JSON.stringify(category)}; falling back to default ${JSON.stringify(fallback)}.`);
          category = fallback;
        }
        const p = prompts.get(category)!;
        // Both directions settle before a failure surfaces, so no call is left running behind the answer.
        const [genBase, baseGen] = await Promise.allSettled([
          judgeOnce(p, { question, answer_1: candidate, answer_2: baseline }),
          judgeOnce(p, { question, answer_1: baseline, answer_2: candidate }),
        ]);
        if (genBase.status === "rejected") throw genBase.reason;
        if (baseGen.status === "rejected") throw baseGen.reason;
        const { category: _sent, ...row } = echoFields(body);
        return {
          question: null,
          baseline_answer: null,
          uid: null,
          ...row,
          reward: genBase.value.verdict === "A>>B" || genBase.value.verdict === "A>B" ? 1.0 : 0.0,
          judgement_gen_base: genBase.value.text,
          judgement_base_gen: baseGen.value.text,
          verdict_gen_base: genBase.value.verdict,
          verdict_base_gen: baseGen.value.verdict,
          category,
          invalid_gen_base: genBase.value.verdict === null,
          invalid_base_gen: baseGen.value.verdict === null,
        };
      },
    });
  },
};
