/**
 * responses_api_models/inference_provider: any hosted OpenAI-compatible `/v1/chat/completions`
 * (Fireworks, Together, Baseten, DeepInfra, Nebius, Friendli, OpenRouter, HF Inference, Gemini…).
 * Responses → chat with the vLLM converter, `model` forced to the configured one, `extra_body`
 * under the request's keys, a `num_concurrent_requests` cap, and — with `uses_reasoning_parser` —
 * `<think>` spans stripped from the history and the provider's `reasoning_content` folded back
 * into `<think>` tags, so the Responses output carries a reasoning item. No token ids (training
 * needs vllm_model).
 */
import type { RequestContext } from "../../runtime/http/http-types.ts";
import { modelCallCaptureFor } from "../../servers/model-capture.ts";
import { tokenCaptureFor } from "../../servers/token-capture/capture.ts";
import { modelServerApp, type ModelBackend } from "../../servers/model.ts";
import { responsesToChatParams } from "../../servers/vllm-request.ts";
import { chatToResponse, splitThink } from "../../servers/vllm-response.ts";
import { ConfigError } from "../../errors.ts";
import { bool, clientsFor, obj, str } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { authHeaders, Endpoint } from "./_endpoint.ts";

const CLASS_NAME = "InferenceProvider";
type Obj = Record<string, unknown>;

/** inference_provider's leaf config. */
export interface InferenceProviderOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  usesReasoningParser: boolean;
  numConcurrentRequests: number;
  extraBody: Obj;
}

/** Read and check the leaf; a ConfigError naming the key when a required one is missing. */
export function inferenceProviderOptions(ctx: Pick<ComponentContext, "instanceName" | "config">): InferenceProviderOptions {
  const where = `server '${ctx.instanceName}'`;
  const baseUrl = str(ctx, "base_url");
  if (!baseUrl) throw new ConfigError(`${where}: base_url is not set (the provider's OpenAI-compatible /v1 URL)`, { key: "base_url", hint: "set +policy_base_url=https://<provider>/v1, or pick a provider config (e.g. inference_provider/openrouter)" });
  const model = str(ctx, "model");
  if (!model) throw new ConfigError(`${where}: model is not set (the provider's model id)`, { key: "model", hint: "set +policy_model_name=<provider model id>" });
  const n = ctx.config.num_concurrent_requests;
  if (n !== undefined && n !== null && (typeof n !== "number" || !Number.isInteger(n) || n < 1)) {
    throw new ConfigError(`${where}: num_concurrent_requests must be a positive integer, got ${JSON.stringify(n)}`, { key: "num_concurrent_requests" });
  }
  return {
    baseUrl,
    apiKey: str(ctx, "api_key"),
    model,
    usesReasoningParser: bool(ctx, "uses_reasoning_parser", false),
    numConcurrentRequests: typeof n === "number" ? n : 1000,
    extraBody: obj(ctx, "extra_body") ?? {},
  };
}

/** Remove `<think>…</think>` spans from assistant string contents (what the provider must not see again). */
function stripHistoryThinking(messages: unknown): unknown {
  if (!Array.isArray(messages)) return messages;
  return messages.map((m: Obj) => (m && m.role === "assistant" && typeof m.content === "string" ? { ...m, content: splitThink(m.content)[1] } : m));
}

/** Fold `reasoning_content`/`reasoning` of the first choice into `<think>` tags ahead of the content. */
function foldReasoning(chat: Obj): Obj {
  const choice = ((chat.choices as Obj[] | undefined) ?? [])[0];
  const message = choice?.message as Obj | undefined;
  if (!message) return chat;
  const reasoning = (message.reasoning_content || message.reasoning) as string | undefined;
  if (!reasoning) return chat;
  delete message.reasoning_content;
  delete message.reasoning;
  message.content = `<think>${reasoning}</think>${typeof message.content === "string" ? message.content : ""}`;
  return chat;
}

/** The backend over one provider endpoint. */
export function inferenceProviderBackend(opts: InferenceProviderOptions, endpoint: Endpoint): ModelBackend {
  async function chat(params: Obj, ctx: RequestContext): Promise<Obj> {
    let body: Obj = { ...params, model: opts.model };
    body = { ...opts.extraBody, ...body };
    if (opts.usesReasoningParser) body.messages = stripHistoryThinking(body.messages);
    const answer = await endpoint.postOk("/chat/completions", body, ctx.signal);
    return opts.usesReasoningParser ? foldReasoning(answer) : answer;
  }
  return {
    chatCompletions: chat,
    async responses(params, ctx) {
      const answer = await chat(responsesToChatParams(params), ctx);
      const resp = chatToResponse(answer, { ...params, model: opts.model }, { usesReasoningParser: opts.usesReasoningParser, model: opts.model });
      // Upstream stamps the moment the answer was built, not the provider's `created`.
      resp.created_at = Math.floor(Date.now() / 1000);
      return resp;
    },
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_models",
  implementation: "inference_provider",
  className: CLASS_NAME,
  checkConfig: (ctx) => void inferenceProviderOptions(ctx),
  async create(ctx) {
    const opts = inferenceProviderOptions(ctx);
    const endpoint = new Endpoint(clientsFor(ctx).http, opts.baseUrl, authHeaders(opts.apiKey, undefined), opts.numConcurrentRequests);
    return modelServerApp({ className: CLASS_NAME, instanceName: ctx.instanceName, capture: modelCallCaptureFor(ctx.globalConfig, ctx.instanceName), tokens: tokenCaptureFor(ctx.globalConfig, ctx.instanceName), backend: inferenceProviderBackend(opts, endpoint) });
  },
};
