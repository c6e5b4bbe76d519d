/** Reading a judge's answer: its text, and which verdict label it gives first. */

type Obj = Record<string, unknown>;

/**
 * Text of a Responses answer as upstream's judges read it: the LAST output item must be a
 * message and its LAST content part carries the text. Anything else (a reasoning item last,
 * no content) is undefined, which the caller scores as "no verdict", never as a failure.
 */
export function lastMessageText(response: Obj): string | undefined {
  const output = response.output;
  if (!Array.isArray(output) || output.length === 0) return undefined;
  const last = output[output.length - 1] as Obj | undefined;
  if (!last || last.type !== "message") return undefined;
  const content = last.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const part = content[content.length - 1] as Obj | undefined;
  return typeof part?.text === "string" ? part.text : "";
}

/** `choices[0].message.content` of a chat completion ("" when absent). */
export function chatText(completion: Obj): string {
  const choices = completion.choices;
  if (!Array.isArray(choices) || choices.length === 0) return "";
  const content = ((choices[0] as Obj)?.message as Obj | undefined)?.content;
  return typeof content === "string" ? content : "";
}

/**
 * The label that occurs first in `text` (first-label-wins); undefined when none occurs. When two
 * labels start at the same place the longer wins, so "INCORRECT" is not read as "CORRECT" … at
 * the same offset only; a label that is a substring of another (CORRECT inside INCORRECT) must be
 * ordered by the caller's own rule where upstream has one.
 */
export function firstLabel<L extends string>(text: string, labels: readonly L[]): L | undefined {
  let best: { label: L; at: number } | undefined;
  for (const label of labels) {
    if (label === "") continue;
    const at = text.indexOf(label);
    if (at < 0) continue;
    if (!best || at < best.at || (at === best.at && label.length > best.label.length)) best = { label, at };
  }
  return best?.label;
}
