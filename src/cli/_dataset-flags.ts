/** Flag → override table shared by `gym dataset upload` and `gym dataset migrate` (cli-config §2.4). */
import type { FlagOverride } from "./_flags.ts";

/**
 * The upload flags as overrides. `--name`/`--revision` are quoted so `--revision 1.0` or `--name 2024`
 * stay strings (Hydra would read numbers). With `version`, `--revision` also sets GitLab's `+version`.
 */
export function uploadFlagOverrides(opts: { version: boolean }): FlagOverride[] {
  return [
    { flag: "input", key: "input_jsonl_fpath" },
    { flag: "name", key: "dataset_name", quoted: true },
    ...(opts.version ? [{ flag: "revision", key: "version", quoted: true }] : []),
    { flag: "revision", key: "revision", quoted: true },
    { flag: "split", key: "split" },
    { flag: "create-pr", key: "create_pr" },
    { flag: "yes", key: "yes" },
  ];
}
