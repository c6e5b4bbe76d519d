/** `gym dataset collate`: Collect, validate and merge the datasets of a config (components §4.1). */
import { configAccess } from "../config/access.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import { ConfigError } from "../errors.ts";
import { collate } from "../dataset/collate.ts";
import { defineGymCommand } from "./_command.ts";
import { flagsToOverrides, selectorArgs, selectorFlags } from "./_flags.ts";

/** The `gym dataset collate` command. */
export default defineGymCommand({
  meta: { name: "collate", description: "Collect, validate and merge the datasets of a config" },
  args: {
    config: selectorFlags.config!,
    "resources-server": selectorFlags["resources-server"]!,
    "model-type": selectorFlags["model-type"]!,
    "search-dir": selectorFlags["search-dir"]!,
    mode: { type: "enum", options: ["train_preparation", "example_validation"], description: "Which dataset types to collate (+mode)" },
    "output-dir": { type: "string", valueHint: "dir", description: "Where the collated <type>.jsonl files go (+output_dirpath)" },
    download: { type: "boolean", description: "Download missing datasets (+should_download=true)" },
  },
  examples: ["gym dataset collate --resources-server example_single_tool_call --mode example_validation --output-dir data/collated"],
  async run({ args: flags, data }) {
    const overrides = [
      ...flagsToOverrides(flags, [
        { flag: "mode", key: "mode" },
        { flag: "output-dir", key: "output_dirpath" },
        { flag: "download", key: "should_download" },
      ]),
      ...data.overrides,
    ];
    const resolved = await resolveGlobalConfig({ selectors: selectorArgs(flags), overrides, noModel: true });
    const read = configAccess(resolved).read;
    const mode = read("mode");
    if (mode !== "train_preparation" && mode !== "example_validation") {
      throw new ConfigError(`mode must be train_preparation or example_validation, got ${JSON.stringify(mode ?? null)}`, { key: "mode", hint: "pass --mode" });
    }
    const outputDir = read("output_dirpath");
    if (typeof outputDir !== "string" || outputDir === "") throw new ConfigError("output_dirpath is required", { key: "output_dirpath", hint: "pass --output-dir DIR" });
    const dataSource = read("data_source") ?? "huggingface";
    if (dataSource !== "huggingface" && dataSource !== "gitlab") throw new ConfigError(`data_source must be huggingface or gitlab, got ${JSON.stringify(dataSource)}`, { key: "data_source" });
    await collate(resolved, {
      mode,
      outputDir,
      shouldDownload: read("should_download") === true,
      overwriteConflicts: read("overwrite_metrics_conflicts") === true,
      dataSource,
    });
    return 0;
  },
});
