/**
 * Wiring a resources component to the shared judge (verify/judge/): the judge client from the
 * leaf's `judge_model_server`, `judge_responses_create_params` and `judge_endpoint_max_concurrency`,
 * and prompt files resolved the way upstream's servers see them (relative to the server's own
 * directory, which is their working directory) and checked at start.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { searchRoots } from "../config/roots.ts";
import { ConfigError } from "../errors.ts";
import { JudgeClient } from "../verify/judge/judge-client.ts";
import { JudgePrompt, JudgePromptError } from "../verify/judge/prompt.ts";
import { chatText } from "../verify/judge/labels.ts";
import { pyStrip } from "../util/py-str.ts";
import { clientsFor, obj, refName } from "./_support.ts";
import type { ComponentContext } from "./registry.ts";

/** The judge of one resources instance; `defaultMaxConcurrency` is the server class's default (null = unlimited). */
export function judgeFromContext(ctx: ComponentContext, defaultMaxConcurrency: number | null = 64): JudgeClient {
  const server = refName(ctx, "judge_model_server");
  const createParams = obj(ctx, "judge_responses_create_params");
  if (!createParams) throw new ConfigError(`${ctx.instanceName}: judge_responses_create_params is not set`, { key: "judge_responses_create_params", hint: "give the judge's base request, e.g. judge_responses_create_params: {input: [], max_output_tokens: 512}" });
  const raw = ctx.config.judge_endpoint_max_concurrency;
  const maxConcurrency = raw === undefined ? defaultMaxConcurrency : raw === null ? null : Number(raw);
  if (maxConcurrency !== null && (!Number.isInteger(maxConcurrency) || maxConcurrency <= 0)) {
    throw new ConfigError(`${ctx.instanceName}: judge_endpoint_max_concurrency must be a positive integer or null, got ${JSON.stringify(raw)}`, { key: "judge_endpoint_max_concurrency" });
  }
  return new JudgeClient({ transport: clientsFor(ctx).inner, server, createParams, maxConcurrency });
}

/**
 * Absolute path of a file a server names relative to its own directory: tried under
 * `<root>/<kind>/<implementation>/` then `<root>/` for each search root.
 */
export async function serverFile(ctx: ComponentContext, kind: string, implementation: string, path: string, key: string): Promise<string> {
  if (isAbsolute(path)) {
    if (existsSync(path)) return path;
  } else {
    const roots = await searchRoots();
    for (const root of roots) {
      for (const cand of [join(root, kind, implementation, path), join(root, path)]) if (existsSync(cand)) return cand;
    }
  }
  throw new ConfigError(`${ctx.instanceName}: ${key} ${path} was not found (looked under ${kind}/${implementation}/ and the search roots)`, { key, hint: "point it at an existing file, relative to the server's directory or the working directory" });
}

/** A prompt template checked against the placeholders the server supplies; a bad one is a ConfigError at start. */
export function checkedPrompt(ctx: ComponentContext, key: string, text: string, fields: readonly string[]): JudgePrompt {
  try {
    return new JudgePrompt(text, fields);
  } catch (e) {
    if (e instanceof JudgePromptError) throw new ConfigError(`${ctx.instanceName}: ${key}: ${e.message}`, { key });
    throw e;
  }
}

/** Read a server-relative prompt file and check it (upstream strips the text it reads). */
export async function loadPrompt(ctx: ComponentContext, kind: string, implementation: string, key: string, path: string, fields: readonly string[]): Promise<JudgePrompt> {
  const abs = await serverFile(ctx, kind, implementation, path, key);
  return checkedPrompt(ctx, `${key} (${abs})`, readFileSync(abs, "utf8").trim(), fields);
}

/** A judge prompt kept under the `user` key of a YAML file (upstream's `prompts/judge.yaml`), checked at start. */
export async function loadYamlPrompt(ctx: ComponentContext, kind: string, implementation: string, key: string, path: string, fields: readonly string[]): Promise<JudgePrompt> {
  const abs = await serverFile(ctx, kind, implementation, path, key);
  const { parse } = await import("yaml");
  const doc = parse(readFileSync(abs, "utf8")) as { user?: unknown } | null;
  if (!doc || typeof doc.user !== "string") throw new ConfigError(`${ctx.instanceName}: ${key} ${abs} has no string 'user' key`, { key, hint: "the judge prompt file is YAML with the template under `user: |-`" });
  return checkedPrompt(ctx, `${key} (${abs})`, doc.user, fields);
}

/**
 * Ask the judge one user prompt and return its text: over `/v1/chat/completions` when
 * `use_chat_completions_for_judge` (request built from the responses params with upstream's
 * defaults), else `/v1/responses`. Returns the raw call too, for servers that record it.
 */
export async function askJudgeText(judge: JudgeClient, prompt: string, useChat: boolean, readResponse: (response: Record<string, unknown>) => string): Promise<string> {
  if (useChat) {
    const { completion } = await judge.chat(judge.chatParams([{ role: "user", content: prompt }], { max_tokens: 64, temperature: 0.0, top_p: 1.0 }));
    const text = chatText(completion);
    return text ? pyStrip(text) : "";
  }
  const call = await judge.respond([{ role: "user", content: prompt }]);
  return readResponse(call.response);
}
