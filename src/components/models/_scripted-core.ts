/**
 * scripted_model's offline answers (D26, components.md §3.10): call the first offered tool
 * with synthesised arguments until a tool result is in the input, then answer with fixed text.
 * Rendered both as a Responses object and as a chat.completion.
 */
import { newId } from "../../servers/ids.ts";
import { synthesize, synthesizeArguments } from "./_synth-args.ts";

type Obj = Record<string, unknown>;

/** The fixed text of every text answer. */
export const SCRIPTED_TEXT = "This is a scripted answer from scripted_model.";

/** Request fields a Responses object echoes. */
const ECHOED = ["background", "instructions", "max_output_tokens", "max_tool_calls", "metadata", "previous_response_id", "prompt", "reasoning", "service_tier", "temperature", "text", "top_logprobs", "top_p", "truncation", "user"];

function words(s: unknown): number {
  if (typeof s !== "string") return 0;
  const t = s.trim();
  return t === "" ? 0 : t.split(/\s+/).length;
}

/** Whitespace-token count of every text in a value (strings in content, arguments, outputs). */
export function countWords(v: unknown): number {
  if (typeof v === "string") return words(v);
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + countWords(x), 0);
  if (v && typeof v === "object") {
    let n = 0;
    for (const [k, x] of Object.entries(v as Obj)) if (["content", "text", "arguments", "output", "summary", "input"].includes(k)) n += countWords(x);
    return n;
  }
  return 0;
}

/** The tool to call: the one `tool_choice` names, else the first function tool. */
function firstFunctionTool(tools: unknown, toolChoice?: unknown): Obj | undefined {
  if (!Array.isArray(tools)) return undefined;
  const fns = (tools as Obj[]).filter((t) => t?.type === "function").map((t) => (t.function as Obj | undefined) ?? t); // chat tools nest under `function`
  const choice = toolChoice as Obj | undefined;
  const named = choice && typeof choice === "object" ? ((choice.function as Obj | undefined)?.name ?? choice.name) : undefined;
  return (named !== undefined ? fns.find((f) => f.name === named) : undefined) ?? fns[0];
}

function hasToolResult(items: unknown): boolean {
  if (!Array.isArray(items)) return false;
  return (items as Obj[]).some((i) => i?.type === "function_call_output" || i?.role === "tool");
}

/** Usage block in the Responses shape (both detail keys present; upstream requires them). */
export function responsesUsage(inputTokens: number, outputTokens: number): Obj {
  return { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: outputTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + outputTokens };
}

/** Wrap output items into a Responses object that echoes the request. */
export function responseObject(params: Obj, model: string, output: Obj[], inputTokens: number): Obj {
  const resp: Obj = {
    id: newId("resp"),
    created_at: Math.floor(Date.now() / 1000),
    error: null,
    incomplete_details: null,
    model,
    object: "response",
    output,
    parallel_tool_calls: params.parallel_tool_calls ?? true,
    status: "completed",
    tool_choice: params.tool_choice ?? "auto",
    tools: params.tools ?? [],
    usage: responsesUsage(inputTokens, countWords(output)),
  };
  for (const k of ECHOED) resp[k] = params[k] ?? null;
  return resp;
}

/**
 * The text answer: SCRIPTED_TEXT, or — when the request asks for structured output (chat
 * `response_format` / Responses `text.format` of type json_schema) — a JSON object synthesised from
 * that schema, as a structured-output endpoint would return (servers like bbq parse it strictly).
 */
export function scriptedText(params: Obj): string {
  const chat = params.response_format as Obj | undefined;
  const responses = (params.text as Obj | undefined)?.format as Obj | undefined;
  const schema = chat?.type === "json_schema" ? (chat.json_schema as Obj | undefined)?.schema : responses?.type === "json_schema" ? responses.schema : undefined;
  return schema && typeof schema === "object" ? JSON.stringify(synthesize(schema)) : SCRIPTED_TEXT;
}

/** The scripted answer to a Responses create-params body. */
export function scriptedResponse(params: Obj, model: string): Obj {
  const input = typeof params.input === "string" ? [{ role: "user", content: params.input }] : ((params.input as Obj[] | undefined) ?? []);
  const tool = firstFunctionTool(params.tools, params.tool_choice);
  const inputTokens = countWords(input) + words(params.instructions);
  let output: Obj[];
  if (tool && params.tool_choice !== "none" && !hasToolResult(input)) {
    const callId = newId("call");
    output = [{ type: "function_call", id: callId, call_id: callId, name: tool.name, arguments: synthesizeArguments(tool.parameters), status: "completed" }];
  } else {
    output = [{ id: newId("msg"), type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: scriptedText(params), annotations: [] }] }];
  }
  return responseObject(params, model, output, inputTokens);
}

/** The scripted answer to a chat create-params body, as a `chat.completion`. */
export function scriptedChatCompletion(params: Obj, model: string): Obj {
  const messages = (params.messages as Obj[] | undefined) ?? [];
  const tool = firstFunctionTool(params.tools, params.tool_choice);
  const promptTokens = countWords(messages);
  let message: Obj;
  let finish: string;
  if (tool && params.tool_choice !== "none" && !hasToolResult(messages)) {
    message = { role: "assistant", content: null, tool_calls: [{ id: newId("call"), type: "function", function: { name: tool.name, arguments: synthesizeArguments(tool.parameters) } }] };
    finish = "tool_calls";
  } else {
    message = { role: "assistant", content: scriptedText(params) };
    finish = "stop";
  }
  const completionTokens = countWords(message.content) + countWords(message.tool_calls);
  const n = typeof params.n === "number" && params.n > 1 ? params.n : 1;
  return {
    id: newId("chatcmpl"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: Array.from({ length: n }, (_, index) => ({ index, finish_reason: finish, logprobs: null, message })),
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens * n, total_tokens: promptTokens + completionTokens * n },
  };
}
