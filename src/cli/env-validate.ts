/**
 * `gym env validate`: without NAME/--manifest, a full no-model parse of the selected configs
 * that prints `✓ Config is valid.` (cli-config §2.4); with them, static validation of a
 * manifest-backed workload (devtools/manifest-validate.ts).
 */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { UsageError } from "../errors.ts";
import { searchRoots } from "../config/roots.ts";
import { findManifest, validateManifest, type ManifestReport } from "../devtools/manifest-validate.ts";
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
  examples: [
    "gym env validate --resources-server example_single_tool_call",
    "gym env validate --config my_env.yaml --search-dir ./plugins",
    "gym env validate --manifest environments/my_env/manifest.yaml --json",
    "gym env validate my_env --search-dir ./plugins --sync",
  ],
  async run(ctx) {
    const name = typeof ctx.args.name === "string" ? ctx.args.name : undefined;
    const manifest = typeof ctx.args.manifest === "string" ? ctx.args.manifest : undefined;
    if (name && manifest) throw new UsageError("gym env validate: error: select a catalog name or --manifest, not both");
    if (name || manifest) {
      const extra = ctx.data.overrides.map((o) => o.replace(/^[+~]+/, "").split("=")[0]!);
      if (extra.length) throw new UsageError(`Manifest-backed commands do not accept runtime config overrides: ${extra.join(", ")}`);
      const dirs = ctx.args["search-dir"];
      const searchDirs = Array.isArray(dirs) ? dirs : typeof dirs === "string" ? [dirs] : [];
      const path = manifest ?? findManifest(name!, typeof ctx.args.kind === "string" ? ctx.args.kind : undefined, await searchRoots({ searchDirs }));
      const report = await validateManifest({ manifestPath: path, sync: ctx.args.sync === true, searchDirs });
      process.stdout.write(ctx.args.json === true ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
      return 0;
    }
    await resolveGlobalConfig({ selectors: selectorArgs(ctx.args), overrides: commandOverrides(ctx), noModel: true, offline: true });
    process.stdout.write("✓ Config is valid.\n");
    return 0;
  },
});

/** The human report of a valid manifest. */
function renderReport(r: ManifestReport): string {
  const lines = [`✓ Manifest is valid: ${r.name} ${r.version} (${r.kind}, ${r.declared_profile})`, `  manifest ${r.manifest_path}`, `  config   ${r.config_path}`];
  for (const d of r.datasets) lines.push(`  dataset  ${d.name} (${d.type}): ${d.rows} rows in ${d.path}${d.prompt_config ? `, prompt ${d.prompt_config}` : ""}`);
  if (r.synchronized_fields.length) lines.push(`  synced   ${r.synchronized_fields.join(", ")} (from config.yaml)`);
  for (const w of r.warnings) lines.push(`  warning: ${w}`);
  return `${lines.join("\n")}\n`;
}
