/**
 * finance_agent's pure loop decisions: whether a model failure is a context overflow, which items
 * a model produced, the oldest exchange to drop when the context overflows, and which tool error
 * aborts a rollout (an `error` field naming a configured exception type, in the resources
 * server's double-encoded `{"results": "<json>"}` envelope or flat).
 */
type Obj = Record<string, unknown>;

/** Why the loop ended; recorded on the response so "never submitted" is told apart from "judged wrong". */
export type StopReason = "done_tool" | "max_turns" | "max_time" | "max_output_tokens" | "error";

/** The shapes model servers use to reject a prompt longer than the context window (upstream's list, case-insensitive). */
const CONTEXT_OVERFLOW = new RegExp(
  [
    String.raw`maximum context length is \d+ tokens`,
    String.raw`context length is (?:only )?\d+ tokens`,
    String.raw`maximum input length of \d+ tokens`,
    "Please reduce the length of the input",
    "exceed.* context (limit|window|length)",
    "context window exceeds",
    "exceeds maximum length",
    "too long.*tokens.*maximum",
    String.raw`too large for model with \d+ maximum context length`,
    "longer than the model's context length",
    "too many tokens.*size limit exceeded",
    "prompt is too long",
    "maximum prompt length",
    "input length should be",
    "sent message larger than max",
    "input tokens exceeded",
    "(messages?|total length).*too long",
    "payload.*too large",
    "string too long",
    "input exceeded the context window",
  ].join("|"),
  "i",
);

/** True when the error text says the input exceeded the model's context window. */
export function isContextOverflow(text: string): boolean {
  return CONTEXT_OVERFLOW.test(text);
}

/** True for items a model response produced (reasoning, function calls, assistant messages). */
export function isModelOutput(item: Obj): boolean {
  return item.type === "reasoning" || item.type === "function_call" || (item.type === "message" && item.role === "assistant");
}

/**
 * Drop the oldest exchange: the first run of model items and the tool results / injected
 * messages after it. Unchanged when that would leave nothing (a single exchange).
 */
export function truncateOldestExchange<T extends Obj>(outputs: T[]): T[] {
  if (outputs.length <= 1) return outputs;
  let i = 0;
  while (i < outputs.length && isModelOutput(outputs[i]!)) i++;
  while (i < outputs.length && !isModelOutput(outputs[i]!)) i++;
  return i >= outputs.length ? outputs : outputs.slice(i);
}

function decodedObject(raw: unknown): Obj | undefined {
  if (typeof raw !== "string") return undefined;
  try {
    const v = JSON.parse(raw);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined;
  } catch {
    return undefined;
  }
}

/** The `error` string a tool reply carries (inside a `results` JSON string, or flat), if any. */
export function toolErrorMessage(toolOutput: string): string | undefined {
  const payload = decodedObject(toolOutput);
  if (!payload) return undefined;
  const inner = decodedObject(payload.results);
  if (inner && typeof inner.error === "string") return inner.error;
  return typeof payload.error === "string" ? payload.error : undefined;
}

/** The configured exception type a tool reply's error starts with (`Name:`), if any: that error aborts the rollout. */
export function abortingErrorType(toolOutput: string, types: readonly string[]): string | undefined {
  if (types.length === 0) return undefined;
  const error = toolErrorMessage(toolOutput);
  if (error === undefined) return undefined;
  return types.find((name) => error.startsWith(`${name}:`));
}

/** Python `str(float)` of a seconds value (pydantic made it a float: 300 → "300.0"). */
export function pyFloatSeconds(n: number): string {
  return Number.isInteger(n) ? `${n}.0` : String(n);
}
