/**
 * `dry_run=true` for `gym env start` (cli-config.md §12 spec default): the launch checks without
 * starting anything. Built-ins must be known; external servers need their directory, entrypoint
 * and interpreter. Every failing server is named, as upstream's "Dry run failed to set up N servers".
 */
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { configAccess } from "../../config/access.ts";
import type { ResolvedConfig, ServerType } from "../../config/types.ts";

/** One line per server that could not be launched; empty when all could. */
export function launchProblems(resolved: ResolvedConfig, isBuiltin: (t: ServerType, impl: string) => boolean): string[] {
  const problems: string[] = [];
  const config = configAccess(resolved);
  const python = config.globals().python_executable ?? "python3";
  for (const s of resolved.servers) {
    if (isBuiltin(s.serverType, s.implementation)) continue;
    const entrypoint = config.at([s.name, s.serverType, s.implementation, "entrypoint"]);
    if (!s.dir) {
      problems.push(`${s.name}: ${s.serverType}/${s.implementation} is not built in and has no directory under the search roots`);
      continue;
    }
    if (typeof entrypoint !== "string" || entrypoint === "") {
      problems.push(`${s.name}: external server in ${s.dir} has no entrypoint`);
      continue;
    }
    const script = isAbsolute(entrypoint) ? entrypoint : join(s.dir, entrypoint);
    if (!existsSync(script)) {
      problems.push(`${s.name}: entrypoint ${script} does not exist`);
      continue;
    }
    if (entrypoint.endsWith(".py") && !existsSync(join(s.dir, ".venv", "bin", "python")) && !(isAbsolute(python) ? existsSync(python) : Bun.which(python))) {
      problems.push(`${s.name}: no ${join(s.dir, ".venv", "bin", "python")} and python_executable '${python}' was not found`);
    }
  }
  return problems;
}
