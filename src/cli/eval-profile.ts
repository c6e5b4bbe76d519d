/** `gym eval profile`: Reward profile of stored rollouts (upstream `ng_reward_profile`). */
import { existsSync } from "node:fs";
import { configAccess } from "../config/access.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import { ConfigError } from "../errors.ts";
import { rewardProfile } from "../rollout/profile.ts";
import { defineGymCommand } from "./_command.ts";
import { flagsToOverrides } from "./_flags.ts";

/** The `gym eval profile` command. */
export default defineGymCommand({
  meta: { name: "profile", description: "Reward profile of stored rollouts" },
  args: {
    inputs: { type: "string", valueHint: "path", description: "Materialized inputs JSONL of the run (+materialized_inputs_jsonl_fpath)" },
    rollouts: { type: "string", valueHint: "path", description: "Rollouts JSONL of the run (+rollouts_jsonl_fpath)" },
  },
  examples: ["gym eval profile --inputs results/rollouts_materialized_inputs.jsonl --rollouts results/rollouts.jsonl"],
  async run({ args: flags, data }) {
    const overrides = [...flagsToOverrides(flags, [{ flag: "inputs", key: "materialized_inputs_jsonl_fpath" }, { flag: "rollouts", key: "rollouts_jsonl_fpath" }]), ...data.overrides];
    const resolved = await resolveGlobalConfig({ selectors: { configPaths: [], searchDirs: [] }, overrides, noModel: true });
    const read = configAccess(resolved).read;
    const paths: [string, string][] = [
      ["materialized_inputs_jsonl_fpath", "--inputs"],
      ["rollouts_jsonl_fpath", "--rollouts"],
    ];
    const values: string[] = [];
    for (const [key, flag] of paths) {
      const v = read(key);
      if (typeof v !== "string" || v === "") throw new ConfigError(`${key} is required`, { key, hint: `pass ${flag} PATH` });
      if (!existsSync(v)) throw new ConfigError(`Input file not found: '${v}' (${flag}). Check the path is spelled correctly.`, { key });
      values.push(v);
    }
    const r = await rewardProfile(values[0]!, values[1]!, read("allow_partial_rollouts") === true);
    for (const a of r.agents) process.stderr.write(`Agent metrics for ${(a.agent_ref as { name: string }).name}:\n${JSON.stringify(a, null, 2)}\n`);
    process.stderr.write(`Reward profile: ${r.profilingPath}\nAgent metrics: ${r.agentMetricsPath}\n`);
    return 0;
  },
});
