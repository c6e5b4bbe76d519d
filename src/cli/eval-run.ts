/** `gym eval run`: Collect rewarded rollouts from a JSONL dataset (runtime §11, cli-config §2.4). */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { configAccess } from "../config/access.ts";
import { resolveInRoots } from "../config/roots.ts";
import { readEnv, type GymEnv } from "../env.ts";
import { log } from "../log.ts";
import { fdBudgetWarning, neededMaxHttpRequests } from "../rollout/capacity.ts";
import { maxInFlight, rolloutConfigFrom, rolloutView, type RolloutConfig } from "../rollout/config.ts";
import { respawnWithFetchCap, watchParent } from "../rollout/respawn.ts";
import { driverOptionsFromEnv, runEval, splitInput, type RunEvalOptions } from "../rollout/run-eval.ts";
import { defineGymCommand, type GymArgDef } from "./_command.ts";
import { flagsToOverrides, policyFlags, policyOverrides, selectorArgs, selectorFlags, type FlagOverride } from "./_flags.ts";
import { existsSync } from "node:fs";
import { ConfigError } from "../errors.ts";
import { isBuiltin } from "../components/registry.ts";

const args: Record<string, GymArgDef> = {
  ...selectorFlags,
  "no-serve": { type: "boolean", description: "Collect against servers already running (found through the head server)" },
  resume: { type: "boolean", description: "Resume an interrupted run (+resume_from_cache=true)" },
  agent: { type: "string", alias: "a", valueHint: "name", description: "Send every row to this agent (+agent_name)" },
  input: { type: "string", alias: "i", valueHint: "path", description: "Input JSONL (+input_jsonl_fpath)" },
  output: { type: "string", alias: "o", valueHint: "path", description: "Output rollouts JSONL (+output_jsonl_fpath)" },
  limit: { type: "string", valueHint: "n", description: "Use only the first n input rows (+limit)" },
  "num-repeats": { type: "string", valueHint: "n|{agent: n, _default: n}", description: "Rollouts per task (+num_repeats)" },
  "prompt-config": { type: "string", valueHint: "path", description: "Build the input from a prompt template (+prompt_config)" },
  concurrency: { type: "string", valueHint: "n", description: "Rollouts in flight at once (+num_samples_in_parallel)" },
  split: { type: "string", valueHint: "train|validation|benchmark|example", description: "Dataset split to prepare in serve mode (+split)" },
  ...policyFlags,
  temperature: { type: "string", valueHint: "t", description: "+responses_create_params.temperature" },
  "top-p": { type: "string", valueHint: "p", description: "+responses_create_params.top_p" },
  "max-output-tokens": { type: "string", valueHint: "n", description: "+responses_create_params.max_output_tokens" },
  "disable-aggregation": { type: "boolean", description: "Skip /aggregate_metrics (for shards; run `gym eval aggregate` later)" },
  "status-port": { type: "string", valueHint: "port", description: "Serve GET /status on 127.0.0.1:PORT (+status_port)" },
};

const table: FlagOverride[] = [
  { flag: "resume", key: "resume_from_cache" },
  { flag: "agent", key: "agent_name" },
  { flag: "input", key: "input_jsonl_fpath" },
  { flag: "output", key: "output_jsonl_fpath" },
  { flag: "limit", key: "limit" },
  { flag: "num-repeats", key: "num_repeats" },
  { flag: "prompt-config", key: "prompt_config" },
  { flag: "concurrency", key: "num_samples_in_parallel" },
  { flag: "split", key: "split" },
  ...policyOverrides,
  { flag: "temperature", key: "responses_create_params.temperature" },
  { flag: "top-p", key: "responses_create_params.top_p" },
  { flag: "max-output-tokens", key: "responses_create_params.max_output_tokens" },
  { flag: "disable-aggregation", key: "disable_aggregation" },
  { flag: "status-port", key: "status_port" },
];

/** 128 + the signal number for a run stopped by SIGINT (130) or SIGTERM (143); other codes unchanged. */
function stoppedCode(code: number, signal: string | undefined): number {
  return code === 130 && signal === "SIGTERM" ? 143 : code;
}

/**
 * Run the use case under SIGINT/SIGTERM (stop admission, shut down) and the parent-death watch.
 * In serve mode the servers start inside the same guard, so a Ctrl+C during start-up still shuts
 * everything down.
 */
async function underSignals(opts: Omit<RunEvalOptions, "stop" | "driver">, env: GymEnv): Promise<number> {
  const stop = new AbortController();
  let signal: string | undefined;
  const onSignal = (sig: string) => {
    signal = sig;
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const unwatch = watchParent(() => process.exit(137));
  try {
    const summary = await runEval({ ...opts, stop: stop.signal, driver: await driverOptionsFromEnv(opts.cfg, opts.resolved, env) });
    return stoppedCode(summary.exitCode, signal);
  } finally {
    unwatch();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** Settle the fetch cap before any work (D16): the number of a re-spawned copy's exit, or undefined to go on here. */
async function respawnIfNeeded(cfg: RolloutConfig, env: GymEnv): Promise<number | undefined> {
  const inFlight = maxInFlight(cfg);
  const cap = neededMaxHttpRequests(inFlight, env.bunMaxHttpRequests);
  if (cap !== undefined && !env.driverRespawned) return respawnWithFetchCap(cap);
  const warn = fdBudgetWarning(inFlight);
  if (warn) log.warn(warn);
  return undefined;
}

/** The `gym eval run` command. */
export default defineGymCommand({
  meta: { name: "run", description: "Collect rewarded rollouts from a JSONL dataset" },
  args,
  examples: [
    "gym eval run --no-serve -i data/example.jsonl -o results/rollouts.jsonl --num-repeats 4 --concurrency 64",
    "gym eval run --benchmark aime24 --split benchmark -o results/aime24/rollouts.jsonl -m my-model --model-url http://localhost:8000/v1",
    "gym eval run --no-serve -i in.jsonl -o out.jsonl --resume",
  ],
  async run({ args: flags, data }) {
    const overrides = [...flagsToOverrides(flags, table), ...data.overrides];
    const noServe = flags["no-serve"] === true;
    const resolved = await resolveGlobalConfig({ selectors: selectorArgs(flags), overrides, noModel: false });
    const view = rolloutView(configAccess(resolved));
    const env = readEnv();

    if (!noServe) {
      // Validate the keys and settle the fetch cap before any work, so a re-spawned copy does it once.
      const { split, outputDir, input } = splitInput(view.split, view.output_jsonl_fpath);
      const cfg = rolloutConfigFrom({ ...view, input_jsonl_fpath: input });
      const respawned = await respawnIfNeeded(cfg, env);
      if (respawned !== undefined) return respawned;
      await import("../components/index.ts");
      return underSignals({ resolved, cfg, serve: { split, outputDir, download: true, isBuiltin, supervisor: { headPortFallback: true } } }, env);
    }

    const cfg = rolloutConfigFrom(view);
    // Input paths resolve through the search roots, then the cwd, then the install root (§11.1).
    const found = resolveInRoots(cfg.input, resolved.roots);
    if (existsSync(found)) cfg.input = found;
    // Fail before contacting any server: a typo in -i should not read as a connection problem.
    else if (!existsSync(cfg.input)) {
      throw new ConfigError(`Input file not found: '${cfg.input}' (input_jsonl_fpath). Searched the cwd and every search root.`, {
        key: "input_jsonl_fpath",
        hint: "check the -i/--input path; relative paths resolve against NEMO_GYM_EXTRA_ROOTS/--search-dir, the cwd, then the built-in root",
      });
    }
    const respawned = await respawnIfNeeded(cfg, env);
    if (respawned !== undefined) return respawned;
    return underSignals({ resolved, cfg }, env);
  },
});
