/**
 * Responses create params → Chat Completions create params (runtime.md §9.3, upstream
 * `responses_to_chat_completion_create_params`). Pure: no config, no I/O; vllm-preprocess.ts
 * applies the model server's config afterwards.
 */
import { pyError } from "./py-error.ts";

type Item = Record<string, unknown>;
type ChatMessage = Record<string, unknown>;

/** Raised for input the chat dialect cannot express (upstream raises NotImplementedError → 500). */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NotImplementedError";
  }
}

const TOKEN_KEYS = ["prompt_token_ids", "generation_token_ids", "generation_log_probs", "routed_experts"] as const;

function userPart(part: Item): Item {
  switch (part.type) {
    case "input_text":
      return { type: "text", text: part.text };
    case "input_image":
      return { type: "image_url", image_url: { url: part.image_url ?? part.url, detail: part.detail ?? "auto" } };
    case "input_video":
      return { type: "video_url", video_url: { url: part.video_url ?? part.url } };
    default:
      throw new ConversionError(`Content part of type ${JSON.stringify(part.type)} has no Chat Completions representation`);
  }
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === "object" && typeof (p as Item).text === "string" ? (p as Item).text : "")).join("");
  return "";
}

/** Convert one Responses create-params body (keys as sent) into chat create params. */
export function responsesToChatParams(params: Record<string, unknown>): Record<string, unknown> {
  const messages: ChatMessage[] = [];
  const input = typeof params.input === "string" ? [{ type: "message", role: "user", content: [{ type: "input_text", text: params.input }] }] : ((params.input as Item[] | undefined) ?? []);

  let buffer: string | null = null;
  let toolCalls: Item[] = [];
  let tokenCarry: Item = {};
  const flush = () => {
    if (buffer === null && toolCalls.length === 0) return;
    const msg: ChatMessage = { role: "assistant", content: buffer };
    if (toolCalls.length > 0) msg.tool_calls = toolCalls;
    Object.assign(msg, tokenCarry);
    messages.push(msg);
    buffer = null;
    toolCalls = [];
    tokenCarry = {};
  };
  const carryTokens = (item: Item) => {
    for (const k of TOKEN_KEYS) if (item[k] !== undefined) tokenCarry[k] = item[k];
  };
  const appendText = (t: string) => {
    buffer = (buffer ?? "") + t;
  };

  for (const raw of input) {
    const item: Item = raw.type === undefined && raw.role !== undefined ? { ...raw, type: raw.role === "tool" ? "tool" : "message" } : raw;
    switch (item.type) {
      case "message": {
        if (item.role === "assistant") {
          appendText(textOf(item.content));
          if (Array.isArray(item.tool_calls)) toolCalls.push(...(item.tool_calls as Item[]));
          carryTokens(item);
          break;
        }
        flush();
        const content = typeof item.content === "string" ? item.content : (item.content as Item[]).map(userPart);
        messages.push({ role: item.role, content });
        break;
      }
      case "reasoning": {
        for (const s of (item.summary as Item[] | undefined) ?? []) {
          if (typeof s.text === "string" && s.text !== "") appendText(`<think>${s.text}</think>`);
        }
        carryTokens(item);
        break;
      }
      case "function_call":
        toolCalls.push({ id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } });
        carryTokens(item);
        break;
      case "function_call_output": {
        flush();
        const out = item.output;
        const content = typeof out === "string" ? out : (out as Item[]).map((p) => {
          if (p.type !== "input_text") throw new ConversionError(`function_call_output part of type ${JSON.stringify(p.type)} has no Chat Completions representation`);
          return { type: "text", text: p.text };
        });
        messages.push({ role: "tool", tool_call_id: item.call_id, content });
        break;
      }
      case "tool":
        flush();
        messages.push({ role: "tool", tool_call_id: item.tool_call_id, content: item.content });
        break;
      default:
        throw new ConversionError(`Input item of type ${JSON.stringify(item.type)} has no Chat Completions representation`);
    }
  }
  flush();

  if (typeof params.instructions === "string") {
    const lead: string[] = [];
    while (messages.length > 0 && (messages[0]!.role === "system" || messages[0]!.role === "developer")) lead.push(textOf(messages.shift()!.content));
    messages.unshift({ role: "system", content: [params.instructions, ...lead].join("\n\n") });
  }

  const out: Record<string, unknown> = { messages };
  for (const k of ["model", "temperature", "top_p", "metadata", "top_logprobs", "user", "store", "service_tier"]) {
    if (params[k] !== undefined) out[k] = params[k];
  }
  if (params.max_output_tokens !== undefined) out.max_tokens = params.max_output_tokens;
  const reasoning = params.reasoning as Item | null | undefined;
  if (reasoning && reasoning.effort !== undefined) out.reasoning_effort = reasoning.effort;

  const tools = (params.tools as Item[] | undefined) ?? [];
  if (tools.length > 0) {
    out.tools = tools.map((t) => {
      const fn: Item = { name: t.name };
      if (t.description !== undefined) fn.description = t.description;
      if (t.parameters !== undefined) fn.parameters = t.parameters;
      return { type: "function", function: fn };
    });
    if (params.tool_choice !== undefined) out.tool_choice = params.tool_choice;
    if (params.parallel_tool_calls !== undefined) out.parallel_tool_calls = params.parallel_tool_calls;
  } else if (params.tool_choice === "required") {
    throw pyError("ValueError", "tool_choice is 'required' but no tools were provided");
  }
  return out;
}
