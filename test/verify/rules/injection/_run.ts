/** Call one injection tool by name the way the server does (bound arguments, null dropped), returning the raw result. */
import { INJECTION_TOOLS } from "../../../../src/verify/rules/injection/tools.ts";
import { bindArgs, type Env } from "../../../../src/verify/rules/injection/tool-kit.ts";

/** Run tool `name` on `env` with `args`; throws the PyError a bad call raises. */
export function run(env: Env, name: string, args: Record<string, unknown> = {}): any {
  const def = INJECTION_TOOLS.get(name);
  if (!def) throw new Error(`no tool ${name}`);
  const a = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null));
  bindArgs(def, a);
  return def.run(env, a);
}
