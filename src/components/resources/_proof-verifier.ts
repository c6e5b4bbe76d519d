/**
 * The verifier-judge wiring proof_judge and proof_verification share: their judge keys
 * (`judge_model_server`, `judge_model_name`, `temperature`, `top_p`, `max_tokens`, `assert_think_end`),
 * their prompt templates (the `user` key of `prompt_templates/*.yaml` in the server's directory), and
 * one judge call over `/v1/responses` whose answer text is every assistant `output_text` joined.
 */
import { ConfigError } from "../../errors.ts";
import { envVar } from "../../env.ts";
import { log } from "../../log.ts";
import { JudgeClient } from "../../verify/judge/judge-client.ts";
import { generatedTokens } from "../../verify/proof/self-verify.ts";
import type { JudgePrompt } from "../../verify/judge/prompt.ts";
import { bool, clientsFor, refName, str } from "../_support.ts";
import { loadYamlPrompt } from "../_judge.ts";
import type { ComponentContext } from "../registry.ts";

type Obj = Record<string, unknown>;

/** A number leaf key with upstream's default; anything but a finite number is a start-time error. */
export function numberKey(ctx: ComponentContext, key: string, fallback: number): number {
  const v = ctx.config[key];
  if (v === undefined || v === null) return fallback;
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n)) throw new ConfigError(`${ctx.instanceName}: ${key} must be a number, got ${JSON.stringify(v)}`, { key });
  return n;
}

/** The judge of a proof server: ask one user prompt, get the answer text and its generated tokens. */
export interface VerifierJudge {
  assertThinkEnd: boolean;
  ask(prompt: string): Promise<{ text: string; tokens: number }>;
}

/** Every assistant message's `output_text` parts, concatenated as upstream does (no separator, no strip). */
export function assistantOutputText(response: unknown): string {
  const parts: string[] = [];
  for (const o of ((response as Obj | null)?.output ?? []) as Obj[]) {
    if (o?.type !== "message" || o.role !== "assistant" || !Array.isArray(o.content)) continue;
    for (const c of o.content as Obj[]) if (c?.type === "output_text") parts.push(typeof c.text === "string" ? c.text : "");
  }
  return parts.join("");
}

/** Build the judge from the leaf's keys (upstream's defaults: temperature 0.6, top_p 0.95, max_tokens 100000). */
export function verifierJudge(ctx: ComponentContext, implementation: string): VerifierJudge {
  const server = refName(ctx, "judge_model_server");
  const createParams: Obj = {
    model: str(ctx, "judge_model_name") ?? server,
    temperature: numberKey(ctx, "temperature", 0.6),
    top_p: numberKey(ctx, "top_p", 0.95),
    max_output_tokens: numberKey(ctx, "max_tokens", 100000),
  };
  // Upstream's nemo-skills het-group path (JUDGE_SERVER_ARGS + SLURM_MASTER_NODE_HET_GROUP_<i>) is not
  // built in; say so instead of silently grading with a different judge than the user launched.
  if (envVar("JUDGE_SERVER_ARGS")) {
    log.warn(`${ctx.instanceName}: JUDGE_SERVER_ARGS is set but gym's built-in ${implementation} does not read it; the judge is judge_model_server '${server}'. Point that instance at your judge (an openai_model/vllm_model with base_url http://<node>:<port>/v1).`);
  }
  const judge = new JudgeClient({ transport: clientsFor(ctx).inner, server, createParams, maxConcurrency: null });
  return {
    assertThinkEnd: bool(ctx, "assert_think_end", false),
    async ask(prompt) {
      const call = await judge.respond([{ role: "user", content: prompt }]);
      return { text: assistantOutputText(call.response), tokens: generatedTokens(call.response) };
    },
  };
}

/** A template under `prompt_templates/<file>` of the server's directory, checked against its placeholders. */
export function proofTemplate(ctx: ComponentContext, implementation: string, file: string, fields: readonly string[]): Promise<JudgePrompt> {
  return loadYamlPrompt(ctx, "resources_servers", implementation, `prompt_templates/${file}`, `prompt_templates/${file}`, fields);
}
