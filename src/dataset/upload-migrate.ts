/**
 * Hugging Face upload with an optional (upload: `delete_from_gitlab`) or mandatory (`gym dataset
 * migrate`) deletion of the same dataset from GitLab afterwards (components §4.2). Everything that
 * can be checked is checked before the first call: keys, the train-split rows, the GitLab
 * credentials, and whether the deletion can be confirmed at all.
 */
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import { MlflowRegistry, mlflowHttp } from "./gitlab-mlflow.ts";
import { deleteFromGitlab } from "./gitlab-transfer.ts";
import { HubHttp } from "./hf-http.ts";
import { hfEndpoint, hfUploadSpec, uploadToHf } from "./hf-upload.ts";
import { assertCanConfirm, type ConfirmIO } from "./upload-confirm.ts";
import type { Keys } from "./upload-keys.ts";

/** How the upload ends. */
export interface UploadMigrateOptions {
  /** Delete the dataset (named `dataset_name`) from GitLab after the upload. */
  deleteFromGitlab: boolean;
  /** `--yes`: no `[y/N]` question. */
  yes: boolean;
  io: ConfirmIO;
  /** `HF_ENDPOINT` from the environment. */
  envEndpoint: string | undefined;
  cwd?: string;
}

/** Upload to HF (then delete from GitLab when asked); returns the line to print on stdout (PR or commit URL). */
export async function uploadMaybeDelete(keys: Keys, opts: UploadMigrateOptions): Promise<string> {
  const spec = hfUploadSpec(keys, opts.cwd);
  let registry: MlflowRegistry | undefined;
  if (opts.deleteFromGitlab) {
    if (!spec.datasetName) {
      throw new ConfigError("dataset_name is required to delete the dataset from GitLab afterwards (it is the registry's case-sensitive name)", {
        key: "dataset_name",
        hint: "pass --name NAME (the same name is used for the Hugging Face repo)",
      });
    }
    registry = new MlflowRegistry(mlflowHttp(keys));
    assertCanConfirm(opts.yes, opts.io, `'${spec.datasetName}' from GitLab`);
  }
  const http = new HubHttp(hfEndpoint(keys, opts.envEndpoint), spec.token, "Hugging Face", keys);
  const { repoId, commit } = await uploadToHf(spec, http, opts.cwd);
  let line: string;
  if (spec.createPr) {
    line = commit.pullRequestUrl ?? commit.commitUrl ?? `${http.baseUrl}/datasets/${repoId}`;
    log.success(`Pull Request created: ${line}`);
  } else {
    line = commit.commitUrl ?? `${http.baseUrl}/datasets/${repoId}`;
    log.success(`Dataset upload successful: ${repoId}`);
  }
  if (registry) await deleteFromGitlab(spec.datasetName!, registry, { yes: opts.yes, io: opts.io });
  return line;
}
