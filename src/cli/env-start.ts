/**
 * `gym env start`: resolve the config, then run the head server and one process per server until
 * Ctrl+C (cli-config.md §2.4; runtime.md §4). The glue between config/, components/ and runtime/.
 */
import { isBuiltin } from "../components/registry.ts";
import { checkBuiltinConfigs } from "../components/preflight.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import { setVerbose } from "../log.ts";
import { RuntimeError } from "../errors.ts";
import { launchProblems } from "../runtime/process/dry-run.ts";
import { runUntilStopped } from "../runtime/process/run.ts";
import { Supervisor } from "../runtime/process/supervisor.ts";
import { defineGymCommand } from "./_command.ts";
import { policyFlags, selectorArgs, selectorFlags } from "./_flags.ts";
import { commandOverrides } from "./env-resolve.ts";

/** The `gym env start` command. */
export default defineGymCommand({
  meta: { name: "start", description: "Start the head server and every server of a config" },
  args: { ...selectorFlags, ...policyFlags },
  examples: [
    "gym env start --resources-server example_single_tool_call --model-type scripted_model",
    "gym env start --config my-env.yaml ++head_server.port=11001",
  ],
  async run(ctx) {
    const resolved = await resolveGlobalConfig({ selectors: selectorArgs(ctx.args), overrides: commandOverrides(ctx) });
    if (resolved.dict.verbose === true) setVerbose(true);
    await import("../components/index.ts");
    if (resolved.dict.dry_run === true) {
      const problems = launchProblems(resolved, isBuiltin);
      if (problems.length > 0) throw new RuntimeError(`Dry run failed to set up ${problems.length} servers:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
      process.stderr.write(`Dry run: all ${resolved.servers.length} servers can be launched; nothing was started.\n`);
      return 0;
    }
    const sup = new Supervisor({ resolved, isBuiltin, checkConfigs: checkBuiltinConfigs });
    return await runUntilStopped(sup);
  },
});
