/** `gym eval prepare`: Prepare benchmark data (components §3.9). */
import { configAccess } from "../config/access.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import { ConfigError } from "../errors.ts";
import { benchmarkJobs, prepareBenchmarks } from "../dataset/prepare.ts";
import { defineGymCommand } from "./_command.ts";
import { selectorArgs, selectorFlags } from "./_flags.ts";

/** The `gym eval prepare` command. */
export default defineGymCommand({
  meta: { name: "prepare", description: "Prepare benchmark data" },
  args: { config: selectorFlags.config!, benchmark: selectorFlags.benchmark!, "search-dir": selectorFlags["search-dir"]! },
  examples: ["gym eval prepare --benchmark gsm8k", "gym eval prepare --benchmark aime24 +use_cached_prepared_benchmarks=true"],
  async run({ args: flags, data }) {
    const resolved = await resolveGlobalConfig({ selectors: selectorArgs(flags), overrides: data.overrides, noModel: true });
    const read = configAccess(resolved).read;
    const processes = Number(read("num_prepare_benchmark_processes") ?? 1);
    if (!Number.isInteger(processes) || processes < 1) throw new ConfigError("num_prepare_benchmark_processes must be an integer ≥ 1", { key: "num_prepare_benchmark_processes" });
    const args = read("prepare_script_args") ?? {};
    if (typeof args !== "object" || Array.isArray(args) || args === null) throw new ConfigError("prepare_script_args must be a mapping", { key: "prepare_script_args" });
    const python = read("python_executable");
    await prepareBenchmarks(benchmarkJobs(resolved), {
      useCached: read("use_cached_prepared_benchmarks") === true,
      processes,
      args: args as Record<string, unknown>,
      python: typeof python === "string" && python !== "" ? python : "python3",
      cwd: process.cwd(),
    });
    return 0;
  },
});
