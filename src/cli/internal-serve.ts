/**
 * `gym internal serve`: the entry of one server process (D13). Reads NEMO_GYM_CONFIG_DICT /
 * NEMO_GYM_CONFIG_PATH (D3), looks the built-in component up in the registry, and hosts it on the
 * runtime's HTTP layer. `--watchdog` runs the orphan guard for external servers instead.
 */
import { findBuiltin } from "../components/registry.ts";
import { readEnv } from "../env.ts";
import { ConfigError } from "../errors.ts";
import { setVerbose } from "../log.ts";
import { receiveInitialConfig, runChildServer } from "../runtime/process/child.ts";
import { runWatchdog } from "../runtime/process/watchdog.ts";
import { defineGymCommand } from "./_command.ts";

/** The child-process entry of one server. */
export default defineGymCommand({
  meta: { name: "serve", description: "Run one server instance (child process entry)", hidden: true },
  args: {
    "reuse-port": { type: "boolean", description: "Share the port with sibling workers (SO_REUSEPORT)" },
    watchdog: { type: "boolean", description: "Guard external server processes against a dead supervisor" },
    "config-via-ipc": { type: "boolean", description: "Read the initial config from the supervisor over IPC (too large for NEMO_GYM_CONFIG_DICT)" },
  },
  async run(ctx) {
    if (ctx.args.watchdog === true) return await runWatchdog();
    const env = readEnv();
    // A config too large for one environment value comes over IPC instead (runtime/process/spawn.ts).
    if (ctx.args["config-via-ipc"] === true) env.configDict = await receiveInitialConfig();
    if (!env.configDict || !env.configPath) {
      throw new ConfigError("`gym internal serve` needs NEMO_GYM_CONFIG_DICT and NEMO_GYM_CONFIG_PATH in its environment", {
        hint: "this command is started by `gym env start`; run that instead",
      });
    }
    if (env.debug || ctx.data.verbose) setVerbose(true);
    // Registers the built-ins; loaded here so other commands do not pay for it.
    await import("../components/index.ts");
    return await runChildServer({
      instanceName: env.configPath,
      dictYaml: env.configDict,
      reusePort: ctx.args["reuse-port"] === true,
      // Load the component's code while the supervisor is still collecting ports.
      prepare: (cfg) => void findBuiltin(cfg.serverType, cfg.implementation).catch(() => {}),
      async buildApp(cfg) {
        if (cfg.global.verbose === true) setVerbose(true);
        const component = await findBuiltin(cfg.serverType, cfg.implementation);
        if (!component) {
          throw new ConfigError(`server '${env.configPath}': ${cfg.serverType}/${cfg.implementation} is not a built-in component of this gym binary`, {
            hint: "run `gym list` to see the built-ins",
          });
        }
        return await component.create({ instanceName: env.configPath!, config: cfg.leaf, globalConfig: cfg.global });
      },
    });
  },
});
