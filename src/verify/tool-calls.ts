/** Function calls of a Responses object and their arguments, read as upstream's tool-calling verifiers read them. */

type Obj = Record<string, unknown>;

/** One `function_call` output item: its name and raw arguments (a JSON string on the wire). */
export interface FunctionCall {
  name: unknown;
  arguments: unknown;
}

/** The output items of a response (non-arrays read as empty). */
export function outputItems(response: unknown): Obj[] {
  const out = (response as Obj | undefined)?.output;
  return Array.isArray(out) ? (out.filter((x) => x && typeof x === "object") as Obj[]) : [];
}

/** Every `function_call` item, in order. */
export function functionCalls(response: unknown): FunctionCall[] {
  return outputItems(response)
    .filter((o) => o.type === "function_call")
    .map((o) => ({ name: o.name, arguments: o.arguments }));
}

/** `json.loads(s)` or undefined when it is not JSON. */
export function tryJson(s: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(s) };
  } catch {
    return undefined;
  }
}

/** Arguments as an object and whether they were a valid JSON object (a dict passes as is). */
export function argumentsObject(args: unknown): { value: Obj; valid: boolean } {
  if (args && typeof args === "object" && !Array.isArray(args)) return { value: args as Obj, valid: true };
  if (typeof args === "string") {
    const p = tryJson(args);
    if (p && p.value && typeof p.value === "object" && !Array.isArray(p.value)) return { value: p.value as Obj, valid: true };
  }
  return { value: {}, valid: false };
}
