/**
 * The model server kind (runtime.md §9.1): `/v1/responses` (strict create params),
 * `/v1/chat/completions` (unknown keys dropped) and `/v1/messages` (Anthropic, via Responses),
 * each with a non-streaming core and a buffer-then-replay SSE rendering for `stream: true`.
 * Components supply the backend; with observability on, every call is captured (§14,
 * model-capture.ts) and failures name the model server (failure-origin.ts).
 */
import type { RequestContext, Route, ServerApp } from "../runtime/http/http-types.ts";
import { messagesToResponses, messageSse, messagesValidator, responsesToMessage } from "./anthropic-messages.ts";
import type { CaptureDialect, CaptureNote, ModelCallCapture } from "./model-capture.ts";
import { ChatCompletionCreateParams, ResponseCreateParams } from "./openai-schemas.ts";
import { chatCompletionSse, responsesSse } from "./sse.ts";
import { tagServerFailure } from "./failure-origin.ts";
import { bodyValidator } from "./validation.ts";
import type { CaptureContext, TokenCapture } from "./token-capture/capture.ts";

type Obj = Record<string, unknown>;

/** What a model component implements. */
export interface ModelBackend {
  /** Answer a validated Responses create-params body (keys as sent). */
  responses(params: Obj, ctx: RequestContext): Promise<Obj>;
  /** Answer a validated chat create-params body. */
  chatCompletions(params: Obj, ctx: RequestContext): Promise<Obj>;
  /** Model ids for `GET /v1/models`, when the component lists them. */
  models?(): string[];
  /** Release resources at shutdown. */
  close?(): void | Promise<void>;
}

const responsesValidator = bodyValidator(ResponseCreateParams, { withUrl: true });
const chatValidator = bodyValidator(ChatCompletionCreateParams);
const CHAT_KEYS = new Set([
  ...Object.keys(ChatCompletionCreateParams.properties),
  "audio", "frequency_penalty", "function_call", "functions", "logit_bias", "modalities", "prediction", "presence_penalty",
  "reasoning_effort", "response_format", "seed", "service_tier", "stop", "store", "stream_options", "user", "web_search_options",
  "verbosity", "prompt_cache_key", "safety_identifier",
]);

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

async function handleResponses(backend: ModelBackend, ctx: RequestContext, note: CaptureNote): Promise<unknown> {
  const body = ctx.body;
  if (isObject(body) && body.stream === true) {
    const { stream: _s, stream_options: _o, ...rest } = body;
    const params = responsesValidator.parse(rest);
    return responsesSse(async () => {
      try {
        return (note.response = await backend.responses(params, ctx));
      } catch (e) {
        note.failure = e;
        throw e;
      }
    });
  }
  return backend.responses(responsesValidator.parse(body), ctx);
}

async function handleChat(backend: ModelBackend, ctx: RequestContext, note: CaptureNote): Promise<unknown> {
  const body = ctx.body;
  const streaming = isObject(body) && body.stream === true;
  let params = body;
  if (isObject(body)) {
    // Upstream's chat model ignores unknown keys (no extra="forbid"); stream keys are handled here.
    params = Object.fromEntries(Object.entries(body).filter(([k]) => CHAT_KEYS.has(k) && k !== "stream" && k !== "stream_options"));
  }
  const valid = chatValidator.parse(params);
  if (streaming) return chatCompletionSse((note.response = await backend.chatCompletions(valid, ctx)) as Obj);
  return backend.chatCompletions(valid, ctx);
}

async function handleMessages(backend: ModelBackend, ctx: RequestContext, note: CaptureNote): Promise<unknown> {
  const req = messagesValidator.parse(ctx.body);
  const params = responsesValidator.parse(messagesToResponses(req));
  const msg = responsesToMessage(await backend.responses(params, ctx));
  if (req.stream !== true) return msg;
  note.response = msg;
  return messageSse(msg);
}

type Handler = (backend: ModelBackend, ctx: RequestContext, note: CaptureNote) => Promise<unknown>;

/** The backend seen by one training-captured call: its complete answers are recorded before any rendering drops the token fields. */
function capturingBackend(backend: ModelBackend, tokens: TokenCapture, c: CaptureContext): ModelBackend {
  return {
    responses: async (params, ctx) => {
      const r = await backend.responses(params, ctx);
      await tokens.capture(c, r);
      return r;
    },
    chatCompletions: async (params, ctx) => {
      const r = await backend.chatCompletions(params, ctx);
      await tokens.capture(c, r);
      return r;
    },
  };
}

/**
 * Build a model server around a backend (`capture`: the §14 store when observability is on;
 * `tokens`: training-token capture when `token_id_capture.enabled`).
 */
export function modelServerApp(opts: { className: string; instanceName: string; backend: ModelBackend; capture?: ModelCallCapture; tokens?: TokenCapture }): ServerApp {
  const { backend, capture, tokens } = opts;
  const modelRoute = (path: string, dialect: CaptureDialect, handle: Handler): Route => ({
    method: "POST",
    path,
    capturesTokens: true,
    handler: async (ctx) => {
      const c = tokens && ctx.trainingTokenCapture ? await tokens.begin(ctx) : undefined;
      const be = c ? capturingBackend(backend, tokens!, c) : backend;
      const run = (note: CaptureNote) => tagServerFailure(() => handle(be, ctx, note), opts.className, opts.instanceName);
      return capture ? capture.around(ctx, dialect, run, c?.modelCallId) : run({});
    },
  });
  const routes: Route[] = [
    modelRoute("/v1/responses", "responses", handleResponses),
    modelRoute("/v1/chat/completions", "chat", handleChat),
    modelRoute("/v1/messages", "messages", handleMessages),
  ];
  if (backend.models) {
    const ids = backend.models();
    routes.push({ method: "GET", path: "/v1/models", handler: () => ({ object: "list", data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "gym" })) }) });
  }
  return {
    className: opts.className,
    instanceName: opts.instanceName,
    routes,
    sessions: true,
    rolloutPrefix: "model",
    uncapturedTrainingCall: tokens ? (id, what) => tokens.unobserved(id, what) : undefined,
    close: backend.close ? () => backend.close!() : undefined,
  };
}
