/**
 * Deprecated `ng_*` / `nemo_gym_*` entry points (spec cli-config §2.6): the binary invoked
 * under such a name (e.g. through a symlink) maps it to `gym` tokens and warns on stderr.
 */

/** Legacy alias (prefix stripped) → the `gym` tokens it stands for. */
export const LEGACY_ALIASES: Record<string, string[]> = {
  run: ["env", "start"],
  test: ["env", "test"],
  test_all: ["env", "test"],
  dev_test: ["dev", "test"],
  init_resources_server: ["env", "init"],
  list_benchmarks: ["list", "benchmarks"],
  prepare_benchmark: ["eval", "prepare"],
  collect_rollouts: ["eval", "run", "--no-serve"],
  e2e_collect_rollouts: ["eval", "run"],
  aggregate_rollouts: ["eval", "aggregate"],
  materialize_prompts: ["dataset", "render"],
  reward_profile: ["eval", "profile"],
  upload_dataset_to_gitlab: ["dataset", "upload", "--storage", "gitlab"],
  download_dataset_from_gitlab: ["dataset", "download", "--storage", "gitlab"],
  prepare_data: ["dataset", "collate"],
  upload_dataset_to_hf: ["dataset", "upload"],
  download_dataset_from_hf: ["dataset", "download"],
  gitlab_to_hf_dataset: ["dataset", "migrate"],
  delete_dataset_from_gitlab: ["dataset", "rm"],
  dump_config: ["env", "resolve"],
  validate: ["env", "validate"],
  help: ["--help"],
  status: ["env", "status"],
  pip_list: ["env", "packages"],
  version: ["--version"],
};

/** How the program was invoked: as `gym`/`ng`, or as a legacy alias. */
export type Invocation =
  | { kind: "gym" }
  | { kind: "legacy"; alias: string; tokens: string[] }
  | { kind: "unknown-legacy"; alias: string }
  | { kind: "reinstall"; alias: string };

/** Classify the program name (basename of argv0 or argv1). */
export function classifyProgram(programName: string): Invocation {
  const base = programName.split("/").pop() ?? programName;
  const m = /^(?:nemo_gym_|ng_)(.+)$/.exec(base);
  if (!m) return { kind: "gym" };
  const name = m[1]!;
  if (name === "reinstall") return { kind: "reinstall", alias: base };
  const tokens = LEGACY_ALIASES[name];
  return tokens ? { kind: "legacy", alias: base, tokens } : { kind: "unknown-legacy", alias: base };
}

/** The stderr line printed when a legacy alias is used. */
export function deprecationLine(alias: string, tokens: string[]): string {
  return `⚠  \`${alias}\` is deprecated and will be removed in a future release; use \`gym ${tokens.join(" ")}\` instead.`;
}
