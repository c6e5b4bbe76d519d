/**
 * The `/v1/messages` route of model servers (runtime.md §9.1): an Anthropic Messages request is
 * converted to Responses create params, answered by the server's `responses()`, and converted
 * back (as Anthropic's SSE events when `stream` is true).
 */
import Type from "typebox";
import { newId } from "./ids.ts";
import { bodyValidator } from "./validation.ts";

type Obj = Record<string, unknown>;

/** Anthropic Messages create params (the fields gym reads; others are ignored). */
export const MessagesCreateParams = Type.Object(
  {
    model: Type.Optional(Type.String()),
    max_tokens: Type.Integer(),
    messages: Type.Array(Type.Object({ role: Type.Union([Type.Literal("user"), Type.Literal("assistant")]), content: Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.String() }))]) })),
    system: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.String() }))])),
    tools: Type.Optional(Type.Array(Type.Object({ name: Type.String() }))),
    tool_choice: Type.Optional(Type.Object({ type: Type.String() })),
    temperature: Type.Optional(Type.Number()),
    top_p: Type.Optional(Type.Number()),
    stream: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

/** Validator of `/v1/messages` bodies (FastAPI-shaped 422s). */
export const messagesValidator = bodyValidator(MessagesCreateParams);

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Obj[]).map((b) => (b.type === "text" ? String(b.text ?? "") : "")).join("");
}

/** Anthropic Messages request → Responses create params. */
export function messagesToResponses(req: Obj): Obj {
  const input: Obj[] = [];
  for (const m of req.messages as Obj[]) {
    const blocks: Obj[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Obj[]);
    for (const b of blocks) {
      if (b.type === "text") {
        input.push(m.role === "user" ? { type: "message", role: "user", content: [{ type: "input_text", text: b.text }] } : { type: "message", role: "assistant", content: [{ type: "output_text", text: b.text, annotations: [] }] });
      } else if (b.type === "tool_use") {
        input.push({ type: "function_call", call_id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) });
      } else if (b.type === "tool_result") {
        input.push({ type: "function_call_output", call_id: b.tool_use_id, output: textOf(b.content) });
      } else if (b.type === "thinking") {
        input.push({ type: "reasoning", id: newId("rs"), summary: [{ type: "summary_text", text: String(b.thinking ?? "") }] });
      } else if (b.type === "image") {
        const src = (b.source ?? {}) as Obj;
        const url = src.type === "base64" ? `data:${String(src.media_type)};base64,${String(src.data)}` : String(src.url ?? "");
        input.push({ type: "message", role: "user", content: [{ type: "input_image", image_url: url, detail: "auto" }] });
      }
    }
  }
  const out: Obj = { input, max_output_tokens: req.max_tokens };
  const system = textOf(req.system);
  if (system !== "") out.instructions = system;
  if (req.model !== undefined) out.model = req.model;
  for (const k of ["temperature", "top_p"]) if (req[k] !== undefined) out[k] = req[k];
  if (Array.isArray(req.tools) && req.tools.length > 0) {
    out.tools = (req.tools as Obj[]).map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.input_schema ?? { type: "object", properties: {} } }));
  }
  const tc = req.tool_choice as Obj | undefined;
  if (tc) out.tool_choice = tc.type === "any" ? "required" : tc.type === "tool" ? { type: "function", name: tc.name } : tc.type;
  return out;
}

/** Responses object → Anthropic Messages response. */
export function responsesToMessage(resp: Obj): Obj {
  const content: Obj[] = [];
  let toolUse = false;
  for (const item of (resp.output as Obj[] | undefined) ?? []) {
    if (item.type === "reasoning") {
      for (const s of (item.summary as Obj[] | undefined) ?? []) content.push({ type: "thinking", thinking: s.text, signature: "" });
    } else if (item.type === "message") {
      const text = ((item.content as Obj[] | undefined) ?? []).map((p) => (p.type === "output_text" ? String(p.text ?? "") : "")).join("");
      if (text !== "") content.push({ type: "text", text });
    } else if (item.type === "function_call") {
      toolUse = true;
      let args: unknown = {};
      try {
        args = JSON.parse(String(item.arguments));
      } catch {
        args = { _raw_arguments: item.arguments };
      }
      content.push({ type: "tool_use", id: item.call_id, name: item.name, input: args });
    }
  }
  const incomplete = (resp.incomplete_details as Obj | null | undefined)?.reason;
  const usage = (resp.usage as Obj | null | undefined) ?? {};
  return {
    id: newId("msg"),
    type: "message",
    role: "assistant",
    model: resp.model,
    content,
    stop_reason: toolUse ? "tool_use" : incomplete === "max_output_tokens" ? "max_tokens" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: usage.input_tokens ?? 0, output_tokens: usage.output_tokens ?? 0 },
  };
}

/** A Messages response replayed as Anthropic's streaming events. */
export function messageSse(msg: Obj): Response {
  const out: string[] = [];
  const emit = (type: string, data: Obj) => out.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  emit("message_start", { message: { ...msg, content: [], stop_reason: null, usage: { input_tokens: (msg.usage as Obj).input_tokens, output_tokens: 0 } } });
  ((msg.content as Obj[]) ?? []).forEach((b, index) => {
    if (b.type === "text") {
      emit("content_block_start", { index, content_block: { type: "text", text: "" } });
      emit("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
    } else if (b.type === "thinking") {
      emit("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
      emit("content_block_delta", { index, delta: { type: "thinking_delta", thinking: b.thinking } });
    } else {
      emit("content_block_start", { index, content_block: { ...b, input: {} } });
      emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    }
    emit("content_block_stop", { index });
  });
  emit("message_delta", { delta: { stop_reason: msg.stop_reason, stop_sequence: null }, usage: { output_tokens: (msg.usage as Obj).output_tokens } });
  emit("message_stop", {});
  return new Response(out.join(""), { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } });
}
