/**
 * Server-sent-event renderings of finished answers (runtime.md §9.1): a chat completion replayed
 * as `chat.completion.chunk` events, and a Responses object synthesised into the Responses
 * streaming events, ending in `response.completed` (or `response.failed` when the backend fails).
 */

type Obj = Record<string, unknown>;


function sseResponse(chunks: string[]): Response {
  return new Response(chunks.join(""), { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } });
}

/** Replay a chat completion as a chunk stream ending in `data: [DONE]`. */
export function chatCompletionSse(chat: Obj): Response {
  const base = { id: chat.id, object: "chat.completion.chunk", created: chat.created, model: chat.model };
  const out: string[] = [];
  for (const c of (chat.choices as Obj[] | undefined) ?? []) {
    const msg = (c.message as Obj | undefined) ?? {};
    const delta: Obj = { role: "assistant" };
    if (msg.content !== undefined && msg.content !== null) delta.content = msg.content;
    if (Array.isArray(msg.tool_calls)) delta.tool_calls = (msg.tool_calls as Obj[]).map((t, index) => ({ index, ...t }));
    out.push(`data: ${JSON.stringify({ ...base, choices: [{ index: c.index ?? 0, delta, finish_reason: null, logprobs: null }] })}\n\n`);
    out.push(`data: ${JSON.stringify({ ...base, choices: [{ index: c.index ?? 0, delta: {}, finish_reason: c.finish_reason ?? "stop", logprobs: null }] })}\n\n`);
  }
  if (chat.usage) out.push(`data: ${JSON.stringify({ ...base, choices: [], usage: chat.usage })}\n\n`);
  out.push("data: [DONE]\n\n");
  return sseResponse(out);
}

/** Run a Responses call and render it as Responses streaming events. */
export async function responsesSse(run: () => Promise<Obj>): Promise<Response> {
  const out: string[] = [];
  let seq = 0;
  const emit = (type: string, data: Obj) => out.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  let resp: Obj;
  try {
    resp = await run();
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    emit("response.failed", { response: { object: "response", status: "failed", output: [], error: { code: "server_error", message: `${err.name}: ${err.message}` } } });
    return sseResponse(out);
  }
  const pending = { ...resp, status: "in_progress", output: [] };
  emit("response.created", { response: pending });
  emit("response.in_progress", { response: pending });
  ((resp.output as Obj[] | undefined) ?? []).forEach((item, output_index) => {
    emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress" } });
    if (item.type === "message") {
      ((item.content as Obj[] | undefined) ?? []).forEach((part, content_index) => {
        if (part.type !== "output_text") return;
        emit("response.content_part.added", { item_id: item.id, output_index, content_index, part: { ...part, text: "" } });
        emit("response.output_text.delta", { item_id: item.id, output_index, content_index, delta: part.text, logprobs: [] });
        emit("response.output_text.done", { item_id: item.id, output_index, content_index, text: part.text, logprobs: [] });
        emit("response.content_part.done", { item_id: item.id, output_index, content_index, part });
      });
    } else if (item.type === "function_call") {
      emit("response.function_call_arguments.delta", { item_id: item.id, output_index, delta: item.arguments });
      emit("response.function_call_arguments.done", { item_id: item.id, output_index, arguments: item.arguments });
    }
    emit("response.output_item.done", { output_index, item });
  });
  emit(resp.status === "incomplete" ? "response.incomplete" : "response.completed", { response: resp });
  return sseResponse(out);
}
