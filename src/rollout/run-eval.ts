/**
 * The `gym eval run` use case (cli-config §2.4, runtime §11): prepare the split (collate), start
 * the servers, collect the rollouts, stop the servers. `gym eval run` and `gym env test`'s example
 * run both go through here; the CLI only parses flags and prints.
 */
import { join } from "node:path";
import { configAccess } from "../config/access.ts";
import type { ResolvedConfig, ServerType } from "../config/types.ts";
import { collate } from "../dataset/collate.ts";
import { promptTransform } from "../dataset/prompt.ts";
import type { GymEnv } from "../env.ts";
import { setupExporters } from "../export/index.ts";
import { ConfigError, RuntimeError } from "../errors.ts";
import { log } from "../log.ts";
import { setupServerClient } from "../runtime/http/client.ts";
import { otlpProtocol } from "../runtime/http/otlp-push.ts";
import { Supervisor, type SupervisorOptions } from "../runtime/process/supervisor.ts";
import type { RolloutConfig } from "./config.ts";
import { runRollouts } from "./driver.ts";
import { OtlpMetrics } from "./otlp.ts";
import { outputStem } from "./paths.ts";
import type { DriverDeps, RunSummary } from "./summary.ts";
import { targetsFromConfig } from "./targets.ts";

/** The dataset splits serve mode can prepare; `example` is gym's: every resources server ships 5 example rows. */
export const EVAL_SPLITS = ["train", "validation", "benchmark", "example"] as const;
/** One of EVAL_SPLITS. */
export type EvalSplit = (typeof EVAL_SPLITS)[number];

/** Error code of a config whose agents have no dataset of the requested split. */
export const E_NO_SPLIT_DATASET = "E_NO_SPLIT_DATASET";

/** Where serve mode puts the prepared split, from the run's `split` and `output_jsonl_fpath` (validated). */
export function splitInput(split: unknown, output: unknown): { split: EvalSplit; outputDir: string; input: string } {
  if (!(EVAL_SPLITS as readonly unknown[]).includes(split)) {
    throw new ConfigError(`split must be one of ${EVAL_SPLITS.join(", ")} in serve mode, got ${JSON.stringify(split ?? null)}`, {
      key: "split",
      hint: "pass --split benchmark (or --split example for the built-in example rows; or --no-serve with -i to collect against running servers)",
    });
  }
  if (typeof output !== "string" || output === "") throw new ConfigError("output_jsonl_fpath is required", { key: "output_jsonl_fpath", hint: "pass -o/--output PATH" });
  const outputDir = join(outputStem(output), "preprocessed_datasets");
  return { split: split as EvalSplit, outputDir, input: join(outputDir, `${split as string}.jsonl`) };
}

/** Serve mode: the split to prepare and how to run the servers. */
export interface ServeOptions {
  split: EvalSplit;
  /** Directory of the prepared split (`splitInput().outputDir`). */
  outputDir: string;
  /** Download missing datasets (serve mode always may; the example run never needs to). */
  download: boolean;
  isBuiltin: (t: ServerType, impl: string) => boolean;
  /** Supervisor options beyond the config (output sink, log dir, head port fallback). */
  supervisor?: Omit<SupervisorOptions, "resolved" | "isBuiltin">;
  /** Give up start-up when `stop` fires (a deadline), with this message, instead of waiting for the servers. */
  startAbortMessage?: string;
  /** Shut the servers down without the per-server lines. */
  quietShutdown?: boolean;
  /** Called once the supervisor exists (its log dir is what a failure report names). */
  onSupervisor?: (s: Supervisor) => void;
}

/** Inputs of one evaluation run. */
export interface RunEvalOptions {
  resolved: ResolvedConfig;
  /** The driver config; in serve mode its input must be `splitInput().input`. */
  cfg: RolloutConfig;
  /** Serve mode; absent: collect against servers already running, found through the head server (`--no-serve`). */
  serve?: ServeOptions;
  /** Driver options besides the routing table and the stop signal. */
  driver: Omit<DriverDeps, "targets" | "stop" | "onResult" | "onAggregated">;
  /** Stops admission and the run (signals, a deadline). */
  stop?: AbortSignal;
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

/** OTLP metrics when observability or submit's gym telemetry is on and an endpoint is configured. */
function otlpFor(observability: boolean, env: GymEnv): OtlpMetrics | undefined {
  if (!(observability || env.otelEnabled) || !env.otlpMetricsEndpoint) return undefined;
  return new OtlpMetrics(env.otlpMetricsEndpoint, env.otelRunId ? { "nemo.gym.run.id": env.otelRunId } : {}, env.otelMetricExportIntervalMs, otlpProtocol(env.otlpMetricsProtocol));
}

/** The driver options a command-line run takes from the environment (attempts, walltime, OTLP) and the terminal. */
export async function driverOptionsFromEnv(cfg: RolloutConfig, resolved: ResolvedConfig, env: GymEnv): Promise<RunEvalOptions["driver"]> {
  return {
    maxAttempts: maxAttempts(env),
    jobEndTime: env.jobEndTime,
    tty: process.stderr.isTTY === true && !env.testing,
    transform: cfg.promptConfig ? await promptTransform(cfg.promptConfig, resolved.roots) : undefined,
    otlp: otlpFor(cfg.observability, env),
    keepResults: false,
  };
}

/** Collate the split's datasets unless `reuse_existing_data_preparation` finds them prepared. */
async function prepareSplit(resolved: ResolvedConfig, serve: ServeOptions, input: string): Promise<void> {
  const config = configAccess(resolved);
  if (config.read("reuse_existing_data_preparation") === true && (await Bun.file(input).exists())) {
    log.info(`reuse_existing_data_preparation: using ${input}`);
    return;
  }
  const final = await collate(resolved, {
    mode: "train_preparation",
    outputDir: serve.outputDir,
    shouldDownload: serve.download,
    overwriteConflicts: config.read("overwrite_metrics_conflicts") === true,
    dataSource: config.read("data_source") === "gitlab" ? "gitlab" : "huggingface",
    // Example rows are read in place (often from the embedded root): no sidecars beside them.
    ...(serve.split === "example" ? { types: ["example"], sidecars: false } : {}),
  });
  if (!final[serve.split]) {
    throw new ConfigError(`no ${serve.split} dataset in the config: nothing to collect`, {
      code: E_NO_SPLIT_DATASET,
      hint: `add a dataset of type ${serve.split} to an agent, or pick another --split`,
    });
  }
}

/** Start the supervisor; with `startAbortMessage`, `stop` firing first rejects with that message. */
async function startServers(supervisor: Supervisor, serve: ServeOptions, stop: AbortSignal): Promise<void> {
  if (serve.startAbortMessage === undefined) return supervisor.start();
  const message = serve.startAbortMessage;
  const aborted = new Promise<never>((_, reject) => {
    if (stop.aborted) reject(new RuntimeError(message));
    stop.addEventListener("abort", () => reject(new RuntimeError(message)), { once: true });
  });
  aborted.catch(() => {});
  await Promise.race([supervisor.start(), aborted]);
}

/**
 * Run one evaluation: prepare the split and start the servers (serve mode), collect through the
 * driver with the configured trackers, and stop the servers whatever happens.
 */
export async function runEval(opts: RunEvalOptions): Promise<RunSummary> {
  const { resolved, cfg, serve } = opts;
  if (serve) await prepareSplit(resolved, serve, cfg.input);
  const stop = new AbortController();
  const onStop = () => stop.abort();
  if (opts.stop?.aborted) stop.abort();
  opts.stop?.addEventListener("abort", onStop, { once: true });
  const supervisor = serve ? new Supervisor({ ...serve.supervisor, resolved, isBuiltin: serve.isBuiltin }) : undefined;
  if (supervisor) serve?.onSupervisor?.(supervisor);
  const exporters = await setupExporters(configAccess(resolved));
  try {
    let dict = resolved.dict;
    if (supervisor) {
      await startServers(supervisor, serve!, stop.signal);
      // A server that dies mid-run stops admission instead of leaving rollouts to time out one by one.
      void supervisor.waitForFailure().then((e) => {
        log.error(e.message);
        stop.abort();
      });
    } else {
      dict = (await setupServerClient(dict)).config;
    }
    return await runRollouts(cfg, {
      ...opts.driver,
      targets: targetsFromConfig(dict),
      stop: stop.signal,
      onResult: cfg.uploadRollouts ? (r) => exporters.spoolRollout(r) : undefined,
      onAggregated: (_entries, flat) => exporters.logMetrics(flat),
    });
  } finally {
    opts.stop?.removeEventListener("abort", onStop);
    await exporters.finish();
    if (supervisor) await supervisor.shutdown(serve?.quietShutdown ? { quiet: true } : undefined);
  }
}
