/**
 * arc_agi: the answer grid is the first `\boxed{[[…]]}` (else the first bare `[[…]]`) that parses as
 * a non-empty list of lists of integers; reward 1 when it equals the expected grid.
 */
import { pyEqual } from "../../util/py-equal.ts";
import { PY_SPACE_CLASS } from "../../util/py-str.ts";
import { outputItems } from "../tool-calls.ts";

type Obj = Record<string, unknown>;
// Python's \s and \d are Unicode-aware; \d beyond ASCII never survives json.loads, so ASCII digits suffice.
const S = `[${PY_SPACE_CLASS}]`;
const BOXED = new RegExp(String.raw`\\boxed\{(\[${S}*\[[\d${PY_SPACE_CLASS},\[\]]+\]${S}*\])\}`, "g");
const BARE = new RegExp(String.raw`\[${S}*\[[\d${PY_SPACE_CLASS},\[\]]+\]${S}*\]`, "g");
const SPACES = new RegExp(`${S}+`, "g");

/** The assistant messages' text parts joined by newlines and stripped (upstream's _extract_assistant_text). */
export function assistantText(response: unknown): string {
  const texts: string[] = [];
  for (const o of outputItems(response)) {
    if (o.type !== "message" || o.role !== "assistant") continue;
    if (Array.isArray(o.content)) {
      for (const p of o.content as Obj[]) if (p && typeof p.text === "string") texts.push(p.text);
    } else if (typeof o.content === "string") texts.push(o.content);
  }
  return texts.join("\n").replace(new RegExp(`^${S}+|${S}+$`, "g"), "");
}

/** The predicted grid, or null when no candidate parses. */
export function parseGrid(text: string): number[][] | null {
  let cands = [...text.matchAll(BOXED)].map((m) => m[1]!);
  if (cands.length === 0) cands = [...text.matchAll(BARE)].map((m) => m[0]);
  for (const c of cands) {
    let grid: unknown;
    try {
      grid = JSON.parse(c.replace(SPACES, ""));
    } catch {
      continue;
    }
    if (Array.isArray(grid) && grid.length > 0 && grid.every((r) => Array.isArray(r) && r.every((x) => Number.isInteger(x))) && (grid[0] as unknown[]).length > 0) return grid as number[][];
  }
  return null;
}

/** arc_agi's verify fields. */
export function gradeArcGrid(response: unknown, expected: unknown): { reward: number; predicted_output: number[][] | null; extraction_successful: boolean } {
  const grid = parseGrid(assistantText(response));
  return { reward: grid !== null && pyEqual(grid, expected) ? 1.0 : 0.0, predicted_output: grid, extraction_successful: grid !== null };
}
