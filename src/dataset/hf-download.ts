/**
 * `gym dataset download` from Hugging Face (components §4.2, upstream
 * `hf_utils.download_hf_dataset_as_jsonl`): one raw file (`artifact_fpath`), or whole splits by
 * listing the repo tree and fetching its `*.jsonl` files. Every output is staged and renamed into
 * place only when every download succeeded.
 */
import { basename, join } from "node:path";
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import type { HubHttp } from "./hf-http.ts";
import { jsonlSplits } from "./hf-splits.ts";
import { withStagedOutputs } from "./upload-files.ts";
import type { Keys } from "./upload-keys.ts";

/** The validated keys of an HF download. */
export interface HfDownloadSpec {
  repoId: string;
  artifactPath: string | undefined;
  split: "train" | "validation" | "test" | undefined;
  outputPath: string | undefined;
  outputDir: string | undefined;
}

/** Read and check the download keys (the validation rules of components §4.2, upstream wording). */
export function hfDownloadSpec(keys: Keys): HfDownloadSpec {
  const repoId = keys.need("repo_id", "pass --repo-id ORG/NAME");
  const spec: HfDownloadSpec = {
    repoId,
    artifactPath: keys.str("artifact_fpath"),
    split: keys.choice("split", ["train", "validation", "test"] as const, undefined),
    outputPath: keys.str("output_fpath"),
    outputDir: keys.str("output_dirpath"),
  };
  const fail = (msg: string, key: string, hint: string): never => {
    throw new ConfigError(msg, { key, location: keys.where(key), hint });
  };
  if (!/^[^/\s]+\/[^/\s]+$/.test(repoId)) fail(`repo_id must look like ORG/NAME, got '${repoId}'`, "repo_id", "pass --repo-id ORG/NAME");
  if (!spec.outputPath && !spec.outputDir) fail("Either output_dirpath or output_fpath must be provided", "output_fpath", "pass -o/--output FILE or --output-dir DIR");
  if (spec.outputPath && spec.outputDir) fail("Cannot specify both output_dirpath and output_fpath", "output_dirpath", "keep one of -o/--output and --output-dir");
  if (spec.artifactPath && spec.split) {
    fail("Cannot specify both artifact_fpath and split. Use artifact_fpath for targeting a raw file, or split for structured datasets.", "split", "drop --split or --artifact");
  }
  if (spec.outputPath && !spec.split && !spec.artifactPath) {
    fail("When using output_fpath without artifact_fpath, split must be specified. Use output_dirpath to download all splits.", "output_fpath", "add --split, or use --output-dir DIR");
  }
  return spec;
}

/** `resolve/main/<path>` with each path segment escaped. */
function resolveUrl(repoId: string, path: string): string {
  return `/datasets/${repoId}/resolve/main/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** List every file of the repo (the tree API pages with `Link: <…>; rel="next"`). */
export async function listRepoFiles(http: HubHttp, repoId: string): Promise<string[]> {
  const files: string[] = [];
  let url: string | undefined = `/api/datasets/${repoId}/tree/main?recursive=true`;
  for (let page = 0; url && page < 1000; page++) {
    const res = await http.request(url);
    const entries = (await res.json()) as { type?: string; path?: string }[];
    for (const e of entries) if (e.type === "file" && typeof e.path === "string") files.push(e.path);
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get("link") ?? "");
    url = next?.[1];
  }
  return files;
}

/** Fetch files from the repo and write them, concatenated, to `dest` (a line break between files). */
async function fetchInto(http: HubHttp, repoId: string, paths: string[], dest: string): Promise<number> {
  const sink = Bun.file(dest).writer();
  let bytes = 0;
  let lastByte = 10;
  try {
    for (const p of paths) {
      const res = await http.request(resolveUrl(repoId, p));
      if (bytes > 0 && lastByte !== 10) {
        await sink.write("\n");
        bytes++;
      }
      for await (const chunk of res.body ?? []) {
        if (chunk.byteLength === 0) continue;
        await sink.write(chunk);
        bytes += chunk.byteLength;
        lastByte = chunk[chunk.byteLength - 1]!;
      }
    }
  } finally {
    await sink.end();
  }
  return bytes;
}

/** Download per the spec; returns the final output paths. */
export async function downloadFromHf(spec: HfDownloadSpec, http: HubHttp): Promise<string[]> {
  const { paths } = await withStagedOutputs(async (out) => {
    if (spec.artifactPath) {
      const dest = spec.outputPath ?? join(spec.outputDir!, basename(spec.artifactPath));
      log.info(`Downloading file '${spec.artifactPath}' from '${spec.repoId}'...`);
      await fetchInto(http, spec.repoId, [spec.artifactPath], out.stage(dest));
      return;
    }
    log.info(`Downloading '${spec.split ?? "all"}' split(s) from '${spec.repoId}'...`);
    const splits = jsonlSplits(spec.repoId, await listRepoFiles(http, spec.repoId));
    const wanted = spec.split ? [spec.split] : [...splits.keys()];
    for (const split of wanted) {
      const files = splits.get(split);
      if (!files) {
        throw new ConfigError(`Hugging Face dataset '${spec.repoId}' has no '${split}' split (its JSONL splits: ${[...splits.keys()].join(", ")})`, {
          key: "split",
          hint: "pick one of those splits, or omit --split (with --output-dir) to download them all",
        });
      }
      const dest = spec.outputPath ?? join(spec.outputDir!, `${split}.jsonl`);
      log.info(`Downloading ${split} split (${files.join(", ")}) to ${dest}`);
      await fetchInto(http, spec.repoId, files, out.stage(dest));
    }
  });
  return paths;
}
