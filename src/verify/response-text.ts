/** Text views of a Responses object shared by verifiers. */
import { pyStrip } from "../util/py-str.ts";

type Obj = Record<string, unknown>;

/** Every `output_text` part of every `message` item, joined (the OpenAI SDK's `response.output_text`). */
export function outputText(response: unknown): string {
  const output = (response as Obj | undefined)?.output;
  let text = "";
  for (const item of (Array.isArray(output) ? output : []) as Obj[]) {
    if (item?.type !== "message" || !Array.isArray(item.content)) continue;
    for (const c of item.content as Obj[]) if (c?.type === "output_text" && typeof c.text === "string") text += c.text;
  }
  return text;
}

/** The last assistant message that has text: its text parts (or string content) joined by newlines, stripped; "" when none. */
export function lastAssistantText(response: unknown): string {
  const output = (response as Obj | undefined)?.output;
  const items = (Array.isArray(output) ? output : []) as Obj[];
  for (let i = items.length - 1; i >= 0; i--) {
    const o = items[i]!;
    if (o?.type !== "message" || o.role !== "assistant") continue;
    const texts = Array.isArray(o.content) ? (o.content as Obj[]).map((c) => c?.text).filter((t): t is string => typeof t === "string") : typeof o.content === "string" ? [o.content] : [];
    if (texts.length > 0) return pyStrip(texts.join("\n"));
  }
  return "";
}
