/**
 * terminus_judge's rule parts (upstream resources_servers/terminus_judge): the two Terminus harness
 * schemas (CommandBatchResponse of terminus_1 and terminus_2, checked as OpenAPI 3.1 / JSON Schema
 * 2020-12), keystroke similarity (difflib ratio of the concatenated keystrokes), the task-complete
 * rule, and the judge verdict reading (last label in the final 200 characters, else the first anywhere).
 */
import { sequenceRatio } from "../../util/py-sequence-matcher.ts";

type Obj = Record<string, unknown>;

const command = (props: Obj, required: string[]): Obj => ({ title: "Command", type: "object", additionalProperties: false, properties: props, required });
const batch = (cmd: Obj, props: Obj, required: string[]): Obj => ({
  title: "CommandBatchResponse",
  type: "object",
  additionalProperties: false,
  definitions: { Command: cmd },
  properties: { ...props, commands: { title: "Commands", type: "array", items: { $ref: "#/definitions/Command" } } },
  required,
});

/** The CommandBatchResponse schema of each harness (descriptions left out: they do not constrain). */
export const TERMINUS_SCHEMAS: Record<string, Obj> = {
  terminus_1: batch(
    command({ keystrokes: { type: "string" }, is_blocking: { type: "boolean" }, timeout_sec: { type: "number" } }, ["keystrokes", "is_blocking", "timeout_sec"]),
    { state_analysis: { type: "string" }, explanation: { type: "string" }, is_task_complete: { type: "boolean" } },
    ["state_analysis", "explanation", "commands", "is_task_complete"],
  ),
  terminus_2: batch(
    command({ keystrokes: { type: "string" }, duration: { type: "number", default: 1.0 } }, ["keystrokes"]),
    { analysis: { type: "string" }, plan: { type: "string" }, task_complete: { type: "boolean", default: false } },
    ["analysis", "plan", "commands"],
  ),
};

/** The `keystrokes` of every command that has one (missing → ""; a command without the key is skipped). */
export function keystrokesOf(d: Obj): string[] {
  const cmds = Array.isArray(d.commands) ? (d.commands as Obj[]) : [];
  return cmds.filter((c) => c && typeof c === "object" && "keystrokes" in c).map((c) => String(c.keystrokes ?? ""));
}

/** Similarity of the concatenated keystroke sequences: 1 when both are empty, 0 when one is. */
export function commandSimilarity(gt: Obj, pred: Obj, separator = ""): number {
  const a = keystrokesOf(gt);
  const b = keystrokesOf(pred);
  if (a.length === 0 && b.length === 0) return 1.0;
  if (a.length === 0 || b.length === 0) return 0.0;
  return sequenceRatio(a.join(separator), b.join(separator));
}

/** When the gold marks the task complete (`task_complete`, else `is_task_complete`), the prediction must too. */
export function taskCompleteOk(pred: Obj, gold: Obj): boolean {
  if ("task_complete" in gold && gold.task_complete) return Boolean(pred.task_complete);
  if ("is_task_complete" in gold && gold.is_task_complete) return Boolean(pred.is_task_complete);
  return true;
}

/** The verdict in a judge's text: `[equal, label]`, label null when neither label occurs. */
export function terminusVerdict(text: string, equal: string, notEqual: string): [boolean, string | null] {
  // Python slices by code point; the labels are ASCII, so slicing code points keeps the same tail.
  const cps = [...text];
  const tail = cps.length > 200 ? cps.slice(-200).join("") : text;
  const e = tail.lastIndexOf(equal);
  const n = tail.lastIndexOf(notEqual);
  if (e >= 0 || n >= 0) return e >= 0 && (n < 0 || e > n) ? [true, equal] : [false, notEqual];
  const e2 = text.indexOf(equal);
  const n2 = text.indexOf(notEqual);
  if (e2 >= 0 && (n2 < 0 || e2 < n2)) return [true, equal];
  if (n2 >= 0) return [false, notEqual];
  return [false, null];
}
