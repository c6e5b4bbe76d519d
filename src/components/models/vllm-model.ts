/**
 * responses_api_models/vllm_model (runtime.md §9.3–§9.5): Responses → Chat Completions → vLLM →
 * Responses, sticky replica choice per session, the context-overflow → empty `length` answer,
 * and training token fields. The conversions live in servers/vllm-*.ts as pure functions.
 */
import type { RequestContext, ServerApp } from "../../runtime/http/http-types.ts";
import { modelCallCaptureFor } from "../../servers/model-capture.ts";
import { tokenCaptureFor } from "../../servers/token-capture/capture.ts";
import { modelServerApp, type ModelBackend } from "../../servers/model.ts";
import { pyError } from "../../servers/py-error.ts";
import { attachTokenIds } from "../../servers/token-ids.ts";
import { emptyCompletion, isContextOverflow, preprocessChatParams, type VllmPreprocessOptions } from "../../servers/vllm-preprocess.ts";
import { responsesToChatParams } from "../../servers/vllm-request.ts";
import { chatToResponse } from "../../servers/vllm-response.ts";
import { bool, clientsFor, obj, str } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { authHeaders, Endpoint } from "./_endpoint.ts";
import { InnerServerError } from "../../runtime/http/http-types.ts";
import { loadChatTemplate, type ChatTemplate } from "../../servers/chat-template.ts";
import { checkCompletionsRequest, completionBody, completionToChat, rawPrompt, templateInputs, type CompletionsOptions } from "../../servers/vllm-completions.ts";
import { ConfigError } from "../../errors.ts";

const CLASS_NAME = "VLLMModel";
/** The chat-body keys upstream copies into the `/tokenize` call (`_TOKENIZE_CHAT_FIELDS`). */
const TOKENIZE_CHAT_FIELDS = ["model", "messages", "tools", "chat_template_kwargs", "mm_processor_kwargs", "required_prefix_token_ids"] as const;
type Obj = Record<string, unknown>;

/** The replica index for a session: `uint64_be(sha256(session_id)[0:8]) mod n` (§9.3). */
export function replicaIndex(sessionId: string, n: number): number {
  // Bun.CryptoHasher, not node:crypto: that import would load on every CLI start.
  const digest = new Bun.CryptoHasher("sha256").update(sessionId).digest();
  return Number(digest.readBigUInt64BE(0) % BigInt(n));
}

/** vllm_model options from its leaf config. */
export interface VllmOptions extends VllmPreprocessOptions {
  baseUrls: string[];
  apiKey?: string;
  defaultHeaders?: Obj;
  isResponsesNative: boolean;
  sequentialReasoningAllowed: boolean;
  /** `use_completions_api`: call `/v1/completions` with a prompt rendered here. */
  useCompletionsApi: boolean;
  /** `render_chat_template`: render that prompt with the tokenizer's chat template (else raw join). */
  renderChatTemplate: boolean;
  /** `tokenizer` (falls back to `model`): the local tokenizer directory or tokenizer_config.json. */
  tokenizer?: string;
  /** The server instance name (for error messages). */
  serverName: string;
  /** A last step on the chat body after the pre-send step (genrm_model's comparison roles). */
  shapeChatBody?: (body: Obj) => Obj;
}

/** Read vllm_model's leaf config. */
export function vllmOptions(ctx: Pick<ComponentContext, "instanceName" | "config">): VllmOptions {
  const raw = ctx.config.base_url;
  const baseUrls = (Array.isArray(raw) ? raw : [raw]).filter((u) => typeof u === "string" && u !== "") as string[];
  if (baseUrls.length === 0) throw new ConfigError(`${ctx.instanceName}: base_url is not set (a URL or a list of URLs, usually \${policy_base_url})`, { key: "base_url", hint: "set policy_base_url in env.yaml, or pass --model-url URL" });
  const model = str(ctx, "model");
  if (!model) throw new ConfigError(`${ctx.instanceName}: model is not set (usually \${policy_model_name})`, { key: "model", hint: "set policy_model_name in env.yaml, or pass -m/--model NAME" });
  return {
    baseUrls,
    apiKey: str(ctx, "api_key"),
    defaultHeaders: obj(ctx, "default_headers"),
    model,
    returnTokenIdInformation: bool(ctx, "return_token_id_information", false),
    requestPromptAndGenerationTokenIds: bool(ctx, "request_prompt_and_generation_token_ids", false),
    usesReasoningParser: bool(ctx, "uses_reasoning_parser", false),
    usesInterleavedReasoning: bool(ctx, "uses_interleaved_reasoning", true),
    preserveReasoningInAssistantContent: bool(ctx, "preserve_reasoning_in_assistant_content", false),
    replaceDeveloperRoleWithSystem: bool(ctx, "replace_developer_role_with_system", false),
    sequentialReasoningAllowed: bool(ctx, "sequential_reasoning_allowed", true),
    isResponsesNative: bool(ctx, "is_responses_native", false),
    useCompletionsApi: bool(ctx, "use_completions_api", false),
    renderChatTemplate: bool(ctx, "render_chat_template", false),
    tokenizer: str(ctx, "tokenizer"),
    serverName: ctx.instanceName,
    chatTemplateKwargs: obj(ctx, "chat_template_kwargs"),
    extraBody: obj(ctx, "extra_body"),
    samplingOverrides: obj(ctx, "sampling_overrides"),
  };
}

/** The vllm_model backend over a set of endpoints (one per base_url). */
export function vllmBackend(opts: VllmOptions, endpoints: Endpoint[], template?: ChatTemplate): ModelBackend {
  const pick = (ctx: RequestContext) => endpoints[endpoints.length === 1 ? 0 : replicaIndex(ctx.sessionId, endpoints.length)]!;
  const rootOf = (ep: Endpoint) => ep.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
  const prepare = (params: Obj): Obj => {
    const body = preprocessChatParams(params, opts);
    return opts.shapeChatBody ? opts.shapeChatBody(body) : body;
  };
  const copts: CompletionsOptions = { serverName: opts.serverName, model: opts.model, renderChatTemplate: opts.renderChatTemplate, returnTokenIdInformation: !!opts.returnTokenIdInformation, chatTemplateKwargs: opts.chatTemplateKwargs, extraBody: opts.extraBody, samplingOverrides: opts.samplingOverrides };

  // Upstream sends the caller's chat body here without the chat path's pre-send step.
  async function completionsCall(body: Obj, ctx: RequestContext): Promise<Obj> {
    checkCompletionsRequest(body, copts);
    let prompt: string;
    if (opts.renderChatTemplate) {
      if (!template) throw new Error("render_chat_template without a loaded template");
      const { messages, tools, kwargs } = templateInputs(body, copts);
      prompt = template.render(messages, tools, kwargs);
    } else {
      prompt = rawPrompt((body.messages as Obj[] | undefined) ?? []);
    }
    const req = completionBody(body, prompt, copts);
    const ep = pick(ctx);
    const a = await ep.post("/completions", req, ctx.signal);
    if (isContextOverflow(a.status, a.text)) return emptyCompletion("length", opts.model);
    if (a.status < 200 || a.status >= 300) throw new InnerServerError(a.status, a.text, `${ep.baseUrl}/completions`);
    const completion = JSON.parse(a.text) as Obj;
    const choice = ((completion.choices as Obj[] | undefined) ?? [])[0];
    if (opts.returnTokenIdInformation && choice && (choice.prompt_token_ids === undefined || choice.prompt_token_ids === null)) {
      const tokBody: Obj = { model: opts.model, prompt };
      if ("add_special_tokens" in req) tokBody.add_special_tokens = req.add_special_tokens;
      const tok = await ep.withBase(rootOf(ep)).postOk("/tokenize", tokBody, ctx.signal);
      if (!Array.isArray(tok.tokens)) throw pyError("RuntimeError", `${rootOf(ep)}/tokenize answered without a tokens list`);
      choice.prompt_token_ids = tok.tokens;
    }
    return completionToChat(completion, copts);
  }

  async function chatCall(body: Obj, ctx: RequestContext): Promise<Obj> {
    const ep = pick(ctx);
    const messages = (body.messages as Obj[] | undefined) ?? [];
    const lastMsg = messages[messages.length - 1];
    if (!opts.sequentialReasoningAllowed && lastMsg?.role === "assistant" && !lastMsg.content && !(Array.isArray(lastMsg.tool_calls) && lastMsg.tool_calls.length > 0)) {
      return emptyCompletion("content_filter", opts.model);
    }
    const a = await ep.post("/chat/completions", body, ctx.signal);
    if (isContextOverflow(a.status, a.text)) return emptyCompletion("length", opts.model);
    if (a.status < 200 || a.status >= 300) throw new InnerServerError(a.status, a.text, `${ep.baseUrl}/chat/completions`);
    const chat = JSON.parse(a.text) as Obj;
    if (opts.returnTokenIdInformation) {
      await attachTokenIds(chat, async () => {
        const root = rootOf(ep);
        // Every prompt-affecting key the generation call had, so the ids describe the same prompt.
        const tokBody: Obj = {};
        for (const k of TOKENIZE_CHAT_FIELDS) if (k in body) tokBody[k] = body[k];
        const tok = await ep.withBase(root).postOk("/tokenize", tokBody, ctx.signal);
        if (!Array.isArray(tok.tokens)) throw pyError("RuntimeError", `${root}/tokenize answered without a tokens list`);
        return tok.tokens as number[];
      }, opts.serverName);
    }
    return chat;
  }

  return {
    async responses(params, ctx) {
      if (opts.isResponsesNative) {
        if (opts.returnTokenIdInformation || opts.replaceDeveloperRoleWithSystem || !opts.sequentialReasoningAllowed) {
          throw pyError("NotImplementedError", "return_token_id_information, replace_developer_role_with_system and sequential_reasoning_allowed: false are not supported with is_responses_native");
        }
        const body: Obj = { ...(opts.extraBody ?? {}), ...params, model: opts.model };
        if (opts.chatTemplateKwargs) body.chat_template_kwargs = opts.chatTemplateKwargs;
        Object.assign(body, opts.samplingOverrides ?? {});
        return pick(ctx).postOk("/responses", body, ctx.signal);
      }
      const converted = responsesToChatParams(params);
      const chat = opts.useCompletionsApi ? await completionsCall(converted, ctx) : await chatCall(prepare(converted), ctx);
      return chatToResponse(chat, params, { usesReasoningParser: !!opts.usesReasoningParser, model: opts.model });
    },
    async chatCompletions(params, ctx) {
      if (opts.useCompletionsApi) return completionsCall(params, ctx);
      return chatCall(prepare(params), ctx);
    },
  };
}

/** A vllm_model-shaped server over `opts` (also used by genrm_model and local_vllm_model_proxy). */
export function vllmServerApp(ctx: ComponentContext, opts: VllmOptions, className = CLASS_NAME): ServerApp {
  const http = clientsFor(ctx).http;
  const headers = authHeaders(opts.apiKey, opts.defaultHeaders);
  const endpoints = opts.baseUrls.map((u) => new Endpoint(http, u, headers));
  // Loaded at start so a missing tokenizer or template fails before the first request.
  const template = opts.useCompletionsApi && opts.renderChatTemplate ? loadChatTemplate(opts.tokenizer ?? opts.model, ctx.instanceName, opts.tokenizer ? "tokenizer" : "model (no tokenizer set)") : undefined;
  return modelServerApp({ className, instanceName: ctx.instanceName, capture: modelCallCaptureFor(ctx.globalConfig, ctx.instanceName), tokens: tokenCaptureFor(ctx.globalConfig, ctx.instanceName), backend: vllmBackend(opts, endpoints, template) });
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_models",
  implementation: "vllm_model",
  className: CLASS_NAME,
  async create(ctx) {
    return vllmServerApp(ctx, vllmOptions(ctx));
  },
};
