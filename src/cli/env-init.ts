/**
 * `gym env init`: scaffold a resources server (upstream `ng_init_resources_server`), or a
 * manifest-backed environment/benchmark (cli-config §2.4). The flag rules live in
 * devtools/init-plan.ts; the files in devtools/scaffold-files.ts.
 */
import { UsageError } from "../errors.ts";
import { searchRoots } from "../config/roots.ts";
import { scaffoldWorkload } from "../devtools/manifest-scaffold.ts";
import { initPlan, PROFILES } from "../devtools/init-plan.ts";
import { scaffoldResourcesServer } from "../devtools/scaffold.ts";
import { defineGymCommand } from "./_command.ts";

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** The `gym env init` command. */
export default defineGymCommand({
  meta: { name: "init", description: "Scaffold a resources server, environment or benchmark" },
  args: {
    "resources-server": { type: "string", valueHint: "name", description: "Create resources_servers/<name>/ in the cwd (+entrypoint=resources_servers/<name>)" },
    environment: { type: "string", valueHint: "name", description: "Create environments/<name>/ (manifest, config, data) and its scorer in the cwd" },
    benchmark: { type: "string", valueHint: "name", description: "Create benchmarks/<name>/ (manifest, config, data, prompt, prepare.py) and its scorer" },
    profile: { type: "string", valueHint: "profile", description: `Integration profile: ${PROFILES.join(", ")}` },
    "reuse-verifier": { type: "string", valueHint: "name", description: "Reuse this resources server as the verifier" },
    "reward-range": { type: "string", valueHint: "LOW HIGH", description: "Reward range, two floats" },
    "reward-high": { type: "positional", required: false, description: "HIGH of --reward-range LOW HIGH" },
    "higher-is-better": { type: "boolean", description: "Higher reward is better (+higher_is_better=true)" },
    "lower-is-better": { type: "boolean", description: "Lower reward is better (+higher_is_better=false)" },
  },
  examples: ["gym env init --resources-server my_server", "gym env init --environment my_env --profile custom-gym-verifier", "gym env init --benchmark my_bench --reuse-verifier mcqa --reward-range 0 1 --higher-is-better"],
  async run(ctx) {
    const a = ctx.args;
    const low = str(a["reward-range"]);
    const high = str(a["reward-high"]);
    // argparse's nargs=2: the parser takes LOW as the flag value and HIGH as the next positional.
    if (high !== undefined && low === undefined) throw new UsageError(`gym env init: error: unrecognized arguments: ${high}`);
    if (low !== undefined && high === undefined) throw new UsageError("gym env init: error: argument --reward-range: expected 2 arguments");
    const plan = initPlan({
      resourcesServer: str(a["resources-server"]),
      environment: str(a.environment),
      benchmark: str(a.benchmark),
      profile: str(a.profile),
      reuseVerifier: str(a["reuse-verifier"]),
      rewardRange: low !== undefined && high !== undefined ? [low, high] : undefined,
      higherIsBetter: a["higher-is-better"] === true,
      lowerIsBetter: a["lower-is-better"] === true,
      overrides: ctx.data.overrides,
    });
    if (plan.kind !== "resources_server") {
      const roots = await searchRoots({});
      const r = scaffoldWorkload(plan, { root: process.cwd(), roots });
      if (r.created.length) process.stdout.write(`✓ Created ${r.assetDir}\n${r.created.map((f) => `  ${f}\n`).join("")}`);
      else process.stdout.write(`✓ ${r.assetDir} is already up to date.\n`);
      process.stderr.write(`Next: gym env validate ${plan.name}; gym env test ${plan.name}; gym env publish ${plan.name} (from ${process.cwd()})\n`);
      return 0;
    }
    const result = scaffoldResourcesServer(plan.entrypoint, process.cwd());
    if (!result.created) {
      process.stdout.write(`Folder already exists: ${result.dir}. Exiting init.\n`);
      return 0;
    }
    process.stdout.write(`✓ Created ${result.dir}\n${result.files.map((f) => `  ${f}\n`).join("")}`);
    process.stderr.write(`Next: gym env test --resources-server ${plan.entrypoint.split("/").pop()} (from ${process.cwd()})\n`);
    return 0;
  },
});
