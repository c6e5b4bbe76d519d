/** `gym eval aggregate`: Aggregate metrics over rollout shards (runtime §11.9). */
import { configAccess } from "../config/access.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import { setupServerClient } from "../runtime/http/client.ts";
import { aggregate, groupRollouts } from "../rollout/aggregate.ts";
import { rolloutPaths } from "../rollout/paths.ts";
import { expandShardGlobs, mergeShards } from "../rollout/shards.ts";
import { targetsFromConfig, type RunTargets } from "../rollout/targets.ts";
import { setupExporters } from "../export/index.ts";
import { defineGymCommand } from "./_command.ts";
import { flagsToOverrides, selectorArgs, selectorFlags } from "./_flags.ts";

/** The `gym eval aggregate` command. */
export default defineGymCommand({
  meta: { name: "aggregate", description: "Aggregate metrics over rollout shards" },
  args: {
    config: selectorFlags.config!,
    "input-glob": { type: "string", alias: "i", valueHint: "glob[,glob…]", description: "Rollout shards to aggregate (+input_glob)" },
    output: { type: "string", alias: "o", valueHint: "path", description: "Output rollouts path; metrics go to <stem>_aggregate_metrics.json (+output_jsonl_fpath)" },
  },
  examples: ["gym eval aggregate -i 'results/shard_*.jsonl' -o results/all.jsonl +merge_shards=true"],
  async run({ args: flags, data }) {
    const overrides = [...flagsToOverrides(flags, [{ flag: "input-glob", key: "input_glob", quoted: true }, { flag: "output", key: "output_jsonl_fpath" }]), ...data.overrides];
    const resolved = await resolveGlobalConfig({ selectors: selectorArgs(flags), overrides, noModel: true });
    const dict = resolved.dict;
    const config = configAccess(resolved);
    const read = config.read;
    const glob = read("input_glob");
    if (typeof glob !== "string" || glob.trim() === "") throw new ConfigError("input_glob is required", { key: "input_glob", hint: "pass -i/--input-glob 'results/*.jsonl'" });
    const output = read("output_jsonl_fpath");
    if (typeof output !== "string" || output === "") throw new ConfigError("output_jsonl_fpath is required", { key: "output_jsonl_fpath", hint: "pass -o/--output PATH" });
    const files = expandShardGlobs(glob);
    if (files.length === 0) throw new ConfigError(`input_glob '${glob}' matched no rollout files`, { key: "input_glob" });
    log.info(`aggregating ${files.length} shard(s): ${files.join(", ")}`);
    if (read("merge_shards") === true) {
      const n = await mergeShards(files, output);
      log.info(`merged ${n} rollouts into ${output}`);
    }
    // Servers are optional here: when a head server answers, groups go to their /aggregate_metrics.
    let targets: RunTargets | undefined;
    try {
      targets = targetsFromConfig((await setupServerClient(dict, { waitSeconds: 5 })).config);
    } catch (e) {
      log.warn(`no running servers (${(e as Error).message.split("\n")[0]}); computing the default metrics locally`);
    }
    const groups = await groupRollouts(files);
    const paths = rolloutPaths(output);
    const exporters = await setupExporters(config);
    try {
      const { flat } = await aggregate(groups, paths.aggregate, (g) => {
        if (!targets) return undefined;
        try {
          return g.server ? targets.forServer(g.server).baseUrl : targets.forAgent(g.agent).baseUrl;
        } catch {
          return undefined;
        }
      });
      await exporters.logMetrics(flat);
    } finally {
      await exporters.finish();
    }
    process.stderr.write(`Aggregate metrics: ${paths.aggregate}\n`);
    return 0;
  },
});
