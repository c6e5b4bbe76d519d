/**
 * Built-in components keyed by (server type, implementation) (D13). The child-process entry
 * (cli/internal-serve.ts) looks a component up here and hosts the ServerApp it builds on the
 * runtime's HTTP layer, so runtime/ never imports components/.
 */
import type { ConfigDict, ServerType } from "../config/types.ts";
import type { ServerApp } from "../runtime/http/http-types.ts";

/** What a component factory receives in its child process. */
export interface ComponentContext {
  /** Instance name (NEMO_GYM_CONFIG_PATH). */
  instanceName: string;
  /** This instance's leaf, interpolations resolved, with `name` injected (runtime.md §2.2). */
  config: Record<string, unknown>;
  /** The whole merged config (unresolved), to address other servers by name. */
  globalConfig: ConfigDict;
}

/** A built-in implementation. */
export interface BuiltinComponent {
  serverType: ServerType;
  implementation: string;
  /** Upstream Python class name (cookie names, error bodies). */
  className: string;
  /** Build the server for one instance. */
  create(ctx: ComponentContext): Promise<ServerApp>;
  /**
   * Check an instance's resolved leaf without building anything; throws a ConfigError naming the
   * key. Run by the parent before any process starts, so a bad leaf never surfaces as a child crash.
   */
  checkConfig?(ctx: Pick<ComponentContext, "instanceName" | "config">): void;
}

const table = new Map<string, () => Promise<BuiltinComponent>>();

/** Register a built-in lazily (module loaded only when a process hosts it). */
export function registerBuiltin(serverType: ServerType, implementation: string, load: () => Promise<BuiltinComponent>): void {
  table.set(`${serverType}/${implementation}`, load);
}

/** True when (serverType, implementation) is built in. */
export function isBuiltin(serverType: ServerType, implementation: string): boolean {
  return table.has(`${serverType}/${implementation}`);
}

/** Load a built-in, or undefined when it is not built in (then it may be an external server). */
export async function findBuiltin(serverType: ServerType, implementation: string): Promise<BuiltinComponent | undefined> {
  const load = table.get(`${serverType}/${implementation}`);
  return load ? await load() : undefined;
}

/** Every built-in key, `serverType/implementation`. */
export function builtinKeys(): string[] {
  return [...table.keys()].sort();
}
