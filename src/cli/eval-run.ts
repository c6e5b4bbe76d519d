/** `gym eval run`: Collect rewarded rollouts from a JSONL dataset (runtime §11, cli-config §2.4). */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { configAccess } from "../config/access.ts";
import { resolveInRoots, searchRoots } from "../config/roots.ts";
import { readEnv, type GymEnv } from "../env.ts";
import { log } from "../log.ts";
import { rolloutConfigFrom, rolloutView } from "../rollout/config.ts";
import { driverOptionsFromEnv, E_STOPPED, runEval, splitInput, type RunEvalOptions } from "../rollout/run-eval.ts";
import { checkInput } from "../rollout/materialize.ts";
import { defineGymCommand, type GymArgDef, type ParsedFlags } from "./_command.ts";
import { flagsToOverrides, policyFlags, policyOverrides, selectorArgs, selectorFlags, type FlagOverride } from "./_flags.ts";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { preparedRoot } from "../assets/embedded.ts";
import { keysOf } from "../dataset/upload-keys.ts";
import { checkBenchmarkRunnable, ensurePrepared } from "../benchmarks/run-check.ts";
import type { BenchmarkDataset } from "../benchmarks/dataset-block.ts";
import { ConfigError, GymError } from "../errors.ts";
import { isBuiltin } from "../components/registry.ts";
import { checkBuiltinConfigs } from "../components/preflight.ts";

const args: Record<string, GymArgDef> = {
  ...selectorFlags,
  "no-serve": { type: "boolean", description: "Collect against servers already running (found through the head server)" },
  resume: { type: "boolean", description: "Resume an interrupted run (+resume_from_cache=true)" },
  overwrite: { type: "boolean", description: "Start over, replacing earlier results at the output path (+overwrite_output=true)" },
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
  { flag: "overwrite", key: "overwrite_output" },
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
 * Run the use case under SIGINT/SIGTERM (stop preparation and admission, shut down). In serve
 * mode the servers start inside the same guard, so a Ctrl+C during start-up still shuts
 * everything down.
 */
async function underSignals(opts: Omit<RunEvalOptions, "stop" | "driver" | "trackers">, env: GymEnv): Promise<number> {
  const stop = new AbortController();
  let signal: string | undefined;
  const onSignal = (sig: string) => {
    signal = sig;
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const driver = await driverOptionsFromEnv(opts.cfg, opts.resolved, env, process.stderr.isTTY === true && !env.testing);
    const summary = await runEval({ ...opts, driver, trackers: true, stop: stop.signal });
    return stoppedCode(summary.exitCode, signal);
  } catch (e) {
    if (!(e instanceof GymError) || e.code !== E_STOPPED) throw e;
    process.stderr.write(`${e.message}.\n`);
    return stoppedCode(130, signal);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * `--benchmark NAME` in serve mode: refuse a benchmark whose server is not built in (before the
 * config pipeline trips over its missing include), and default `--split benchmark` and
 * `-o results/<NAME>/rollouts.jsonl` when they are not given (a gym convenience).
 */
async function benchmarkDefaults(name: string, flags: ParsedFlags, overrides: string[]): Promise<BenchmarkDataset | undefined> {
  await Promise.all([import("../components/index.ts"), import("../benchmarks/index.ts")]);
  const dirs = flags["search-dir"];
  // The prepared-benchmark cache must be a search root before resolution, so data prepared on the spot is found.
  mkdirSync(preparedRoot(), { recursive: true });
  const roots = await searchRoots({ searchDirs: Array.isArray(dirs) ? dirs : typeof dirs === "string" ? [dirs] : [] });
  const d = checkBenchmarkRunnable(name, roots, (impl) => isBuiltin("resources_servers", impl));
  const has = (key: string) => overrides.some((o) => o.replace(/^\+\+?/, "").startsWith(`${key}=`));
  if (!has("split")) overrides.push("+split=benchmark");
  if (!has("output_jsonl_fpath")) {
    overrides.push(`+output_jsonl_fpath=${join("results", name, "rollouts.jsonl")}`);
    log.info(`writing rollouts to ${join("results", name, "rollouts.jsonl")} (pass -o to choose)`);
  }
  return d;
}

/** The `gym eval run` command. */
export default defineGymCommand({
  meta: { name: "run", description: "Collect rewarded rollouts from a JSONL dataset" },
  args,
  examples: [
    "gym eval run --no-serve -i data/example.jsonl -o results/rollouts.jsonl --num-repeats 4 --concurrency 64",
    "gym eval run --resources-server example_multi_step --model-type openai_model --split example -o results/rollouts.jsonl -m my-model --model-url http://localhost:8000/v1",
    "gym eval run --benchmark gsm8k --model-type vllm_model -m my-model --model-url http://localhost:8000/v1",
    "gym eval run --no-serve -i in.jsonl -o out.jsonl --resume",
  ],
  async run({ args: flags, data }) {
    const overrides = [...flagsToOverrides(flags, table), ...data.overrides];
    const noServe = flags["no-serve"] === true;
    const bench = !noServe && typeof flags.benchmark === "string" && flags.benchmark !== "" ? await benchmarkDefaults(flags.benchmark, flags, overrides) : undefined;
    const resolved = await resolveGlobalConfig({ selectors: selectorArgs(flags), overrides, noModel: false });
    const env = readEnv();
    if (bench) await ensurePrepared(bench, resolved.roots, keysOf(resolved), preparedRoot());
    const view = rolloutView(configAccess(resolved));

    if (!noServe) {
      const { input, ...prepare } = splitInput(view.split, view.output_jsonl_fpath);
      // Validate the keys before any work.
      const cfg = rolloutConfigFrom({ ...view, input_jsonl_fpath: input });
      await import("../components/index.ts");
      const serve = { isBuiltin, checkConfigs: checkBuiltinConfigs, supervisor: { headPortFallback: true } };
      return underSignals({ resolved, cfg, prepare, serve }, env);
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
    checkInput(cfg);
    return underSignals({ resolved, cfg }, env);
  },
});
