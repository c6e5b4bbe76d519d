/**
 * The vllm_model pre-send step (runtime.md §9.3 "Pre-send processing"): applies the model
 * server's config to chat create params, in upstream's order, so precedence matches
 * (request keys over `extra_body`, `sampling_overrides` over everything).
 */
import { pyError } from "./py-error.ts";
import { splitThink } from "./vllm-response.ts";

type Obj = Record<string, unknown>;

/** The vllm_model config keys the pre-send step reads. */
export interface VllmPreprocessOptions {
  model: string;
  returnTokenIdInformation?: boolean;
  requestPromptAndGenerationTokenIds?: boolean;
  usesReasoningParser?: boolean;
  usesInterleavedReasoning?: boolean;
  preserveReasoningInAssistantContent?: boolean;
  replaceDeveloperRoleWithSystem?: boolean;
  chatTemplateKwargs?: Obj | null;
  extraBody?: Obj | null;
  samplingOverrides?: Obj | null;
}

function parseMetadataJson(metadata: unknown, key: string): Obj {
  if (!metadata || typeof metadata !== "object") return {};
  const raw = (metadata as Obj)[key];
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "string") throw pyError("ValueError", `metadata.${key} must be a JSON-encoded string, got ${typeof raw}`);
  try {
    const v = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Obj;
  } catch {
    // fall through to the error below
  }
  throw pyError("ValueError", `metadata.${key} is not a JSON object string: ${raw.slice(0, 200)}`);
}

/** Apply the config to chat create params; returns the body to POST to `{base}/chat/completions`. */
export function preprocessChatParams(params: Obj, opts: VllmPreprocessOptions): Obj {
  let body: Obj = { ...params };
  let messages = ((body.messages as Obj[] | undefined) ?? []).map((m) => ({ ...m }));
  if (opts.replaceDeveloperRoleWithSystem) messages = messages.map((m) => (m.role === "developer" ? { ...m, role: "system" } : m));
  body.model = opts.model;

  const ctk = { ...(opts.chatTemplateKwargs ?? {}), ...parseMetadataJson(body.metadata, "chat_template_kwargs") };
  if (Object.keys(ctk).length > 0) body.chat_template_kwargs = ctk;
  const extra = { ...(opts.extraBody ?? {}), ...parseMetadataJson(body.metadata, "extra_body") };

  if (opts.returnTokenIdInformation) {
    body.logprobs = true;
    body.top_logprobs = 0;
    body.return_tokens_as_token_ids = true;
    if (opts.requestPromptAndGenerationTokenIds) body.return_token_ids = true;
  }

  if (opts.usesReasoningParser && !opts.preserveReasoningInAssistantContent) {
    messages = messages.map((m) => {
      if (m.role !== "assistant" || typeof m.content !== "string") return m;
      const [thoughts, rest] = splitThink(m.content);
      if (thoughts.length === 0) return m;
      const out: Obj = { ...m, content: rest };
      if (opts.usesInterleavedReasoning ?? true) {
        out.reasoning_content = thoughts[0];
        out.reasoning = thoughts[0];
      }
      return out;
    });
  }
  body.messages = messages;
  if (body.top_logprobs === null) delete body.top_logprobs;

  body = { ...extra, ...body };
  Object.assign(body, opts.samplingOverrides ?? {});

  if (opts.returnTokenIdInformation && body.n !== undefined && body.n !== null && body.n !== 1) {
    throw pyError("ValueError", `n must be 1 when token ids are requested (return_token_id_information: true), got n=${String(body.n)}`);
  }
  return body;
}

/** An empty completion (upstream answers these instead of calling or instead of a context-overflow 400). */
export function emptyCompletion(finishReason: "length" | "content_filter", model: string): Obj {
  return {
    id: "chtcmpl-123",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, finish_reason: finishReason, message: { role: "assistant", content: null, tool_calls: null } }],
    usage: null,
  };
}

/** True when an upstream 400 body means "prompt too long" (answered as an empty `length` completion). */
export function isContextOverflow(status: number, body: string): boolean {
  return status === 400 && (body.includes("context length") || body.includes("max_tokens"));
}
