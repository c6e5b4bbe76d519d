/**
 * The rollout-collection keys of the merged config (runtime §11.1), read into one typed
 * object with errors that name the key. Everything else in rollout/ takes this, never the dict.
 */
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import type { ConfigDict } from "../config/types.ts";
import { shardSliceFrom, type ShardSlice } from "./shard-slice.ts";
import type { ConfigAccess } from "../config/access.ts";

/** `num_repeats`: one count for every agent, or per agent with an optional `_default`. */
export type NumRepeats = number | Record<string, number>;

/** Typed rollout-collection settings. */
export interface RolloutConfig {
  input: string;
  output: string;
  agentName: string | undefined;
  limit: number | undefined;
  numRepeats: NumRepeats;
  numRepeatsAddSeed: boolean;
  /** `num_samples_in_parallel`; undefined = no semaphore of its own. */
  concurrency: number | undefined;
  /** `max_resident_rollout_tasks`; undefined = no cap of its own. */
  maxResident: number | undefined;
  retainResults: boolean;
  disableAggregation: boolean;
  requireComplete: boolean;
  resume: boolean;
  /** `overwrite_output` (`--overwrite`): a fresh run may replace earlier results at the output path (D38). */
  overwrite: boolean;
  /** Shallow-merged over every row's `responses_create_params`. */
  rcpOverrides: Record<string, unknown>;
  promptConfig: string | undefined;
  skills: unknown;
  uploadRollouts: boolean;
  interleaveRepeats: boolean;
  retryTerminalTimeouts: boolean;
  /** On resume, dispatch retried rows longest-first by their recorded `elapsed_seconds` ([NEWER]). */
  dispatchLongestFirst: boolean;
  /** [NEWER] `environment_routing_mode`: flat rows by agent, all to one server (legacy), or rejected (taskset). */
  routingMode: "agent" | "legacy" | "taskset";
  /** `environment_server_name`: where flat rows go in legacy routing mode. */
  environmentServerName: string | undefined;
  /** `environment_server_routes`: taskset → environment server, for native rows (`task_id` + `task_input`). */
  environmentServerRoutes: Record<string, string>;
  /** Per-request timeout for `/run`, ms; 0 = none (D15: default 21,600 s for episode calls). */
  runTimeoutMs: number;
  /** Retry budget for connect errors and 429/502/503/504, ms (D15, default 120 s). */
  retryBudgetMs: number;
  stallWarningSeconds: number;
  /** Seconds kept in reserve when draining for walltime (D30), beyond the p95 rollout duration. */
  drainMarginSeconds: number;
  statusPort: number | undefined;
  observability: boolean;
  modelCallCaptureDir: string | undefined;
  requestDebug: boolean;
  /** `num_shards` / `shard_index`: this run collects one slice of the tasks (shard-slice.ts). */
  shard?: ShardSlice;
}

/** Default in-flight cap when neither `num_samples_in_parallel` nor `max_resident_rollout_tasks` is set. */
export const DEFAULT_MAX_IN_FLIGHT = 8192;

function bool(dict: ConfigDict, key: string, dflt: boolean): boolean {
  const v = dict[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v === "boolean") return v;
  if (v === "true" || v === "false") return v === "true";
  throw new ConfigError(`${key} must be true or false, got ${JSON.stringify(v)}`, { key });
}

function str(dict: ConfigDict, key: string): string | undefined {
  const v = dict[key];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string" && typeof v !== "number") throw new ConfigError(`${key} must be a string, got ${JSON.stringify(v)}`, { key });
  return String(v);
}

function num(dict: ConfigDict, key: string, opts: { positive?: boolean; integer?: boolean; min?: number } = {}): number | undefined {
  const v = dict[key];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n)) throw new ConfigError(`${key} must be a number, got ${JSON.stringify(v)}`, { key });
  if (opts.integer && !Number.isInteger(n)) throw new ConfigError(`${key} must be an integer, got ${n}`, { key });
  if (opts.positive && n <= 0) throw new ConfigError(`${key} must be > 0, got ${n}`, { key, hint: `remove ${key} for no limit` });
  if (opts.min !== undefined && n < opts.min) throw new ConfigError(`${key} must be ≥ ${opts.min}, got ${n}`, { key });
  return n;
}

/**
 * `drain_margin_seconds` (D37, default 120). `drain_margin_s` is the spelling gym read before D37:
 * still honoured when the new key is absent, with a warning (once: a D16 re-spawned copy stays quiet).
 */
function drainMargin(dict: ConfigDict): number {
  const v = num(dict, "drain_margin_seconds", { min: 0 });
  if (v !== undefined) return v;
  const old = num(dict, "drain_margin_s", { min: 0 });
  if (old === undefined) return 120;
  log.warn("drain_margin_s is deprecated; use drain_margin_seconds (same meaning, seconds)");
  return old;
}

/** Validate `num_repeats` (runtime §11.1): int ≥ 1, or a dict of such ints; null → 1. */
export function parseNumRepeats(v: unknown): NumRepeats {
  if (v === undefined || v === null) return 1;
  if (typeof v === "number" || typeof v === "string") {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new ConfigError(`num_repeats must be an integer ≥ 1, got ${JSON.stringify(v)}`, { key: "num_repeats" });
    return n;
  }
  if (typeof v === "object" && !Array.isArray(v)) {
    const out: Record<string, number> = {};
    for (const [k, raw] of Object.entries(v as Record<string, unknown>)) {
      const n = raw === null ? 1 : Number(raw);
      if (!Number.isInteger(n) || n < 1) throw new ConfigError(`num_repeats.${k} must be an integer ≥ 1, got ${JSON.stringify(raw)}`, { key: `num_repeats.${k}` });
      out[k] = n;
    }
    return out;
  }
  throw new ConfigError(`num_repeats must be an integer or a mapping {agent: n, _default: n}, got ${JSON.stringify(v)}`, { key: "num_repeats" });
}

/** The typed sampling overrides (`--temperature`, `--top-p`, `--max-output-tokens`): the key, its flag, and the check. */
const SAMPLING: { key: string; flag: string; ok: (n: number) => boolean; want: string }[] = [
  { key: "temperature", flag: "--temperature", ok: (n) => n >= 0, want: "a number ≥ 0 (e.g. 0.7)" },
  { key: "top_p", flag: "--top-p", ok: (n) => n >= 0 && n <= 1, want: "a number between 0 and 1 (e.g. 0.95)" },
  { key: "max_output_tokens", flag: "--max-output-tokens", ok: (n) => Number.isInteger(n) && n > 0, want: "a positive integer (e.g. 4096)" },
];

/** Fail before anything starts when a typed sampling override has the wrong type (not when every rollout has failed). */
function checkSampling(rcp: Record<string, unknown>): void {
  for (const s of SAMPLING) {
    const v = rcp[s.key];
    if (v === undefined || v === null) continue;
    const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
    if (Number.isFinite(n) && s.ok(n)) continue;
    throw new ConfigError(`responses_create_params.${s.key} must be ${s.want}, got ${JSON.stringify(v)}`, {
      key: `responses_create_params.${s.key}`,
      hint: `pass ${s.flag} ${s.want.replace(/^.*\(e\.g\. (.*)\)$/, "$1")}`,
    });
  }
}

/** Read the rollout keys from a merged config. `requireInput` is false in serve mode (the input is prepared). */
export function rolloutConfigFrom(dict: ConfigDict, opts: { requireInput?: boolean } = {}): RolloutConfig {
  const output = str(dict, "output_jsonl_fpath");
  if (!output) throw new ConfigError("output_jsonl_fpath is required", { key: "output_jsonl_fpath", hint: "pass -o/--output PATH (or +output_jsonl_fpath=PATH)" });
  const input = str(dict, "input_jsonl_fpath");
  if (!input && opts.requireInput !== false) {
    throw new ConfigError("input_jsonl_fpath is required", { key: "input_jsonl_fpath", hint: "pass -i/--input PATH (or +input_jsonl_fpath=PATH)" });
  }
  if (str(dict, "rollout_collection_driver")) {
    throw new ConfigError("rollout_collection_driver is a Python import path upstream and is not supported by gym", {
      key: "rollout_collection_driver",
      hint: "remove the key; gym's built-in driver covers collection",
    });
  }
  for (const key of ["count_failure_classes_as_zero", "count_missing_rollouts_as_zero"]) {
    if (bool(dict, key, false)) {
      throw new ConfigError(`${key} is not supported: gym never counts a failed or missing rollout as reward 0 (D21)`, {
        key,
        hint: "failures are typed records in <output>_failures.jsonl; use require_complete to fail incomplete runs",
      });
    }
  }
  const mode = dict.environment_routing_mode ?? "agent";
  if (mode !== "agent" && mode !== "legacy" && mode !== "taskset") {
    throw new ConfigError(`environment_routing_mode must be one of agent, legacy, taskset, got ${JSON.stringify(mode)}`, { key: "environment_routing_mode" });
  }
  const envServerName = str(dict, "environment_server_name");
  if (mode === "legacy" && !envServerName) {
    throw new ConfigError("environment_routing_mode=legacy needs environment_server_name (the environment server that takes every flat row)", { key: "environment_server_name" });
  }
  const routes = dict.environment_server_routes ?? {};
  if (typeof routes !== "object" || Array.isArray(routes) || Object.values(routes as object).some((v) => typeof v !== "string")) {
    throw new ConfigError("environment_server_routes must map taskset names to environment server names", { key: "environment_server_routes" });
  }
  const rcp = dict.responses_create_params;
  if (rcp !== undefined && rcp !== null && (typeof rcp !== "object" || Array.isArray(rcp))) {
    throw new ConfigError("responses_create_params must be a mapping", { key: "responses_create_params" });
  }
  checkSampling((rcp as Record<string, unknown> | null | undefined) ?? {});
  const limit = num(dict, "limit", { integer: true, min: 0 });
  const timeout = num(dict, "request_timeout_seconds", { min: 0 });
  const budget = num(dict, "request_retry_budget_seconds", { min: 0 });
  const statusPort = num(dict, "status_port", { integer: true, min: 0 });
  const observability = bool(dict, "observability_enabled", false);
  const captureDir = str(dict, "model_call_capture_dir");
  if (observability && !captureDir) {
    throw new ConfigError("model_call_capture_dir is required when observability_enabled is true", {
      key: "model_call_capture_dir",
      hint: "set +model_call_capture_dir=/abs/path",
    });
  }
  return {
    input: input ?? "",
    output,
    agentName: str(dict, "agent_name"),
    limit: limit === 0 ? undefined : limit,
    numRepeats: parseNumRepeats(dict.num_repeats),
    numRepeatsAddSeed: bool(dict, "num_repeats_add_seed", false),
    concurrency: num(dict, "num_samples_in_parallel", { positive: true, integer: true }),
    maxResident: num(dict, "max_resident_rollout_tasks", { positive: true, integer: true }),
    retainResults: bool(dict, "retain_results_in_memory", true),
    disableAggregation: bool(dict, "disable_aggregation", false),
    requireComplete: bool(dict, "require_complete", false),
    resume: bool(dict, "resume_from_cache", false),
    overwrite: bool(dict, "overwrite_output", false),
    rcpOverrides: { ...((rcp as Record<string, unknown> | null | undefined) ?? {}) },
    promptConfig: str(dict, "prompt_config"),
    skills: dict.skills ?? undefined,
    // `upload_rollouts_to_wandb` is the deprecated spelling (components §5); either false switches it off.
    uploadRollouts: bool(dict, "upload_rollouts", true) && bool(dict, "upload_rollouts_to_wandb", true),
    interleaveRepeats: bool(dict, "interleave_repeats", false),
    retryTerminalTimeouts: bool(dict, "retry_terminal_timeouts", false),
    dispatchLongestFirst: bool(dict, "dispatch_longest_first", false),
    routingMode: mode,
    environmentServerName: envServerName,
    environmentServerRoutes: routes as Record<string, string>,
    runTimeoutMs: (timeout ?? 21600) * 1000,
    retryBudgetMs: (budget ?? 120) * 1000,
    stallWarningSeconds: num(dict, "stall_warning_seconds", { positive: true }) ?? 300,
    drainMarginSeconds: drainMargin(dict),
    statusPort,
    observability,
    modelCallCaptureDir: captureDir,
    requestDebug: bool(dict, "global_aiohttp_client_request_debug", false),
    shard: shardSliceFrom(dict),
  };
}

/** The in-flight cap: the smaller of the two limits, or the default when neither is set. */
export function maxInFlight(cfg: Pick<RolloutConfig, "concurrency" | "maxResident">): number {
  const limits = [cfg.concurrency, cfg.maxResident].filter((n): n is number => n !== undefined);
  return limits.length > 0 ? Math.min(...limits) : DEFAULT_MAX_IN_FLIGHT;
}

/** Top-level keys the driver reads (resolved one by one, so an unrelated unresolvable `${…}` does not matter). */
export const ROLLOUT_KEYS = [
  "input_jsonl_fpath", "output_jsonl_fpath", "agent_name", "limit", "num_repeats", "num_repeats_add_seed",
  "num_samples_in_parallel", "max_resident_rollout_tasks", "retain_results_in_memory", "disable_aggregation",
  "require_complete", "resume_from_cache", "overwrite_output", "responses_create_params", "prompt_config", "skills", "upload_rollouts",
  "upload_rollouts_to_wandb", "interleave_repeats", "retry_terminal_timeouts", "request_timeout_seconds",
  "request_retry_budget_seconds", "stall_warning_seconds", "drain_margin_seconds", "drain_margin_s", "status_port", "observability_enabled",
  "model_call_capture_dir", "global_aiohttp_client_request_debug", "rollout_collection_driver", "split",
  "dispatch_longest_first", "count_failure_classes_as_zero", "count_missing_rollouts_as_zero",
  "environment_routing_mode", "environment_server_name", "environment_server_routes", "num_shards", "shard_index",
] as const;

/** A dict of the driver's keys, interpolated (keys the config does not set are left out). */
export function rolloutView(config: ConfigAccess): ConfigDict {
  const out: ConfigDict = {};
  for (const k of ROLLOUT_KEYS) if (config.has(k)) out[k] = config.read(k);
  return out;
}
