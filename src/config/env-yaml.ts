/**
 * `env.yaml` (cli-config §4.3): the first root that holds one wins (extra roots → cwd → install
 * root); none is fine. Loaded before config_paths is read so it can supply them.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { loadConfigFile, type Layer } from "./load.ts";

/** Absolute path of the env.yaml that applies, or undefined. */
export function findEnvYaml(roots: string[]): string | undefined {
  for (const r of roots) {
    const p = join(r, "env.yaml");
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      // not in this root
    }
  }
  return undefined;
}

/** Load the env.yaml layer (from `explicit` when given), or undefined when there is none. */
export function loadEnvYaml(roots: string[], explicit?: string): Layer | undefined {
  const p = explicit ?? findEnvYaml(roots);
  return p ? loadConfigFile(p) : undefined;
}
