/**
 * The unified `source:` of a training dataset (cli-config §6.6). Older configs name the origin with
 * `gitlab_identifier` / `huggingface_identifier`; a single legacy identifier reads as the matching
 * `source`, and a `source` reads back as its legacy field, so code on either side of the rename
 * finds what it looks for. Both legacy identifiers together (primary plus fallback) leave `source` unset.
 */
import { isPlainMap } from "./merge.ts";

/** A dataset's origin in the unified shape. */
export type DatasetSource =
  | { type: "gitlab"; dataset_name: string; version: string; artifact_fpath: string }
  | { type: "huggingface"; repo_id: string; artifact_fpath?: string | null };

/** The dataset's `source` plus the mirrored legacy fields (a copy; the config is not changed). */
export function datasetSourceView(item: Record<string, unknown>): {
  source: DatasetSource | undefined;
  gitlab_identifier: Record<string, unknown> | undefined;
  huggingface_identifier: Record<string, unknown> | undefined;
} {
  const gl = isPlainMap(item.gitlab_identifier) ? item.gitlab_identifier : undefined;
  const hf = isPlainMap(item.huggingface_identifier) ? item.huggingface_identifier : undefined;
  if (isPlainMap(item.source)) {
    const { type, ...rest } = item.source;
    return {
      source: item.source as DatasetSource,
      gitlab_identifier: gl ?? (type === "gitlab" ? rest : undefined),
      huggingface_identifier: hf ?? (type === "huggingface" ? rest : undefined),
    };
  }
  if (gl && !hf) return { source: { type: "gitlab", ...gl } as DatasetSource, gitlab_identifier: gl, huggingface_identifier: undefined };
  if (hf && !gl) return { source: { type: "huggingface", ...hf } as DatasetSource, gitlab_identifier: undefined, huggingface_identifier: hf };
  return { source: undefined, gitlab_identifier: gl, huggingface_identifier: hf };
}
