/**
 * Chat Completion → Responses object (runtime.md §9.3, upstream `chat_completion_to_response`):
 * reasoning item, then message, then one function_call per tool call; finish_reason → status;
 * usage renamed; the request's sampling and tool fields echoed.
 */
import { newId } from "./ids.ts";
import { pyError } from "./py-error.ts";
import type { ResponseUsage } from "./openai-schemas.ts";

type Obj = Record<string, unknown>;

/** Request fields a Responses object echoes (with upstream defaults for the first three). */
const ECHOED = ["temperature", "top_p", "background", "max_output_tokens", "max_tool_calls", "previous_response_id", "prompt", "reasoning", "service_tier", "text", "top_logprobs", "truncation", "metadata", "instructions", "user"] as const;

/** Options of the conversion (from the model server's config). */
export interface ChatToResponseOptions {
  /** `uses_reasoning_parser`: reasoning arrives as `reasoning_content`/`reasoning` and becomes a reasoning item. */
  usesReasoningParser: boolean;
  /** `config.model`, reported as the response's model. */
  model: string;
}

const THINK = /<think>([\s\S]*?)<\/think>/g;

/** Split `<think>…</think>` spans out of a text: [reasoning texts, remaining text]. */
export function splitThink(text: string): [string[], string] {
  const found: string[] = [];
  const rest = text.replace(THINK, (_m, inner: string) => {
    found.push(inner);
    return "";
  });
  return [found, rest];
}

/** Map a chat `usage` block to the Responses usage shape. */
export function chatUsageToResponses(u: Obj | null | undefined): ResponseUsage | null {
  if (!u) return null;
  const ptd = (u.prompt_tokens_details as Obj | null | undefined) ?? undefined;
  const ctd = (u.completion_tokens_details as Obj | null | undefined) ?? undefined;
  const cached = (ptd?.cached_tokens ?? u.cached_input_tokens ?? u.cache_read_input_tokens ?? null) as number | null;
  const reasoning = (ctd?.reasoning_tokens ?? u.reasoning_output_tokens ?? null) as number | null;
  return {
    input_tokens: (u.prompt_tokens as number) ?? 0,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: (u.completion_tokens as number) ?? 0,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: (u.total_tokens as number) ?? 0,
  };
}

/** Convert the first choice of a chat completion into a Responses object for the given request. */
export function chatToResponse(chat: Obj, request: Obj, opts: ChatToResponseOptions): Obj {
  const choices = (chat.choices as Obj[] | undefined) ?? [];
  const choice = choices[0] ?? { message: { role: "assistant", content: null }, finish_reason: "stop" };
  const message = { ...((choice.message as Obj | undefined) ?? {}) };

  let content = typeof message.content === "string" ? message.content : "";
  const reasoningText = (message.reasoning_content ?? message.reasoning) as string | null | undefined;
  if (reasoningText !== undefined && reasoningText !== null && reasoningText !== "") {
    if (!opts.usesReasoningParser) {
      throw pyError("AssertionError", "Reasoning content was returned by the endpoint, but this model server's config has explicitly been set to not use a reasoning parser (uses_reasoning_parser: false)");
    }
    content = `<think>${reasoningText}</think>${content}`;
  }

  const output: Obj[] = [];
  if (opts.usesReasoningParser) {
    const [thoughts, rest] = splitThink(content);
    if (thoughts.length > 0) {
      output.push({ id: newId("rs"), type: "reasoning", summary: thoughts.map((t) => ({ type: "summary_text", text: t })), status: "completed" });
      content = rest;
    }
  }
  const toolCalls = (message.tool_calls as Obj[] | null | undefined) ?? [];
  if (content !== "" || (output.length === 0 && toolCalls.length === 0)) {
    output.push({ id: newId("msg"), type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: content, annotations: [] }] });
  }
  for (const tc of toolCalls) {
    const fn = (tc.function as Obj | undefined) ?? {};
    output.push({ type: "function_call", id: tc.id, call_id: tc.id, name: fn.name, arguments: fn.arguments ?? "", status: "completed" });
  }
  // Training token fields ride on the last output item of this model call (§9.5).
  if (message.generation_token_ids !== undefined && output.length > 0) {
    const last = output[output.length - 1]!;
    for (const k of ["prompt_token_ids", "generation_token_ids", "generation_log_probs", "routed_experts"]) {
      if (message[k] !== undefined) last[k] = message[k];
    }
  }

  const finish = choice.finish_reason;
  const status = finish === "length" || finish === "content_filter" ? "incomplete" : "completed";
  const incomplete = finish === "length" ? { reason: "max_output_tokens" } : finish === "content_filter" ? { reason: "content_filter" } : null;

  const resp: Obj = {
    id: newId("resp"),
    created_at: (chat.created as number | undefined) ?? Math.floor(Date.now() / 1000),
    error: null,
    incomplete_details: incomplete,
    instructions: null,
    metadata: null,
    model: opts.model,
    object: "response",
    output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    temperature: null,
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    top_p: null,
    status,
    usage: chatUsageToResponses(chat.usage as Obj | undefined),
  };
  for (const k of ECHOED) resp[k] = request[k] ?? resp[k] ?? null;
  return resp;
}
