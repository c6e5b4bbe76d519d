/**
 * terminal_multi_harness actions: a chat message, one function call, or a batch of calls — the
 * expected next step of a harness trajectory and what the model did, read from a Responses object.
 */

type Obj = Record<string, unknown>;

/** A chat message. */
export interface MessageAction { type: "message"; content: string }
/** One function call; arguments are the JSON text the model wrote. */
export interface CallAction { type: "function_call"; name: string; arguments: string }
/** Several calls in one step. */
export interface BatchAction { type: "function_call_batch"; calls: CallAction[]; ordered: boolean }
/** Any action. */
export type HarnessAction = MessageAction | CallAction | BatchAction;

/** The action as upstream's pydantic model dumps it: known fields only, a batch's `ordered` defaulting to true. */
export function normalizeAction(a: HarnessAction): HarnessAction {
  const call = (c: CallAction): CallAction => ({ type: "function_call", name: c.name, arguments: c.arguments });
  if (a.type === "message") return { type: "message", content: a.content };
  if (a.type === "function_call") return call(a);
  return { type: "function_call_batch", calls: a.calls.map(call), ordered: a.ordered ?? true };
}

/** A message content's `output_text` texts joined; null when it has none (a plain string is its own text). */
function contentText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const parts = (content as Obj[]).filter((c) => c && typeof c === "object" && c.type === "output_text" && typeof c.text === "string").map((c) => c.text as string);
  return parts.length > 0 ? parts.join("") : null;
}

/**
 * The model's action: its function calls (one, or an ordered batch) win over text; else every assistant
 * message's text joined; else null (reasoning only, or nothing).
 */
export function extractHarnessAction(response: unknown): HarnessAction | null {
  const output = (response as Obj | null)?.output;
  const calls: CallAction[] = [];
  const texts: string[] = [];
  for (const item of (Array.isArray(output) ? output : []) as Obj[]) {
    if (!item || typeof item !== "object") continue;
    if (item.type === "function_call") {
      calls.push({ type: "function_call", name: String(item.name), arguments: String(item.arguments) });
      continue;
    }
    if (item.type === "message" && item.role === "assistant") {
      const t = contentText(item.content);
      if (t !== null) texts.push(t);
    }
  }
  if (calls.length === 1) return calls[0]!;
  if (calls.length > 1) return { type: "function_call_batch", calls, ordered: true };
  return texts.length > 0 ? { type: "message", content: texts.join("") } : null;
}
