/**
 * How a WorkBench tool is declared: its Python owner (for TypeError texts), its keyword parameters
 * with their defaults, and its body over the session's tables. `callTool` is Python's
 * `function(**args)`: an unknown keyword raises TypeError, a missing one takes its default.
 */
import { PyError } from "./py-ops.ts";
import type { Table } from "./table.ts";

/** Every table a session owns (one copy per seeded session, as upstream's `get_tools`). */
export interface WorkplaceState {
  emails: Table;
  calendar: Table;
  analytics: Table;
  plots: Table;
  tasks: Table;
  crm: Table;
  directory: Table;
}

/** Keyword arguments after defaults are applied. */
export type Args = Record<string, unknown>;

/** One tool. */
export interface ToolDef {
  /** Python class that owns the method (named in TypeError texts). */
  owner: string;
  method: string;
  /** Parameter names with defaults (`undefined` stands for Python's None default). */
  params: Record<string, unknown>;
  run(state: WorkplaceState, args: Args): unknown;
}

/** `function(**args)`: Python's keyword binding, then the body. */
export function bindAndRun(def: ToolDef, state: WorkplaceState, args: Record<string, unknown>): unknown {
  for (const k of Object.keys(args)) {
    if (!Object.hasOwn(def.params, k)) throw new PyError("TypeError", `${def.owner}.${def.method}() got an unexpected keyword argument '${k}'`);
  }
  const bound: Args = {};
  for (const [k, d] of Object.entries(def.params)) bound[k] = Object.hasOwn(args, k) ? args[k] : (d ?? null);
  return def.run(state, bound);
}
