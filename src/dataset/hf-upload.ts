/**
 * `gym dataset upload` to Hugging Face (components §4.2, upstream `hf_utils.upload_jsonl_dataset`):
 * check the keys and (for the train split) every row's `responses_create_params` before any call,
 * then create the private dataset repo (exists is fine; 403 is fine with create_pr), make sure it
 * is in the collection, and commit the file under its base name.
 */
import { existsSync, statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { ConfigError, ConfigErrors } from "../errors.ts";
import { log } from "../log.ts";
import { readLines } from "../util/jsonl.ts";
import { commitFile, type CommitResult } from "./hf-commit.ts";
import { HubHttp, HubHttpError } from "./hf-http.ts";
import { hfCollectionSlug, hfRepoId, resourcesServerInfo } from "./hf-naming.ts";
import type { Keys } from "./upload-keys.ts";
import { isHttpUrl } from "../util/http-url.ts";

/** Default `hf_dataset_prefix`. */
export const DEFAULT_HF_PREFIX = "Nemotron-RL";
/** Default Hub base URL. */
export const DEFAULT_HF_ENDPOINT = "https://huggingface.co";

/** The validated keys of an HF upload. */
export interface HfUploadSpec {
  token: string;
  organization: string;
  collectionName: string;
  collectionSlug: string;
  inputPath: string;
  resourceConfigPath: string;
  datasetName: string | undefined;
  prefix: string;
  split: "train" | "validation" | "test";
  createPr: boolean;
  revision: string | undefined;
  commitMessage: string | undefined;
  commitDescription: string | undefined;
}

/** The Hub base URL: `hf_endpoint`, else `HF_ENDPOINT`, else huggingface.co. */
export function hfEndpoint(keys: Keys, envEndpoint: string | undefined): string {
  const raw = keys.str("hf_endpoint") ?? envEndpoint ?? DEFAULT_HF_ENDPOINT;
  if (!isHttpUrl(raw)) {
    throw new ConfigError(`hf_endpoint must be an http(s) URL, got '${raw}'`, { key: "hf_endpoint", location: keys.where("hf_endpoint") });
  }
  return raw.replace(/\/+$/, "");
}

const REQUIRED: [key: string, hint: string][] = [
  ["hf_token", "set hf_token in env.yaml (or +hf_token=…)"],
  ["hf_organization", "+hf_organization=<org>"],
  ["hf_collection_name", "+hf_collection_name=<name>"],
  ["hf_collection_slug", "+hf_collection_slug=<slug at the end of the collection URL>"],
  ["input_jsonl_fpath", "-i/--input PATH"],
  ["resource_config_path", "+resource_config_path=resources_servers/<name>/configs/<name>.yaml"],
];

/** Read and check the upload keys; every missing required key is reported at once. */
export function hfUploadSpec(keys: Keys, cwd: string = process.cwd()): HfUploadSpec {
  const missing = REQUIRED.filter(([k]) => keys.str(k) === undefined).map(([k, hint]) => new ConfigError(`${k} is required (${hint})`, { key: k }));
  if (missing.length > 0) throw new ConfigErrors("Hugging Face upload: missing required keys", missing, "set them in env.yaml or as +key=value overrides");
  const inputPath = resolve(cwd, keys.need("input_jsonl_fpath", "-i/--input PATH"));
  if (!existsSync(inputPath) || !statSync(inputPath).isFile()) {
    throw new ConfigError(`input_jsonl_fpath: no such file: ${inputPath}`, { key: "input_jsonl_fpath", location: keys.where("input_jsonl_fpath"), hint: "check the path (relative paths are taken from the current directory)" });
  }
  return {
    token: keys.need("hf_token", ""),
    organization: keys.need("hf_organization", ""),
    collectionName: keys.need("hf_collection_name", ""),
    collectionSlug: keys.need("hf_collection_slug", ""),
    inputPath,
    resourceConfigPath: keys.need("resource_config_path", ""),
    datasetName: keys.str("dataset_name"),
    // An explicitly empty prefix means none (upstream drops the `-` too).
    prefix: keys.has("hf_dataset_prefix") ? (keys.str("hf_dataset_prefix") ?? "") : DEFAULT_HF_PREFIX,
    split: keys.choice("split", ["train", "validation", "test"] as const, "train")!,
    createPr: keys.bool("create_pr", false),
    revision: keys.str("revision"),
    commitMessage: keys.str("commit_message"),
    commitDescription: keys.str("commit_description"),
  };
}

/** The train-split check: every row is a JSON object with `responses_create_params` (seed: FAQ). */
export async function checkTrainRows(path: string): Promise<number> {
  const bad: string[] = [];
  let rows = 0;
  for await (const l of readLines(path)) {
    if (l.text.trim() === "") continue;
    rows++;
    let row: unknown;
    try {
      row = JSON.parse(l.text);
    } catch (e) {
      bad.push(`line ${l.lineNo}: not JSON (${(e as Error).message})`);
      continue;
    }
    if (row === null || typeof row !== "object" || Array.isArray(row)) bad.push(`line ${l.lineNo}: not a JSON object`);
    else if (!Object.hasOwn(row, "responses_create_params")) bad.push(`line ${l.lineNo}: no responses_create_params`);
  }
  if (bad.length > 0) {
    const shown = bad.slice(0, 10).join("\n  ") + (bad.length > 10 ? `\n  … and ${bad.length - 10} more` : "");
    throw new ConfigError(`${path}: JSONL format check failed for the train split, nothing was uploaded; ${bad.length} of ${rows} row(s) are invalid:\n  ${shown}`, {
      key: "input_jsonl_fpath",
      hint: "every train row needs responses_create_params (validation and test splits are not checked: pass --split to upload as one of those)",
    });
  }
  return rows;
}

/** Create the repo; an existing repo is fine, and so is a 403 when the upload goes through a pull request. */
async function ensureRepo(http: HubHttp, repoId: string, createPr: boolean): Promise<void> {
  const [organization, name] = repoId.split("/") as [string, string];
  const res = await http.send("/api/repos/create", { json: { type: "dataset", name, organization, private: true } });
  if (res.ok || res.status === 409) {
    await res.body?.cancel().catch(() => {});
    log.info(`Repo '${repoId}' is ready for use`);
    return;
  }
  if (res.status === 403 && createPr) {
    await res.body?.cancel().catch(() => {});
    log.info(`Repo '${repoId}' exists (no create permission, will create PR)`);
    return;
  }
  throw await http.errorOf(res, "POST", http.url("/api/repos/create"));
}

/** Make sure the dataset is an item of the collection. */
async function ensureInCollection(http: HubHttp, slug: string, repoId: string): Promise<void> {
  const coll = await http.json<{ items?: { type?: string; item_type?: string; id?: string; item_id?: string }[] }>(`/api/collections/${slug}`);
  const present = (coll.items ?? []).some((it) => (it.type ?? it.item_type) === "dataset" && String(it.id ?? it.item_id ?? "").toLowerCase() === repoId.toLowerCase());
  if (present) {
    log.info(`Dataset '${repoId}' is already in collection '${slug}'`);
    return;
  }
  try {
    await http.json(`/api/collections/${slug}/items`, { json: { item: { type: "dataset", id: repoId } } });
  } catch (e) {
    // Someone added it between our read and our write.
    if (!(e instanceof HubHttpError && e.status === 409)) throw e;
  }
  log.info(`Dataset '${repoId}' added to collection '${slug}'`);
}

/** Upload a dataset; returns the repo id and the hub's commit answer (with the PR URL under create_pr). */
export async function uploadToHf(spec: HfUploadSpec, http: HubHttp, cwd?: string): Promise<{ repoId: string; commit: CommitResult }> {
  const rs = await resourcesServerInfo(spec.resourceConfigPath, cwd);
  const repoId = hfRepoId(spec.organization, spec.prefix, rs.domain, spec.datasetName ?? rs.name);
  const slug = hfCollectionSlug(spec.organization, spec.collectionName, spec.collectionSlug);
  const repoName = repoId.slice(repoId.indexOf("/") + 1);
  // The Hub's own rule for repo names; checked here so a bad name fails before any call.
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?$/.test(repoName) || repoName.length > 96 || /--|\.\./.test(repoName) || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(spec.organization)) {
    throw new ConfigError(`the Hugging Face repo id '${repoId}' is not valid: names use letters, digits, '-', '_' and '.' (not first or last), at most 96 characters, no '--' or '..'`, {
      key: spec.datasetName ? "dataset_name" : "hf_dataset_prefix",
      hint: "pick a --name (and hf_dataset_prefix / hf_organization) made of those characters",
    });
  }
  if (spec.split === "train") {
    const n = await checkTrainRows(spec.inputPath);
    log.info(`${spec.inputPath}: ${n} row(s) pass the train-split format check`);
  }
  log.info(`Uploading ${spec.inputPath} to ${http.baseUrl}/datasets/${repoId}${spec.createPr ? " (as a pull request)" : ""}`);
  await ensureRepo(http, repoId, spec.createPr);
  await ensureInCollection(http, slug, repoId);
  const pathInRepo = basename(spec.inputPath);
  const commit = await commitFile(http, {
    repoId,
    pathInRepo,
    content: await Bun.file(spec.inputPath).bytes(),
    revision: spec.revision,
    createPr: spec.createPr,
    summary: spec.commitMessage ?? `Upload ${pathInRepo} with gym`,
    description: spec.commitDescription,
  });
  return { repoId, commit };
}
