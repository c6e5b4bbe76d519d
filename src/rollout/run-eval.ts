/**
 * The `gym eval run` use case (cli-config §2.4, runtime §11): claim the output (D38), prepare the
 * split (collate), start the servers, collect the rollouts through the driver, stop the servers.
 * `gym eval run` and `gym env test`'s example run both go through here; the CLI only parses
 * flags, wires signals and prints.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { configAccess } from "../config/access.ts";
import type { ResolvedConfig, ServerType } from "../config/types.ts";
import { collate } from "../dataset/collate.ts";
import { promptTransform } from "../dataset/prompt.ts";
import type { GymEnv } from "../env.ts";
import { ConfigError, GymError, RuntimeError } from "../errors.ts";
import { setupExporters, type Exporters } from "../export/index.ts";
import { log } from "../log.ts";
import { setupServerClient } from "../runtime/http/client.ts";
import { otlpProtocol } from "../runtime/http/otlp-push.ts";
import { Supervisor, type SupervisorOptions } from "../runtime/process/supervisor.ts";
import type { RolloutConfig } from "./config.ts";
import { runRollouts } from "./driver.ts";
import { claimOutput } from "./output-lock.ts";
import { OtlpMetrics } from "./otlp.ts";
import { outputStem, rolloutPaths } from "./paths.ts";
import type { DriverDeps, RunSummary } from "./summary.ts";
import { targetsFromConfig } from "./targets.ts";
import { tokenCaptureCollectorFrom } from "./token-capture.ts";

/**
 * The dataset splits serve mode can prepare. `example` is a gym extension: every resources server
 * ships a 5-row example dataset, so a newcomer can run a real rollout with no data of their own.
 */
export const EVAL_SPLITS = ["train", "validation", "benchmark", "example"] as const;
/** One of EVAL_SPLITS. */
export type EvalSplit = (typeof EVAL_SPLITS)[number];

/** Error code of a config whose agents have no dataset of the requested split. */
export const E_NO_SPLIT_DATASET = "E_NO_SPLIT_DATASET";
/** Error code of a run stopped (SIGINT/SIGTERM) before collection began; its exit code is 130. */
export const E_STOPPED = "E_STOPPED";

/** Serve mode: what to prepare, from the run's `split` and `output_jsonl_fpath` (validated). */
export function splitInput(split: unknown, output: unknown): PrepareOptions & { input: string } {
  if (!(EVAL_SPLITS as readonly unknown[]).includes(split)) {
    throw new ConfigError(`split must be one of ${EVAL_SPLITS.join(", ")} in serve mode, got ${JSON.stringify(split ?? null)}`, {
      key: "split",
      hint: "pass --split benchmark (or --split example for the built-in example rows; or --no-serve with -i to collect against running servers)",
    });
  }
  if (typeof output !== "string" || output === "") throw new ConfigError("output_jsonl_fpath is required", { key: "output_jsonl_fpath", hint: "pass -o/--output PATH" });
  const outputDir = join(outputStem(output), "preprocessed_datasets");
  return { split: split as EvalSplit, outputDir, input: join(outputDir, `${split as string}.jsonl`), download: true };
}

/** The split to prepare (collate) before the servers start. */
export interface PrepareOptions {
  split: EvalSplit;
  /** Directory of the prepared split; the split lands at `<outputDir>/<split>.jsonl`. */
  outputDir: string;
  /** Download missing datasets (serve mode may; the example run never needs to). */
  download: boolean;
}

/** How to run the servers (serve mode). */
export interface ServeOptions {
  isBuiltin: (t: ServerType, impl: string) => boolean;
  /** Check the built-in components' leaves before anything starts (the CLI wires components/preflight.ts). */
  checkConfigs?: SupervisorOptions["checkConfigs"];
  /** Supervisor options beyond the config (output sink, log dir, head port fallback). */
  supervisor?: Omit<SupervisorOptions, "resolved" | "isBuiltin" | "checkConfigs">;
  /** Give up start-up when `stop` fires (a deadline), with this message, instead of waiting for the servers. */
  startAbortMessage?: string;
  /** Shut the servers down without the per-server lines; a failing shutdown does not replace the run's outcome. */
  quietShutdown?: boolean;
}

/** Inputs of one evaluation run. */
export interface RunEvalOptions {
  resolved: ResolvedConfig;
  /** The driver config; with `prepare` its input must be `<prepare.outputDir>/<split>.jsonl`. */
  cfg: RolloutConfig;
  /** Collate the split first (serve mode; the example run prepares its own rows). */
  prepare?: PrepareOptions;
  /** Start the servers; absent: collect against servers already running, found through the head server (`--no-serve`). */
  serve?: ServeOptions;
  /** Driver options besides the routing table, the stop signal and the tracker hooks. */
  driver: Omit<DriverDeps, "targets" | "stop" | "onResult" | "onAggregated">;
  /** Open the configured experiment trackers (W&B, MLflow) and feed them metrics and rollouts. */
  trackers?: boolean;
  /** Stops data preparation, admission and the run (signals, a deadline). */
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

/** The driver options a command-line run takes from the environment (attempts, walltime, OTLP, prompt config). */
export async function driverOptionsFromEnv(cfg: RolloutConfig, resolved: ResolvedConfig, env: GymEnv, tty: boolean): Promise<RunEvalOptions["driver"]> {
  return {
    maxAttempts: maxAttempts(env),
    jobEndTime: env.jobEndTime,
    tty,
    transform: cfg.promptConfig ? await promptTransform(cfg.promptConfig, resolved.roots) : undefined,
    otlp: otlpFor(cfg.observability, env),
    keepResults: false,
  };
}

/**
 * Collate the split's datasets into `<outputDir>/<split>.jsonl` (unless
 * `reuse_existing_data_preparation` finds it prepared); returns that path. A config with no
 * dataset of the split is a ConfigError with code E_NO_SPLIT_DATASET.
 */
export async function prepareSplit(resolved: ResolvedConfig, prep: PrepareOptions): Promise<string> {
  const config = configAccess(resolved);
  const input = join(prep.outputDir, `${prep.split}.jsonl`);
  if (config.read("reuse_existing_data_preparation") === true && existsSync(input)) {
    log.info(`reuse_existing_data_preparation: using ${input}`);
    return input;
  }
  const final = await collate(resolved, {
    mode: "train_preparation",
    outputDir: prep.outputDir,
    shouldDownload: prep.download,
    overwriteConflicts: config.read("overwrite_metrics_conflicts") === true,
    dataSource: (config.read("data_source") ?? "huggingface") === "gitlab" ? "gitlab" : "huggingface",
    // Example rows are read in place (often from the embedded root): no sidecars beside them.
    ...(prep.split === "example" ? { types: ["example"], sidecars: false } : {}),
  });
  const prepared = final[prep.split];
  if (!prepared) {
    throw new ConfigError(`no ${prep.split} dataset in the config: nothing to collect`, {
      code: E_NO_SPLIT_DATASET,
      hint: `add a dataset of type ${prep.split} to an agent, or pick another --split`,
    });
  }
  return prepared;
}

/**
 * Wait for `work` unless `stop` fires first: then reject with E_STOPPED (exit 130) and let the
 * process end — data preparation (downloads) cannot be cancelled half-way, only abandoned.
 */
async function unlessStopped<T>(work: Promise<T>, stop: AbortSignal | undefined, what: string): Promise<T> {
  if (!stop) return work;
  const stoppedError = () => new GymError(`Stopped during ${what}: nothing was collected`, { code: E_STOPPED, exitCode: 130 });
  const stopped = Promise.withResolvers<never>();
  const onStop = () => stopped.reject(stoppedError());
  if (stop.aborted) onStop();
  stop.addEventListener("abort", onStop, { once: true });
  try {
    const done = await Promise.race([work, stopped.promise]);
    // A signal in the same turn the work ended still means: do not go on to start servers.
    if (stop.aborted) throw stoppedError();
    return done;
  } finally {
    stop.removeEventListener("abort", onStop);
  }
}

/** Start the supervisor; with `startAbortMessage`, `stop` firing first rejects with that message. */
async function startServers(supervisor: Supervisor, serve: ServeOptions, stop: AbortSignal): Promise<void> {
  if (serve.startAbortMessage === undefined) return supervisor.start();
  const message = serve.startAbortMessage;
  const aborted = Promise.withResolvers<never>();
  const onAbort = () => aborted.reject(new RuntimeError(message));
  if (stop.aborted) onAbort();
  stop.addEventListener("abort", onAbort, { once: true });
  try {
    await Promise.race([supervisor.start(), aborted.promise]);
  } finally {
    stop.removeEventListener("abort", onAbort);
  }
}

/** The tracker hooks of the driver (none without trackers). */
function trackerHooks(cfg: RolloutConfig, exporters: Exporters | undefined): Pick<DriverDeps, "onResult" | "onAggregated"> {
  if (!exporters) return {};
  return {
    onResult: cfg.uploadRollouts ? (r) => exporters.spoolRollout(r) : undefined,
    onAggregated: (_entries, flat) => exporters.logMetrics(flat),
  };
}

/**
 * Start the servers (serve mode) or find the running ones (head server), collect through the
 * driver, and stop the servers whatever happens. A server that dies mid-run stops admission and
 * fails the run (D31: exit 1 naming it), unless the caller's own stop came first.
 */
async function serveAndCollect(opts: RunEvalOptions): Promise<RunSummary> {
  const { resolved, cfg, serve } = opts;
  // A bad `token_id_capture` block is a config error before any server starts, not a child crash.
  tokenCaptureCollectorFrom(resolved.dict);
  const stop = new AbortController();
  const onStop = () => stop.abort();
  if (opts.stop?.aborted) stop.abort();
  opts.stop?.addEventListener("abort", onStop, { once: true });
  const supervisor = serve ? new Supervisor({ ...serve.supervisor, resolved, isBuiltin: serve.isBuiltin, checkConfigs: serve.checkConfigs }) : undefined;
  const exporters = opts.trackers ? await setupExporters(configAccess(resolved)) : undefined;
  let serverDied: RuntimeError | undefined;
  try {
    let dict = resolved.dict;
    if (supervisor && serve) {
      await startServers(supervisor, serve, stop.signal);
      // A server that dies mid-run stops admission instead of leaving rollouts to time out one by one.
      void supervisor.waitForFailure().then((e) => {
        serverDied = e;
        log.error(e.message);
        stop.abort();
      });
    } else {
      dict = (await setupServerClient(dict)).config;
    }
    const summary = await runRollouts(cfg, { ...opts.driver, targets: targetsFromConfig(dict), tokenCapture: tokenCaptureCollectorFrom(dict), stop: stop.signal, ...trackerHooks(cfg, exporters) });
    // D31: a crashed server is a runtime failure (exit 1) naming it, not the 130 of a Ctrl+C.
    const died: RuntimeError | undefined = serverDied;
    if (died && opts.stop?.aborted !== true) {
      throw new RuntimeError(`a server stopped during the run: ${died.message.split("\n")[0]}`, {
        hint: `${died.hint ?? "see the server log"}; ${summary.done}/${summary.total} rollouts are done: rerun with --resume to finish the rest`,
      });
    }
    return summary;
  } finally {
    opts.stop?.removeEventListener("abort", onStop);
    await exporters?.finish();
    if (supervisor) {
      if (serve?.quietShutdown) await supervisor.shutdown({ quiet: true }).catch(() => {});
      else await supervisor.shutdown();
    }
  }
}

/**
 * Run one evaluation: claim the output (D38: the run fails at once when it is not ours), prepare
 * the split, start the servers, collect with the configured trackers, stop the servers.
 */
export async function runEval(opts: RunEvalOptions): Promise<RunSummary> {
  const release = claimOutput(opts.cfg, rolloutPaths(opts.cfg.output));
  try {
    if (opts.prepare) await unlessStopped(prepareSplit(opts.resolved, opts.prepare), opts.stop, "data preparation");
    return await serveAndCollect(opts);
  } finally {
    release();
  }
}
