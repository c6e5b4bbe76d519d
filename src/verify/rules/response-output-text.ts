/** The assistant text as upstream's rolemrc-family servers read it (spartqa, ragtruth): `response.output_text`, else any message text. */
type Obj = Record<string, unknown>;

/** Every message's output_text parts joined (the SDK's `output_text`); when that is empty, every message's string content or part `text`. */
export function responseOutputText(response: unknown): string {
  const items = (response as Obj | null)?.output;
  const messages = Array.isArray(items) ? (items as Obj[]).filter((i) => i && typeof i === "object" && i.type === "message") : [];
  const ot = messages
    .flatMap((m) => (Array.isArray(m.content) ? (m.content as Obj[]) : []))
    .filter((c) => c && c.type === "output_text" && typeof c.text === "string")
    .map((c) => c.text as string)
    .join("");
  if (ot) return ot;
  const parts: string[] = [];
  for (const m of messages) {
    if (typeof m.content === "string") parts.push(m.content);
    else for (const c of Array.isArray(m.content) ? (m.content as Obj[]) : []) if (c && typeof c.text === "string") parts.push(c.text);
  }
  return parts.join("");
}
