/** Text views of a Responses object shared by verifiers. */

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
