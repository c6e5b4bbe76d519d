/**
 * The policy's answer as upstream's safety and rubric judges read it: the LAST assistant message
 * whose content is a list (its text parts joined by newlines, even when none has text) or a string.
 * Unlike response-text.ts' lastAssistantText, a list without text ends the search with "".
 */
import { pyStrip } from "../../util/py-str.ts";
import { stripThinkingTraces } from "./omniscience.ts";

type Obj = Record<string, unknown>;

/** Text of the last assistant message (stripped); "" when there is none. */
export function lastAssistantMessageText(response: unknown): string {
  const output = (response as Obj | undefined)?.output;
  const items = (Array.isArray(output) ? output : []) as Obj[];
  for (let i = items.length - 1; i >= 0; i--) {
    const o = items[i];
    if (o?.type !== "message" || o.role !== "assistant") continue;
    if (Array.isArray(o.content)) return pyStrip((o.content as Obj[]).map((c) => c?.text).filter((t): t is string => typeof t === "string").join("\n"));
    if (typeof o.content === "string") return pyStrip(o.content);
  }
  return "";
}

/** The same text with `<think>`/`<thinking>` blocks and an unopened leading trace removed (multichallenge, inverse_if). */
export function answerWithoutThinking(response: unknown): string {
  return stripThinkingTraces(lastAssistantMessageText(response));
}
