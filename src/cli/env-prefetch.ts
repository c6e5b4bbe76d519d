/**
 * `gym env prefetch` (cli-config §2.4, §12 item 12): gym builds no venvs (D13), so it runs the
 * full parse and the launch checks of `dry_run`, prints what each server would run, and starts
 * nothing. Built-ins have nothing to build; duplicate server directories are listed once, as
 * upstream skips them. A failing check names the server and exits 1.
 */
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { configAccess } from "../config/access.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { RuntimeError } from "../errors.ts";
import { setVerbose } from "../log.ts";
import { launchProblems } from "../runtime/process/dry-run.ts";
import { defineGymCommand } from "./_command.ts";
import { selectorArgs, selectorFlags } from "./_flags.ts";

function entrypointOf(r: ResolvedConfig, s: ResolvedConfig["servers"][number]): string | undefined {
  const v = configAccess(r).at([s.name, s.serverType, s.implementation, "entrypoint"]);
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** One line per server: what gym would start for it. */
function plan(r: ResolvedConfig, isBuiltin: (t: ResolvedConfig["servers"][number]["serverType"], i: string) => boolean): string[] {
  const python = configAccess(r).globals().python_executable ?? "python3";
  const seenDirs = new Set<string>();
  return r.servers.map((s) => {
    const label = `${s.name} (${s.serverType}/${s.implementation})`;
    if (isBuiltin(s.serverType, s.implementation)) return `${label}: built in, nothing to build`;
    const ep = entrypointOf(r, s);
    if (!s.dir || !ep) return `${label}: external, not launchable (see below)`;
    const dup = seenDirs.has(s.dir);
    seenDirs.add(s.dir);
    const script = isAbsolute(ep) ? ep : join(s.dir, ep);
    const venv = join(s.dir, ".venv", "bin", "python");
    const cmd = ep.endsWith(".py") ? `${existsSync(venv) ? venv : python} ${script}` : script;
    return `${label}: external, would run \`${cmd}\` in ${s.dir}${dup ? " (directory already listed)" : ""}`;
  });
}

/** The `gym env prefetch` command. */
export default defineGymCommand({
  meta: { name: "prefetch", description: "Check that every server of a config can be launched, starting nothing" },
  args: { ...selectorFlags },
  examples: ["gym env prefetch --resources-server example_single_tool_call --model-type scripted_model", "gym env prefetch --config my_env.yaml --search-dir ./plugins"],
  async run(ctx) {
    const overrides = [...(ctx.data.verbose ? ["+verbose=true"] : []), ...ctx.data.overrides];
    const resolved = await resolveGlobalConfig({ selectors: selectorArgs(ctx.args), overrides });
    if (resolved.dict.verbose === true) setVerbose(true);
    await import("../components/index.ts");
    const { isBuiltin } = await import("../components/registry.ts");
    process.stdout.write(plan(resolved, isBuiltin).map((l) => `${l}\n`).join(""));
    const problems = launchProblems(resolved, isBuiltin);
    if (problems.length > 0) throw new RuntimeError(`Prefetch failed to set up ${problems.length} servers:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    process.stderr.write(`Prefetch: all ${resolved.servers.length} servers can be launched; gym builds no venvs, nothing was started.\n`);
    return 0;
  },
});
