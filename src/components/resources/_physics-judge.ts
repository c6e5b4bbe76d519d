/**
 * What physics_judge and ugphysics_judge share on top of math_with_judge: a Skills judge prompt kept
 * as a Gym prompt YAML (`user` required, `system` optional, str.format_map placeholders), one judge
 * call without the A/B swap, over `/v1/chat/completions` (answer wrapped into a Responses object for
 * `judge_evaluations`, as upstream records it) or `/v1/responses`, and per-field subset metrics.
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../../errors.ts";
import { fullResponse } from "../../servers/resources.ts";
import type { JudgeClient, JudgeEvaluation, JudgeMessage } from "../../verify/judge/judge-client.ts";
import type { JudgePrompt } from "../../verify/judge/prompt.ts";
import { str } from "../_support.ts";
import { checkedPrompt, serverFile } from "../_judge.ts";
import type { ComponentContext } from "../registry.ts";

type Obj = Record<string, unknown>;

/** A `user` (+ optional `system`) prompt YAML. */
export interface UserSystemPrompt {
  user: JudgePrompt;
  system: JudgePrompt | null;
}

/** Load `judge_prompt_path` (default `defaultPath`) and check its placeholders against `fields` at start. */
export async function loadJudgePromptYaml(ctx: ComponentContext, impl: string, defaultPath: string, fields: readonly string[]): Promise<UserSystemPrompt> {
  const path = str(ctx, "judge_prompt_path") ?? defaultPath;
  const abs = await serverFile(ctx, "resources_servers", impl, path, "judge_prompt_path");
  const doc = parseYaml(readFileSync(abs, "utf8")) as Obj | null;
  if (!doc || typeof doc.user !== "string") throw new ConfigError(`${ctx.instanceName}: judge_prompt_path ${abs} has no 'user' key`, { key: "judge_prompt_path", hint: "a prompt YAML needs `user:` (and may have `system:`)" });
  const system = typeof doc.system === "string" ? checkedPrompt(ctx, `judge_prompt_path (${abs}) system`, doc.system, fields) : null;
  return { user: checkedPrompt(ctx, `judge_prompt_path (${abs}) user`, doc.user, fields), system };
}

/** The prompt's messages for these values (a system message whenever the YAML has one, as fill_prompt does). */
export function promptMessages(p: UserSystemPrompt, values: Record<string, string>): JudgeMessage[] {
  const out: JudgeMessage[] = [];
  if (p.system) out.push({ role: "system", content: p.system.render(values) });
  out.push({ role: "user", content: p.user.render(values) });
  return out;
}

/** The judge's verdict text (null when it gave none usable) and the call as recorded. */
export async function askOnce(judge: JudgeClient, messages: JudgeMessage[], useChat: boolean): Promise<{ text: string | null; evaluation: JudgeEvaluation }> {
  const params: Obj = { ...structuredClone(judge.opts.createParams), input: messages };
  if (useChat) {
    const { completion } = await judge.chat(judge.chatParams(messages, { max_tokens: 2048, temperature: 0.0, top_p: 1.0 }));
    const choices = completion.choices as Obj[] | undefined;
    const content = Array.isArray(choices) && choices.length > 0 ? ((choices[0]!.message as Obj | undefined)?.content as string | null | undefined) : null;
    const response = fullResponse({
      id: completion.id,
      created_at: completion.created,
      model: completion.model,
      object: "response",
      output: [{ id: "msg_chat", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: content || "", annotations: [] }] }],
      parallel_tool_calls: false,
      tool_choice: "none",
      tools: [],
    });
    return { text: content || null, evaluation: { responses_create_params: params, response } };
  }
  const evaluation = await judge.respondWith(params);
  const output = evaluation.response.output as Obj[] | undefined;
  const last = Array.isArray(output) && output.length > 0 ? output[output.length - 1]! : undefined;
  if (last?.type !== "message" || !Array.isArray(last.content) || last.content.length === 0) return { text: null, evaluation };
  const part = last.content[last.content.length - 1] as Obj;
  return { text: part?.type === "output_text" && typeof part.text === "string" ? part.text : null, evaluation };
}
