/**
 * Datasets in the GitLab model registry (components §4.3, upstream `gitlab_utils`): upload as an
 * artifact of a model version, download an artifact of a version, and delete a registered model
 * after a `[y/N]` confirmation (GitLab names are case-sensitive).
 */
import { existsSync, statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { ConfigError, RuntimeError } from "../errors.ts";
import { log } from "../log.ts";
import { MlflowRegistry } from "./gitlab-mlflow.ts";
import { withStagedOutputs } from "./upload-files.ts";
import { confirm, type ConfirmIO } from "./upload-confirm.ts";
import type { Keys } from "./upload-keys.ts";

/** GitLab model versions are semantic versions (`x.y.z`, optionally `-pre`/`+build`). */
const SEMVER = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/;

/** The keys of a GitLab upload. */
export interface GitlabUploadSpec {
  datasetName: string;
  version: string;
  inputPath: string;
}

/** Read and check the GitLab upload keys. */
export function gitlabUploadSpec(keys: Keys, cwd: string = process.cwd()): GitlabUploadSpec {
  const datasetName = keys.need("dataset_name", "pass --name NAME");
  const version = keys.need("version", "pass --revision X.Y.Z (+version)");
  if (!SEMVER.test(version)) {
    throw new ConfigError(`version must be in the format x.x.x, got '${version}'`, { key: "version", location: keys.where("version"), hint: "GitLab model versions are semantic versions, e.g. --revision 0.0.1" });
  }
  const inputPath = resolve(cwd, keys.need("input_jsonl_fpath", "pass -i/--input PATH"));
  if (!existsSync(inputPath) || !statSync(inputPath).isFile()) {
    throw new ConfigError(`input_jsonl_fpath: no such file: ${inputPath}`, { key: "input_jsonl_fpath", location: keys.where("input_jsonl_fpath") });
  }
  return { datasetName, version, inputPath };
}

/** Upload the file as an artifact at the root of the version's run; returns the command that downloads it. */
export async function uploadToGitlab(spec: GitlabUploadSpec, reg: MlflowRegistry): Promise<string> {
  await reg.createRegisteredModel(spec.datasetName);
  let mv = await reg.getModelVersion(spec.datasetName, spec.version);
  if (mv === undefined) {
    log.info(`Creating version ${spec.version} of '${spec.datasetName}' in the GitLab registry`);
    mv = await reg.createModelVersion(spec.datasetName, spec.version);
  }
  if (!mv.run_id) throw new RuntimeError(`GitLab: model version ${spec.version} of '${spec.datasetName}' has no run_id`, { hint: "check the registry's MLflow compatibility (GitLab ≥ 16.8)" });
  const artifactRoot = await reg.runArtifactUri(mv.run_id);
  const filename = basename(spec.inputPath);
  const url = reg.artifactUrl(artifactRoot, filename);
  log.info(`Uploading ${spec.inputPath} to ${reg.http.display(url)}`);
  const res = await reg.http.request(url, { method: "PUT", body: await Bun.file(spec.inputPath).bytes(), headers: { "content-type": "application/octet-stream" }, auth: true });
  await res.body?.cancel().catch(() => {});
  return [
    "Download this artifact:",
    "gym dataset download --storage gitlab \\",
    `    +dataset_name=${spec.datasetName} \\`,
    `    +version=${spec.version} \\`,
    `    +artifact_fpath=${filename} \\`,
    `    +output_fpath=${spec.inputPath}`,
  ].join("\n");
}

/** The keys of a GitLab download (all four required). */
export interface GitlabDownloadSpec {
  datasetName: string;
  version: string;
  artifactPath: string;
  outputPath: string;
}

/** Read and check the GitLab download keys. */
export function gitlabDownloadSpec(keys: Keys): GitlabDownloadSpec {
  return {
    datasetName: keys.need("dataset_name", "pass --name NAME"),
    version: keys.need("version", "pass --revision X.Y.Z (+version)"),
    artifactPath: keys.need("artifact_fpath", "pass --artifact FILE"),
    outputPath: keys.need("output_fpath", "pass -o/--output PATH"),
  };
}

/** Download one artifact of a model version to `output_fpath`; returns the final path. */
export async function downloadFromGitlab(spec: GitlabDownloadSpec, reg: MlflowRegistry): Promise<string> {
  const mv = await reg.getModelVersion(spec.datasetName, spec.version);
  if (mv === undefined) {
    throw new RuntimeError(`GitLab: no version ${spec.version} of dataset '${spec.datasetName}' in the registry`, { hint: "check --name (case-sensitive) and --revision" });
  }
  if (!mv.run_id) throw new RuntimeError(`GitLab: model version ${spec.version} of '${spec.datasetName}' has no run_id`);
  const url = reg.artifactUrl(await reg.runArtifactUri(mv.run_id), spec.artifactPath);
  log.info(`Downloading ${reg.http.display(url)}`);
  const { paths } = await withStagedOutputs(async (out) => {
    const res = await reg.http.request(url, { auth: true });
    await Bun.write(out.stage(spec.outputPath), await res.arrayBuffer());
  });
  return paths[0]!;
}

/** Delete a registered model after confirmation; returns what happened. */
export async function deleteFromGitlab(name: string, reg: MlflowRegistry, opts: { yes: boolean; io: ConfirmIO }): Promise<"deleted" | "skipped" | "absent"> {
  const found = await reg.registeredModelExists(name);
  if (!found.exists) {
    log.warn(`Model '${name}' not found in Gitlab: ${found.detail}`);
    return "absent";
  }
  const ok = opts.yes || (await confirm(`[Nemo-Gym] - Found model '${name}' in the registry. Are you sure you want to delete it from Gitlab? [y/N]: `, opts.io));
  if (!ok) {
    log.info(`Skipped deletion of '${name}'.`);
    return "skipped";
  }
  await reg.deleteRegisteredModel(name);
  log.info(`Deleted '${name}' from Gitlab.`);
  return "deleted";
}
