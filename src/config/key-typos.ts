/**
 * Did-you-mean for misspelled top-level keys (`+requre_complete=true`). Upstream accepts any
 * top-level key (user values and servers live there too), so a typo would be silently ignored;
 * gym warns, once per key and process, when an unknown key is close to a key gym reads.
 */
import { log } from "../log.ts";
import { similarity } from "../util/similar.ts";
import { GLOBAL_KEY_SCHEMAS } from "./global-schema.ts";
import { RESERVED_KEYS } from "./global-keys.ts";
import type { ConfigDict } from "./types.ts";

/**
 * Keys commands and the rollout driver read from the merged config (cli-config §2.4, §2.5, §7.2,
 * runtime §11.1) beyond the reserved and typed globals. test/config/key-typos.test.ts checks that
 * the driver's ROLLOUT_KEYS are all here.
 */
const COMMAND_KEYS = [
  // rollout driver (runtime §11.1)
  "input_jsonl_fpath", "output_jsonl_fpath", "agent_name", "limit", "num_repeats", "num_repeats_add_seed",
  "num_samples_in_parallel", "require_complete", "resume_from_cache", "responses_create_params", "prompt_config",
  "skills", "interleave_repeats", "retry_terminal_timeouts", "stall_warning_seconds", "drain_margin_seconds",
  "drain_margin_s", "status_port", "rollout_collection_driver", "split", "dispatch_longest_first",
  "count_failure_classes_as_zero", "count_missing_rollouts_as_zero", "environment_routing_mode",
  "environment_server_name", "environment_server_routes", "agent_map", "fan_out", "dispatch_budget_s",
  "retry_invalid_judge_responses", "disable_health_check", "num_shards", "shard_index",
  // dataset / prepare / aggregate / reverify / serve-mode commands
  "data_source", "overwrite_metrics_conflicts", "reuse_existing_data_preparation", "mode", "output_dirpath",
  "should_download", "append", "force", "overwrite", "input_glob", "merge_shards", "judge_failed_only",
  "materialized_inputs_jsonl_fpath", "num_prepare_benchmark_processes", "prepare_script_args",
  "use_cached_prepared_benchmarks", "allow_partial_rollouts", "artifact_fpath", "create_pr", "dataset_name",
  "output_fpath", "repo_id", "revision", "rollouts_jsonl_fpath", "version", "should_validate_data",
  // gym-only runtime keys
  "log_dirs_to_keep", "overwrite_output", "server_liveness_timeout_seconds", "benchmark_mirror_url", "hf_token", "hf_endpoint",
  // command keys of cli-config §2.5
  "catalog_kind", "format", "outdated", "onboarding_name", "manifest_path", "sync", "update_expected",
  "scaffold_kind", "scaffold_name", "profile", "reuse_verifier", "reward_range", "higher_is_better",
];

/** Every top-level key gym knows by name (server instance names aside). */
export const KNOWN_TOP_LEVEL_KEYS: ReadonlySet<string> = new Set([...RESERVED_KEYS, ...Object.keys(GLOBAL_KEY_SCHEMAS), ...COMMAND_KEYS]);

/** An unknown key this similar to a known one (difflib ratio) is taken for a typo. */
const TYPO_CUTOFF = 0.85;

/** `[unknown key, the known key it is probably a typo of]` for each top-level key of `dict` that is not a server. */
export function misspelledKeys(dict: ConfigDict, serverNames: Iterable<string>): [string, string][] {
  const servers = new Set(serverNames);
  const out: [string, string][] = [];
  for (const key of Object.keys(dict)) {
    if (KNOWN_TOP_LEVEL_KEYS.has(key) || servers.has(key)) continue;
    let best: string | undefined;
    let bestScore = TYPO_CUTOFF;
    for (const known of KNOWN_TOP_LEVEL_KEYS) {
      const score = similarity(key, known);
      if (score >= bestScore && (best === undefined || score > bestScore)) {
        best = known;
        bestScore = score;
      }
    }
    if (best !== undefined) out.push([key, best]);
  }
  return out;
}

const warned = new Set<string>();

/** Warn (once per key and process) about top-level keys that look like typos of known ones. */
export function warnMisspelledKeys(dict: ConfigDict, serverNames: Iterable<string>): void {
  // A D16 re-spawned driver resolves the same command line again; its parent already warned.
  for (const [key, known] of misspelledKeys(dict, serverNames)) {
    if (warned.has(key)) continue;
    warned.add(key);
    log.warn(`Unknown top-level key '${key}' is ignored. Did you mean \`${known}\`?`);
  }
}
