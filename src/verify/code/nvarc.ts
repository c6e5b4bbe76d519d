/**
 * NVARC inductive mode (upstream resources_servers/nvarc `_extract_python_code` / `_execute_python`):
 * the program is the last ```python block of the reply (else the last bare ``` block, else the whole
 * reply when it defines `transform`), run once on the task's test input in a CodeRunner child
 * (nvarc.py: upstream's restricted builtins and imports, an alarm around transform(), the whole run
 * killed at timeout + 5 s). The grid it returns, validated as upstream's Board, is the prediction.
 */
import { translatePyRegex } from "../../util/py-regex.ts";
import { pyStrip } from "../../util/py-str.ts";
import { stripThinking } from "../rules/nvarc.ts";
import type { CodeRunner } from "./runner.ts";

type Grid = number[][];
const all = (p: string) => {
  const t = translatePyRegex(p, { dotAll: true });
  return new RegExp(t.source, `g${t.flags}`);
};
const PYTHON_BLOCK = all("```python\\s*\\n(.*?)```");
const BARE_BLOCK = all("```\\s*\\n(.*?)```");

/** The program in a reply, or null when it has none. */
export function extractTransformCode(reply: string): string | null {
  const text = stripThinking(reply);
  for (const re of [PYTHON_BLOCK, BARE_BLOCK]) {
    const blocks = [...text.matchAll(re)];
    if (blocks.length > 0) return pyStrip(blocks.at(-1)![1]!);
  }
  return text.includes("def transform") ? pyStrip(text) : null;
}

/** What one run gave: the grid, or null with why (kept for the row's record). */
export interface TransformOutcome {
  grid: Grid | null;
  error: string | null;
}

/** Run `transform(grid)` of `code` with a `timeoutSecs` alarm; a killed or crashed child is no grid. */
export async function runTransform(runner: CodeRunner, code: string, grid: Grid, timeoutSecs: number): Promise<TransformOutcome> {
  const r = await runner.runRaw({ kind: "nvarc", code, grid, timeout: timeoutSecs }, timeoutSecs + 5);
  if (!r.answer) return { grid: null, error: r.killed ? `killed after ${timeoutSecs + 5} s` : "the interpreter died" };
  const g = r.answer.grid;
  return Array.isArray(g) ? { grid: g as Grid, error: null } : { grid: null, error: typeof r.answer.error === "string" ? r.answer.error : "transform returned no valid grid" };
}
