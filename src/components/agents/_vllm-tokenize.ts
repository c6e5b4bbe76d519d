/**
 * Prompt-token counts from a vLLM policy model's `/tokenize` (upstream `create_tokenize`): the
 * Responses request is converted to its chat form as vllm_model would send it, and the chat keys
 * vLLM tokenizes (`model`, `messages`, `tools`, `chat_template_kwargs`) go to `<base_url minus /v1>/tokenize`.
 */
import { configAccess } from "../../config/access.ts";
import { ConfigError } from "../../errors.ts";
import { answerText } from "../../runtime/http/http-client.ts";
import { InnerServerError } from "../../runtime/http/http-types.ts";
import { responsesToChatParams } from "../../servers/vllm-request.ts";
import { clientsFor } from "../_support.ts";
import type { ComponentContext } from "../registry.ts";

type Obj = Record<string, unknown>;

/** Counts a Responses request's prompt tokens before the call. */
export type CountTokens = (body: Obj, signal: AbortSignal) => Promise<number>;

/** The chat keys vLLM's `/tokenize` takes. */
const TOKENIZE_KEYS = ["model", "messages", "tools", "chat_template_kwargs"];

/** A counter over `modelServer`'s vLLM `/tokenize` (its `base_url` without `/v1`, its `api_key`); `key` names the leaf option that asked for it. */
export function vllmTokenCounter(ctx: ComponentContext, modelServer: string, key: string): CountTokens {
  const access = configAccess({ dict: ctx.globalConfig });
  const top = access.at([modelServer]) as Record<string, Record<string, Obj>> | undefined;
  const leaf = top?.responses_api_models ? Object.values(top.responses_api_models)[0] : undefined;
  const raw = leaf?.base_url;
  const baseUrl = Array.isArray(raw) ? raw[0] : raw;
  if (typeof baseUrl !== "string" || baseUrl === "") {
    throw new ConfigError(`${ctx.instanceName}: ${key} needs the model server ${modelServer} to have a base_url (a vLLM endpoint)`, { key });
  }
  const url = `${baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "")}/tokenize`;
  const headers: Record<string, string> = typeof leaf?.api_key === "string" && leaf.api_key ? { authorization: `Bearer ${leaf.api_key}` } : {};
  const http = clientsFor(ctx).http;
  return async (body, signal) => {
    const chat = responsesToChatParams(body);
    const req: Obj = {};
    for (const k of TOKENIZE_KEYS) if (k in chat && chat[k] !== undefined) req[k] = chat[k];
    const a = await http.exchange(url, { method: "POST", json: req, headers, signal });
    const text = answerText(a);
    if (a.status < 200 || a.status >= 300) throw new InnerServerError(a.status, text, url);
    const tokens = (JSON.parse(text) as { tokens?: unknown }).tokens;
    if (!Array.isArray(tokens)) throw new InnerServerError(a.status, `no tokens list in ${text.slice(0, 200)}`, url);
    return tokens.length;
  };
}
