/**
 * vllm_model's `use_completions_api` path (upstream `_chat_completions_via_completions_api`):
 * chat create params → a prompt (raw join or chat template) → a `/v1/completions` body, and the
 * completion answer → a chat completion carrying the training token fields. Pure: no I/O.
 */
import { pyStrRepr } from "../util/py-repr.ts";
import { pyError } from "./py-error.ts";

type Obj = Record<string, unknown>;

/** The config keys the completions path reads. */
export interface CompletionsOptions {
  serverName: string;
  model: string;
  renderChatTemplate: boolean;
  returnTokenIdInformation: boolean;
  chatTemplateKwargs?: Obj | null;
  extraBody?: Obj | null;
  samplingOverrides?: Obj | null;
}

/** Chat keys that keep their name on `/v1/completions`. */
const PASS_THROUGH = ["max_tokens", "temperature", "top_p", "n", "seed", "stop", "frequency_penalty", "presence_penalty", "logit_bias", "response_format", "user"] as const;

/** Python's `repr()` of a JSON value as upstream's messages show it (strings quoted, null → None). */
function pyRepr(v: unknown): string {
  return typeof v === "string" ? pyStrRepr(v) : v === null || v === undefined ? "None" : JSON.stringify(v);
}

/** Python's `type(x).__name__` for a JSON value. */
function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "str";
  return Array.isArray(v) ? "list" : "dict";
}

/** One message's content as flat text; only strings and text blocks are accepted (/v1/completions is text-only). */
export function messageText(message: Obj): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        const type = part && typeof part === "object" ? (part as Obj).type : undefined;
        if (type !== "text" && type !== "input_text") {
          const shown = pyRepr(part && typeof part === "object" && !Array.isArray(part) ? (type ?? null) : pyTypeName(part));
          throw pyError("ValueError", `use_completions_api=true only accepts text content blocks; got block type ${shown} for role=${pyRepr(message.role)}.`);
        }
        const text = (part as Obj).text;
        return typeof text === "string" ? text : "";
      })
      .join("");
  }
  throw pyError("ValueError", `use_completions_api=true requires string or text-block-list content; got ${pyTypeName(content)} for role=${pyRepr(message.role)}.`);
}

/** Raw mode: `[user]` or `[system, user]`, their texts joined by a blank line. */
export function rawPrompt(messages: Obj[]): string {
  if (messages.length === 0) throw pyError("ValueError", "Cannot render an empty messages list to a prompt.");
  if (messages.length > 2) throw pyError("ValueError", `use_completions_api=true accepts at most one system + one user message; got ${messages.length} messages. Render the prompt upstream and submit a single user message.`);
  const roles = messages.map((m) => m.role);
  if (messages.length === 2 && !(roles[0] === "system" && roles[1] === "user")) throw pyError("ValueError", `use_completions_api=true requires the two-message form to be [system, user]; got [${roles.map(pyRepr).join(", ")}].`);
  if (messages.length === 1 && roles[0] !== "user") throw pyError("ValueError", `use_completions_api=true requires a user message; got role=${pyRepr(roles[0])}.`);
  return messages.map(messageText).join("\n\n");
}

/** The JSON object under `metadata[key]` (a JSON-encoded string upstream), or `{}`. */
function metadataJson(metadata: unknown, key: string): Obj {
  const raw = metadata && typeof metadata === "object" ? (metadata as Obj)[key] : undefined;
  if (raw === undefined || raw === null || raw === "") return {};
  if (typeof raw !== "string") throw pyError("ValueError", `metadata.${key} must be a JSON-encoded string, got ${typeof raw}`);
  const v = JSON.parse(raw) as unknown;
  if (!v || typeof v !== "object" || Array.isArray(v)) throw pyError("ValueError", `metadata.${key} is not a JSON object string: ${raw.slice(0, 200)}`);
  return v as Obj;
}

/** Checks before rendering: no tools in raw mode, no audio side-channel in either mode. */
export function checkCompletionsRequest(body: Obj, opts: CompletionsOptions): void {
  const tools = body.tools;
  if (!opts.renderChatTemplate && Array.isArray(tools) && tools.length > 0) {
    throw pyError("ValueError", `NeMo Gym server \`${opts.serverName}\`: tools are not supported with use_completions_api=true and render_chat_template=false. Set render_chat_template=true (so the chat template can render tool definitions into the prompt) or set use_completions_api=false for the standard chat-completions tool-call path.`);
  }
  const metadata = (body.metadata as Obj | null | undefined) ?? {};
  for (const k of ["audio_data", "audio_path", "audio_paths"]) {
    if (metadata[k]) throw pyError("ValueError", `NeMo Gym server \`${opts.serverName}\`: audio metadata ('${k}') is not supported with use_completions_api=true. /v1/completions is text-only.`);
  }
}

/** The template inputs upstream passes: messages unchanged, tools or null, config kwargs under per-request metadata kwargs. */
export function templateInputs(body: Obj, opts: CompletionsOptions): { messages: Obj[]; tools: Obj[] | null; kwargs: Obj } {
  const messages = ((body.messages as Obj[] | undefined) ?? []) as Obj[];
  for (const m of messages) if (m.content !== null && m.content !== undefined) messageText(m);
  const tools = Array.isArray(body.tools) && body.tools.length > 0 ? (body.tools as Obj[]) : null;
  const kwargs = { ...structuredClone(opts.chatTemplateKwargs ?? {}), ...metadataJson(body.metadata, "chat_template_kwargs") };
  return { messages, tools, kwargs };
}

/** The `/v1/completions` body for a chat body and its rendered prompt (sampling_overrides last). */
export function completionBody(chat: Obj, prompt: string, opts: CompletionsOptions): Obj {
  let out: Obj = { model: opts.model, prompt };
  for (const k of PASS_THROUGH) if (k in chat) out[k] = chat[k];
  if (!("max_tokens" in out) && "max_completion_tokens" in chat) out.max_tokens = chat.max_completion_tokens;
  // /v1/completions takes `logprobs` as a top-N count, not a flag.
  if (chat.top_logprobs !== undefined && chat.top_logprobs !== null) out.logprobs = chat.top_logprobs;
  else if (chat.logprobs === true) out.logprobs = 0;
  else if (opts.returnTokenIdInformation && !("logprobs" in out)) out.logprobs = 0;
  if (opts.extraBody) out = { ...structuredClone(opts.extraBody), ...out };
  if (opts.returnTokenIdInformation) {
    out.return_token_ids = true;
    out.return_tokens_as_token_ids = true;
  }
  Object.assign(out, opts.samplingOverrides ?? {});
  if (opts.returnTokenIdInformation && out.n !== undefined && out.n !== null && out.n !== 1) {
    throw pyError("ValueError", `NeMo Gym server \`${opts.serverName}\` requires n=1 when return_token_id_information=true.`);
  }
  return out;
}

function tokenIdOf(token: unknown): number {
  const s = String(token);
  const n = Number(s.startsWith("token_id:") ? s.slice("token_id:".length) : s);
  if (!Number.isInteger(n)) throw pyError("RuntimeError", `choice.logprobs.tokens entry ${JSON.stringify(token)} is not a token id (the engine must run with return_tokens_as_token_ids)`);
  return n;
}

/**
 * Wrap a `/v1/completions` answer as a chat completion. With token ids on, the first choice must
 * carry `prompt_token_ids` (inline or filled in from `/tokenize` by the caller) and per-token logprobs.
 */
export function completionToChat(completion: Obj, opts: CompletionsOptions): Obj {
  const choice = (((completion.choices as Obj[] | undefined) ?? [])[0] ?? {}) as Obj;
  const message: Obj = { role: "assistant", content: typeof choice.text === "string" ? choice.text : "", tool_calls: null };
  if (opts.returnTokenIdInformation) {
    const lp = choice.logprobs as Obj | null | undefined;
    if (!lp || lp.token_logprobs === undefined || lp.token_logprobs === null) {
      throw pyError("RuntimeError", `\`${opts.serverName}\` requested per-token logprobs from vLLM (return_token_id_information=True, logprobs=0), but the response had none (choice.logprobs=${JSON.stringify(lp ?? null)}). Cannot extract token IDs or logprobs.`);
    }
    const inline = choice.token_ids;
    if ((inline === undefined || inline === null) && (lp.tokens === undefined || lp.tokens === null)) {
      throw pyError("RuntimeError", `\`${opts.serverName}\` requested generation token IDs from vLLM, but the response contained neither choice.token_ids nor choice.logprobs.tokens.`);
    }
    const generation = Array.isArray(inline) ? (inline as unknown[]).map(tokenIdOf) : ((lp.tokens as unknown[] | undefined) ?? []).map(tokenIdOf);
    if (!Array.isArray(choice.prompt_token_ids)) throw pyError("RuntimeError", `\`${opts.serverName}\`: the completion carries no prompt_token_ids`);
    Object.assign(message, { prompt_token_ids: choice.prompt_token_ids, generation_token_ids: generation, generation_log_probs: [...(lp.token_logprobs as number[])] });
  }
  const chat: Obj = {
    id: completion.id ?? "chatcmpl-completions",
    object: "chat.completion",
    created: completion.created ?? Math.floor(Date.now() / 1000),
    model: completion.model ?? opts.model,
    choices: [{ index: choice.index ?? 0, finish_reason: choice.finish_reason || "stop", message }],
  };
  if (completion.usage !== undefined && completion.usage !== null) chat.usage = completion.usage;
  return chat;
}
