/** Shared pieces of the proof servers (imo_gradingbench, math_proof_judgement, imo_proofbench_judge, proof_genselect). */
import { pyStrip } from "../../util/py-str.ts";

type Obj = Record<string, unknown>;
const WIRE = new Set(["responses_create_params", "response", "reward"]);

/** The request's own fields (upstream's extra=allow models dump them back), wire fields left out. */
export function echoFields(body: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(body)) if (!WIRE.has(k)) out[k] = v;
  return out;
}

/** Every assistant `message` item's text (string content, or each part's `text`), joined by newlines and stripped. */
export function assistantMessagesText(response: unknown): string {
  const output = (response as Obj | undefined)?.output;
  const texts: string[] = [];
  for (const item of (Array.isArray(output) ? output : []) as Obj[]) {
    if (item?.type !== "message" || item.role !== "assistant") continue;
    if (typeof item.content === "string") {
      texts.push(item.content);
      continue;
    }
    for (const c of (Array.isArray(item.content) ? item.content : []) as Obj[]) if (typeof c?.text === "string") texts.push(c.text);
  }
  return pyStrip(texts.join("\n"));
}
