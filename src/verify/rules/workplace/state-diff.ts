/**
 * WorkBench's verifier (`is_correct`): replay the predicted and the gold actions each on a fresh copy
 * of the tables, skipping any action that raises, then compare the five mutable tables with
 * `DataFrame.equals` after lowercasing every column but status, list_name and board. equals compares
 * the columns, the index labels and the cells (None and NaN alike), so it is reproduced that way.
 */
import { lowerColumn } from "./pandas-str.ts";
import { cellEqual } from "./py-ops.ts";
import type { Table } from "./table.ts";
import { callTool, copyState } from "./tools.ts";
import type { WorkplaceState } from "./tool-def.ts";

/** Columns whose case matters (upstream leaves them as they are). */
const CASE_SENSITIVE = new Set(["status", "list_name", "board"]);

/** The tables the verifier compares, in upstream's order. */
const COMPARED = ["calendar", "emails", "plots", "tasks", "crm"] as const;

/** One action as the verifier reads it: a function_call item or a ground-truth entry. */
export interface Action {
  name?: unknown;
  arguments?: unknown;
}

/** `execute_actions_and_reset_state`: run `actions` in order on a fresh copy; an action that raises is skipped. */
export function replayActions(base: WorkplaceState, actions: readonly unknown[]): WorkplaceState {
  const state = copyState(base);
  for (const action of actions) {
    try {
      if (action === null || typeof action !== "object" || Array.isArray(action)) continue; // action["name"] raises
      const a = action as Action;
      if (typeof a.arguments !== "string" || typeof a.name !== "string") continue; // json.loads / the lookup raise
      const args = JSON.parse(a.arguments) as unknown;
      if (args === null || typeof args !== "object" || Array.isArray(args)) continue; // **args needs a mapping
      callTool(state, a.name, args as Record<string, unknown>);
    } catch {
      // upstream prints the error and goes on with the next action
    }
  }
  return state;
}

function lowered(t: Table): unknown[][] {
  return t.columns.map((c) => {
    const col = t.rows.map((r) => r[c]);
    return CASE_SENSITIVE.has(c) ? col : lowerColumn(col);
  });
}

/** `convert_strs_to_lowercase(a).equals(convert_strs_to_lowercase(b))`. */
export function tablesEqual(a: Table, b: Table): boolean {
  // Both replays left the pristine table (tables are immutable): equal, and its str columns always lowercase.
  if (a === b) return true;
  if (a.columns.length !== b.columns.length || a.columns.some((c, i) => c !== b.columns[i])) return false;
  if (a.index.length !== b.index.length || a.index.some((x, i) => x !== b.index[i])) return false;
  const la = lowered(a);
  const lb = lowered(b);
  return la.every((col, j) => col.every((v, i) => cellEqual(v, lb[j]![i])));
}

/** True when the predicted actions leave the same tables as the gold actions. */
export function sameFinalState(base: WorkplaceState, predicted: readonly unknown[], gold: readonly unknown[]): boolean {
  const p = replayActions(base, predicted);
  const g = replayActions(base, gold);
  return COMPARED.every((k) => tablesEqual(p[k], g[k]));
}
