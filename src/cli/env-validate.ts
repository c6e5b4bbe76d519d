/**
 * `gym env validate`: without NAME/--manifest, a full no-model parse of the selected configs
 * that prints `✓ Config is valid.` (cli-config §2.4). Manifest validation is not built yet.
 */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { GymError, UsageError, EXIT_USAGE } from "../errors.ts";
import { defineGymCommand } from "./_command.ts";
import { jsonFlag, policyFlags, selectorArgs, selectorFlags } from "./_flags.ts";
import { commandOverrides } from "./env-resolve.ts";

/** The `gym env validate` command. */
export default defineGymCommand({
  meta: { name: "validate", description: "Validate a config (no model needed) or a manifest" },
  args: {
    name: { type: "positional", required: false, description: "Catalog entry to validate (manifest validation)" },
    kind: { type: "string", valueHint: "environment|benchmark", description: "Catalog kind of NAME" },
    manifest: { type: "string", valueHint: "path", description: "Manifest file to validate" },
    sync: { type: "boolean", description: "Update generated manifest fields" },
    ...jsonFlag,
    ...selectorFlags,
    ...policyFlags,
  },
  examples: ["gym env validate --resources-server example_single_tool_call", "gym env validate --config my_env.yaml --search-dir ./plugins"],
  async run(ctx) {
    const name = typeof ctx.args.name === "string" ? ctx.args.name : undefined;
    const manifest = typeof ctx.args.manifest === "string" ? ctx.args.manifest : undefined;
    if (name && manifest) throw new UsageError("gym env validate: error: select a catalog name or --manifest, not both");
    if (name || manifest) {
      throw new GymError("manifest validation (`gym env validate NAME` / `--manifest`) is not implemented yet", {
        code: "E_NOT_IMPLEMENTED",
        exitCode: EXIT_USAGE,
        hint: "run `gym env validate` with --config/--environment/--resources-server to validate a config",
      });
    }
    await resolveGlobalConfig({ selectors: selectorArgs(ctx.args), overrides: commandOverrides(ctx), noModel: true, offline: true });
    process.stdout.write("✓ Config is valid.\n");
    return 0;
  },
});
