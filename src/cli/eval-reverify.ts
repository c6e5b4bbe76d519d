/** `gym eval reverify`: Recompute rewards from stored rollouts without calling the policy. */
import { configAccess } from "../config/access.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import { isBuiltin } from "../components/registry.ts";
import { checkBuiltinConfigs } from "../components/preflight.ts";
import { ConfigError } from "../errors.ts";
import { setupExporters } from "../export/index.ts";
import { aggregate, groupRollouts } from "../rollout/aggregate.ts";
import { rolloutPaths } from "../rollout/paths.ts";
import { reverify } from "../rollout/reverify.ts";
import { serverAddress } from "../runtime/http/client.ts";
import { Supervisor } from "../runtime/process/supervisor.ts";
import { defineGymCommand, type GymArgDef } from "./_command.ts";
import { flagsToOverrides, policyFlags, policyOverrides, selectorArgs, selectorFlags, type FlagOverride } from "./_flags.ts";

const args: Record<string, GymArgDef> = {
  ...selectorFlags,
  inputs: { type: "string", valueHint: "path", description: "Materialized inputs of the run (+materialized_inputs_jsonl_fpath)" },
  rollouts: { type: "string", valueHint: "path", description: "Stored rollouts to re-verify (+rollouts_jsonl_fpath)" },
  output: { type: "string", alias: "o", valueHint: "path", description: "Where re-verified rollouts go (+output_jsonl_fpath)" },
  concurrency: { type: "string", valueHint: "n", description: "/verify calls in flight (+num_samples_in_parallel)" },
  limit: { type: "string", valueHint: "n", description: "Only the first n rollouts (+limit)" },
  force: { type: "boolean", description: "Re-verify even when a server's reverify_mode is not \"stateless\" (+force)" },
  overwrite: { type: "boolean", description: "Replace an existing output (+overwrite)" },
  resume: { type: "boolean", description: "Skip rollouts already in the output (+resume_from_cache=true)" },
  "disable-aggregation": { type: "boolean", description: "Skip /aggregate_metrics (+disable_aggregation)" },
  "judge-failed-only": { type: "boolean", description: "Re-verify only rollouts whose judge failed; copy the rest (+judge_failed_only)" },
  append: { type: "boolean", description: "Append to an existing output (+append)" },
  ...policyFlags,
};

const table: FlagOverride[] = [
  { flag: "inputs", key: "materialized_inputs_jsonl_fpath" },
  { flag: "rollouts", key: "rollouts_jsonl_fpath" },
  { flag: "output", key: "output_jsonl_fpath" },
  { flag: "concurrency", key: "num_samples_in_parallel" },
  { flag: "limit", key: "limit" },
  { flag: "force", key: "force" },
  { flag: "overwrite", key: "overwrite" },
  { flag: "resume", key: "resume_from_cache" },
  { flag: "disable-aggregation", key: "disable_aggregation" },
  { flag: "judge-failed-only", key: "judge_failed_only" },
  { flag: "append", key: "append" },
  ...policyOverrides,
];

/** The `gym eval reverify` command. */
export default defineGymCommand({
  meta: { name: "reverify", description: "Recompute rewards from stored rollouts without calling the policy" },
  args,
  examples: ["gym eval reverify --resources-server example_single_tool_call --model-type scripted_model --rollouts results/rollouts.jsonl -o results/reverified.jsonl"],
  async run({ args: flags, data }) {
    const overrides = [...flagsToOverrides(flags, table), ...data.overrides];
    const resolved = await resolveGlobalConfig({ selectors: selectorArgs(flags), overrides });
    const dict = resolved.dict;
    const config = configAccess(resolved);
    const read = config.read;
    const str = (k: string, flag: string) => {
      const v = read(k);
      if (typeof v !== "string" || v === "") throw new ConfigError(`${k} is required`, { key: k, hint: `pass ${flag} PATH` });
      return v;
    };
    const rollouts = str("rollouts_jsonl_fpath", "--rollouts");
    const output = str("output_jsonl_fpath", "-o/--output");
    const inputs = read("materialized_inputs_jsonl_fpath");
    const concurrency = Number(read("num_samples_in_parallel") ?? 64);
    if (!Number.isInteger(concurrency) || concurrency <= 0) throw new ConfigError("num_samples_in_parallel must be a positive integer", { key: "num_samples_in_parallel" });
    const limitRaw = read("limit");
    const limit = limitRaw === undefined || limitRaw === null || Number(limitRaw) === 0 ? undefined : Number(limitRaw);
    if (read("append") === true && read("resume_from_cache") === true) throw new ConfigError("--append and --resume cannot be combined", { hint: "--resume already appends, skipping pairs that are done" });

    await import("../components/index.ts");
    const supervisor = new Supervisor({ resolved, isBuiltin, checkConfigs: checkBuiltinConfigs });
    const exporters = await setupExporters(config);
    try {
      await supervisor.start();
      const rsFor = (agent: string): string | undefined => {
        const s = resolved.servers.find((x) => x.name === agent && x.serverType === "responses_api_agents");
        const ref = s ? (config.leaf(s).resources_server as { name?: string } | undefined) : undefined;
        return ref?.name ? serverAddress(dict, ref.name)?.baseUrl : undefined;
      };
      await reverify(
        {
          rollouts,
          inputs: typeof inputs === "string" && inputs !== "" ? inputs : undefined,
          output,
          concurrency,
          limit,
          judgeFailedOnly: read("judge_failed_only") === true,
          force: read("force") === true,
          mode: read("resume_from_cache") === true ? "resume" : read("append") === true ? "append" : "fresh",
          overwrite: read("overwrite") === true,
          timeoutMs: Number(read("request_timeout_seconds") ?? 600) * 1000,
          retryBudgetMs: Number(read("request_retry_budget_seconds") ?? 120) * 1000,
        },
        rsFor,
      );
      if (read("disable_aggregation") !== true) {
        const paths = rolloutPaths(output);
        const { flat } = await aggregate(await groupRollouts([output]), paths.aggregate, (g) => (g.server ? serverAddress(dict, g.server)?.baseUrl : undefined));
        await exporters.logMetrics(flat);
        process.stderr.write(`Aggregate metrics: ${paths.aggregate}\n`);
      }
      return 0;
    } finally {
      await exporters.finish();
      await supervisor.shutdown();
    }
  },
});
