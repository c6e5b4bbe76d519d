/**
 * Fetching a missing dataset during collation (components §4.1 step 2, §4.2): a Hugging Face
 * raw file (`source: {type: huggingface, repo_id, artifact_fpath}` or the legacy
 * `huggingface_identifier`). Credentials are checked first; calls honour the proxy variables
 * (D34: external endpoints) and carry a deadline.
 */
import { assertReachable } from "../runtime/http/offline.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError, RuntimeError } from "../errors.ts";
import { log } from "../log.ts";
import type { ResolvedConfig } from "../config/types.ts";
import type { DatasetEntry } from "./dataset-entry.ts";
import { readEnv } from "../env.ts";
import { MlflowRegistry, mlflowHttp } from "./gitlab-mlflow.ts";
import { downloadFromGitlab } from "./gitlab-transfer.ts";
import { keysOf } from "./upload-keys.ts";

const DOWNLOAD_TIMEOUT_MS = 600_000;

/** Download one dataset to its `jsonl_fpath`. */
export async function downloadDataset(d: DatasetEntry, dataSource: "huggingface" | "gitlab", resolved: ResolvedConfig): Promise<void> {
  const src = d.config.source as Record<string, unknown> | undefined;
  const hf = src?.type === "huggingface" ? src : (d.config.huggingface_identifier as Record<string, unknown> | undefined);
  const gl = src?.type === "gitlab" ? src : (d.config.gitlab_identifier as Record<string, unknown> | undefined);
  const use = hf && gl ? dataSource : hf ? "huggingface" : gl ? "gitlab" : undefined;
  if (!use) {
    throw new ConfigError(`dataset '${d.name}' of '${d.agent}' is missing at ${d.path} and has no source to download it from`, {
      hint: d.type === "benchmark" ? `prepare it first: gym eval prepare --config … (or --benchmark NAME for a catalog benchmark)` : "add a `source:` block or provide the file",
    });
  }
  if (use === "gitlab") {
    // Credentials first (mlflowHttp throws the config error naming the env.yaml keys), then the identifier.
    const registry = new MlflowRegistry(mlflowHttp(keysOf(resolved)));
    const id = { dataset_name: gl!.dataset_name, version: gl!.version, artifact_fpath: gl!.artifact_fpath };
    const absent = Object.entries(id).filter(([, v]) => v === undefined || v === null || v === "").map(([k]) => k);
    if (absent.length > 0) throw new ConfigError(`dataset '${d.name}': its GitLab source needs ${absent.join(", ")}`, { hint: "add them to the dataset's `source:` block" });
    log.info(`Downloading dataset \`${d.name}\` from the GitLab registry (${id.dataset_name} ${id.version})`);
    await downloadFromGitlab({ datasetName: String(id.dataset_name), version: String(id.version), artifactPath: String(id.artifact_fpath), outputPath: d.path }, registry);
    return;
  }
  const keys = keysOf(resolved);
  const token = keys.str("hf_token");
  if (!token) throw new ConfigError(`downloading '${d.name}' from Hugging Face needs hf_token`, { key: "hf_token", hint: "set +hf_token=… (or in env.yaml)" });
  const repo = String(hf!.repo_id ?? "");
  const artifact = hf!.artifact_fpath === undefined ? undefined : String(hf!.artifact_fpath);
  if (!repo || !artifact) {
    throw new ConfigError(`dataset '${d.name}': a Hugging Face source needs repo_id and artifact_fpath here (split downloads need \`gym dataset download\`)`, { hint: "add artifact_fpath to the source block" });
  }
  const endpoint = (keys.str("hf_endpoint") ?? readEnv().hfEndpoint ?? "https://huggingface.co").replace(/\/$/, "");
  const url = `${endpoint}/datasets/${repo}/resolve/main/${artifact}`;
  log.info(`Downloading dataset \`${d.name}\` from ${url}`);
  assertReachable(url);
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) }).catch((e) => {
    throw new RuntimeError(`GET ${url} failed: ${(e as Error).message}`);
  });
  if (!res.ok) throw new RuntimeError(`GET ${url} → ${res.status}`, { hint: res.status === 401 || res.status === 403 ? "check hf_token's access to the repo" : undefined });
  mkdirSync(dirname(d.path), { recursive: true });
  writeFileSync(d.path, new Uint8Array(await res.arrayBuffer()));
}
