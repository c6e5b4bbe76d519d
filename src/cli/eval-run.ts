/** `gym eval run`: Collect rewarded rollouts from a JSONL dataset (runtime §11, cli-config §2.4). */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { resolveAt } from "../config/interpolate.ts";
import { resolveInRoots } from "../config/roots.ts";
import { readEnv } from "../env.ts";
import { log } from "../log.ts";
import { setupServerClient } from "../runtime/http/client.ts";
import { otlpProtocol } from "../runtime/http/otlp-push.ts";
import { neededMaxHttpRequests } from "../rollout/capacity.ts";
import { maxInFlight, rolloutConfigFrom, rolloutView } from "../rollout/config.ts";
import { runRollouts } from "../rollout/driver.ts";
import { respawnWithFetchCap, watchParent } from "../rollout/respawn.ts";
import { targetsFromConfig, type RunTargets } from "../rollout/targets.ts";
import { OtlpMetrics } from "../rollout/otlp.ts";
import { setupExporters } from "../export/index.ts";
import { promptTransform } from "../dataset/prompt.ts";
import { defineGymCommand, type GymArgDef, type ParsedFlags } from "./_command.ts";
import { flagsToOverrides, policyFlags, policyOverrides, selectorArgs, selectorFlags, type FlagOverride } from "./_flags.ts";
import { existsSync, mkdirSync } from "node:fs";
import { preparedRoot } from "../assets/embedded.ts";
import { searchRoots } from "../config/roots.ts";
import { keysOf } from "../dataset/upload-keys.ts";
import { checkBenchmarkRunnable, ensurePrepared } from "../benchmarks/run-check.ts";
import type { BenchmarkDataset } from "../benchmarks/dataset-block.ts";
import { join } from "node:path";
import { ConfigError, RuntimeError } from "../errors.ts";
import { collate } from "../dataset/collate.ts";
import { checkInput } from "../rollout/materialize.ts";
import { outputStem, rolloutPaths } from "../rollout/paths.ts";
import { claimOutput } from "../rollout/output-lock.ts";
import { Supervisor } from "../runtime/process/supervisor.ts";
import { isBuiltin } from "../components/registry.ts";
import { checkBuiltinConfigs } from "../components/preflight.ts";
import type { ResolvedConfig } from "../config/types.ts";
import type { GymEnv } from "../env.ts";

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

/** OTLP metrics when observability or submit's gym telemetry is on and an endpoint is configured. */
function otlpFor(observability: boolean, env: GymEnv): OtlpMetrics | undefined {
  if (!(observability || env.otelEnabled) || !env.otlpMetricsEndpoint) return undefined;
  return new OtlpMetrics(env.otlpMetricsEndpoint, env.otelRunId ? { "nemo.gym.run.id": env.otelRunId } : {}, env.otelMetricExportIntervalMs, otlpProtocol(env.otlpMetricsProtocol));
}

/** `NEMO_GYM_MAX_ROLLOUT_ATTEMPTS` (positive int; anything else warns and falls back to 3, runtime §11.1). */
function maxAttempts(env: GymEnv): number {
  const n = env.maxRolloutAttempts;
  if (n === undefined) return 3;
  if (n < 1) {
    log.warn(`NEMO_GYM_MAX_ROLLOUT_ATTEMPTS=${n} is not a positive integer; using 3`);
    return 3;
  }
  return n;
}

/** Serve mode: prepare the split (collate), start the servers, collect, shut down (cli-config §2.4). */
async function serveAndCollect(resolved: ResolvedConfig, view: Record<string, unknown>, env: GymEnv): Promise<number> {
  const dict = resolved.dict;
  const split = view.split;
  // `example` is a gym extension: every resources server ships a 5-row example dataset, so a
  // newcomer can run a real rollout on a built-in environment with no data of their own.
  if (split !== "train" && split !== "validation" && split !== "benchmark" && split !== "example") {
    throw new ConfigError(`split must be one of train, validation, benchmark, example in serve mode, got ${JSON.stringify(split ?? null)}`, {
      key: "split",
      hint: "pass --split benchmark (or --split example for the built-in example rows; or --no-serve with -i to collect against running servers)",
    });
  }
  const output = view.output_jsonl_fpath;
  if (typeof output !== "string" || output === "") throw new ConfigError("output_jsonl_fpath is required", { key: "output_jsonl_fpath", hint: "pass -o/--output PATH" });
  const outputDir = join(outputStem(output), "preprocessed_datasets");
  const input = join(outputDir, `${split}.jsonl`);
  // Validate the keys and settle the fetch cap (D16) before any work, so a re-spawned copy does it once.
  const cfg = rolloutConfigFrom({ ...view, input_jsonl_fpath: input });
  const inFlight = maxInFlight(cfg);
  const cap = neededMaxHttpRequests(inFlight, env.bunMaxHttpRequests);
  if (cap !== undefined && !env.driverRespawned) return respawnWithFetchCap(cap);
  // D38: the output is ours (or the run fails at once) before data preparation and server start.
  const release = claimOutput(cfg, rolloutPaths(cfg.output));
  try {
    return await prepareAndCollect(resolved, cfg, env, split, outputDir, input);
  } finally {
    release();
  }
}

async function prepareAndCollect(resolved: ResolvedConfig, cfg: ReturnType<typeof rolloutConfigFrom>, env: GymEnv, split: string, outputDir: string, input: string): Promise<number> {
  const dict = resolved.dict;
  const reuse = Object.hasOwn(dict, "reuse_existing_data_preparation") && resolveAt(dict, ["reuse_existing_data_preparation"]) === true;
  if (reuse && existsSync(input)) log.info(`reuse_existing_data_preparation: using ${input}`);
  else {
    const dataSource = Object.hasOwn(dict, "data_source") ? resolveAt(dict, ["data_source"]) : "huggingface";
    const overwrite = Object.hasOwn(dict, "overwrite_metrics_conflicts") && resolveAt(dict, ["overwrite_metrics_conflicts"]) === true;
    const final = await collate(resolved, {
      mode: "train_preparation",
      outputDir,
      shouldDownload: true,
      overwriteConflicts: overwrite,
      dataSource: dataSource === "gitlab" ? "gitlab" : "huggingface",
      // Example rows are read in place (often from the embedded root): no sidecars beside them.
      ...(split === "example" ? { types: ["example"], sidecars: false } : {}),
    });
    if (!final[split]) {
      throw new ConfigError(`no ${split} dataset in the config: nothing to collect`, { hint: `add a dataset of type ${split} to an agent, or pick another --split` });
    }
  }
  await import("../components/index.ts");
  return collect(cfg, resolved, env, async () => targetsFromConfig(dict), new Supervisor({ resolved, isBuiltin, checkConfigs: checkBuiltinConfigs, headPortFallback: true }));
}

/**
 * Run the driver with signal handling, the parent-death watch and the exporters. In serve mode the
 * supervisor starts inside the same guard, so a Ctrl+C during start-up still shuts everything down.
 */
async function collect(
  cfg: ReturnType<typeof rolloutConfigFrom>,
  resolved: ResolvedConfig,
  env: GymEnv,
  targets: () => Promise<RunTargets>,
  supervisor?: Supervisor,
): Promise<number> {
  const dict = resolved.dict;
  const stop = new AbortController();
  let signal: string | undefined;
  const onSignal = (sig: string) => {
    signal = sig;
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const unwatch = watchParent(() => process.exit(137));
  let serverDied: RuntimeError | undefined;
  const exporters = await setupExporters(dict, (k) => resolveAt(dict, [k]));
  try {
    if (supervisor) {
      await supervisor.start();
      // A server that dies mid-run stops admission instead of leaving rollouts to time out one by one.
      void supervisor.waitForFailure().then((e) => {
        serverDied = e;
        log.error(e.message);
        stop.abort();
      });
    }
    const summary = await runRollouts(cfg, {
      targets: await targets(),
      maxAttempts: maxAttempts(env),
      jobEndTime: env.jobEndTime,
      tty: process.stderr.isTTY === true && !env.testing,
      stop: stop.signal,
      transform: cfg.promptConfig ? await promptTransform(cfg.promptConfig, resolved.roots) : undefined,
      onResult: cfg.uploadRollouts ? (r) => exporters.spoolRollout(r) : undefined,
      onAggregated: (_entries, flat) => exporters.logMetrics(flat),
      otlp: otlpFor(cfg.observability, env),
      keepResults: false,
    });
    // D31: a crashed server is a runtime failure (exit 1) naming it, not the 130 of a Ctrl+C.
    if (serverDied && signal === undefined) {
      throw new RuntimeError(`a server stopped during the run: ${serverDied.message.split("\n")[0]}`, {
        hint: `${serverDied.hint ?? "see the server log"}; ${summary.done}/${summary.total} rollouts are done: rerun with --resume to finish the rest`,
      });
    }
    return stoppedCode(summary.exitCode, signal);
  } finally {
    unwatch();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await exporters.finish();
    if (supervisor) await supervisor.shutdown();
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
    const dict = resolved.dict;
    const env = readEnv();
    if (bench) await ensurePrepared(bench, resolved.roots, keysOf(resolved), preparedRoot());
    const view = rolloutView(dict, (k) => resolveAt(dict, [k]));

    if (!noServe) return serveAndCollect(resolved, view, env);

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
    const inFlight = maxInFlight(cfg);
    const cap = neededMaxHttpRequests(inFlight, env.bunMaxHttpRequests);
    if (cap !== undefined && !env.driverRespawned) return respawnWithFetchCap(cap);

    const release = claimOutput(cfg, rolloutPaths(cfg.output));
    try {
      return await collect(cfg, resolved, env, async () => targetsFromConfig((await setupServerClient(dict)).config));
    } finally {
      release();
    }
  },
});
