/**
 * Check every built-in instance's config in the parent before any process starts: a leaf its
 * component would reject (Azure without an API version, `max_concurrent_episodes` without
 * `queue_timeout_seconds`) is a config error (exit 2) up front, not a child crash after the
 * other servers came up.
 */
import { resolvedLeaf } from "../config/child.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { ConfigError, ConfigErrors } from "../errors.ts";
import { findBuiltin } from "./registry.ts";
import "./index.ts";

/** Throw a ConfigError (several gathered into ConfigErrors) when a built-in component rejects its leaf. */
export async function checkBuiltinConfigs(resolved: Pick<ResolvedConfig, "dict" | "servers" | "locate">): Promise<void> {
  const errors: ConfigError[] = [];
  for (const s of resolved.servers) {
    const component = await findBuiltin(s.serverType, s.implementation);
    if (!component?.checkConfig) continue;
    try {
      component.checkConfig({ instanceName: s.name, config: resolvedLeaf(resolved.dict, s) });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      if (err.location || !err.key) {
        errors.push(err);
        continue;
      }
      // Leaf keys become full paths with the file position of the value (D12).
      const path = [s.name, s.serverType, s.implementation, ...err.key.split(".")];
      errors.push(new ConfigError(err.message, { key: path.join("."), location: resolved.locate?.(path), hint: err.hint, cause: err }));
    }
  }
  if (errors.length === 1) throw errors[0]!;
  if (errors.length > 1) throw new ConfigErrors(`${errors.length} servers have config errors:`, errors);
}
