/**
 * GitLab's model registry through its MLflow-compatible REST API (components §4.3): registered
 * models, model versions, the run behind a version and its artifact URI. The tracking URI is
 * `https://<gitlab>/api/v4/projects/<id>/ml/mlflow`; the token is sent as a bearer token.
 */
import { ConfigError, RuntimeError } from "../errors.ts";
import { log } from "../log.ts";
import { HubHttp, HubHttpError } from "./hf-http.ts";
import type { Keys } from "./upload-keys.ts";
import { isHttpUrl } from "../util/http-url.ts";

const API = "/api/2.0/mlflow";

/** The MLflow credentials of the config, or the upstream error naming the env.yaml keys. */
export function mlflowHttp(keys: Keys): HubHttp {
  const uri = keys.str("mlflow_tracking_uri");
  const token = keys.str("mlflow_tracking_token");
  if (!uri || !token) {
    throw new ConfigError(
      "GitLab dataset storage needs MLflow credentials. Add to env.yaml:\n  mlflow_tracking_uri: <your_gitlab_uri>\n  mlflow_tracking_token: <your_gitlab_token>",
      { key: uri ? "mlflow_tracking_token" : "mlflow_tracking_uri", hint: "the tracking URI looks like https://<gitlab>/api/v4/projects/<project id>/ml/mlflow" },
    );
  }
  if (!isHttpUrl(uri)) {
    throw new ConfigError(`mlflow_tracking_uri must be an http(s) URL, got '${uri}'`, { key: "mlflow_tracking_uri", location: keys.where("mlflow_tracking_uri") });
  }
  return new HubHttp(uri.replace(/\/+$/, ""), token, "GitLab", keys);
}

/** A 4xx answer: MLflow's RestException (the entity exists, or does not). 5xx and transport errors are not. */
function isRestError(e: unknown): e is HubHttpError {
  return e instanceof HubHttpError && e.status >= 400 && e.status < 500;
}

/** A model version as the registry returns it (the fields gym reads). */
export interface ModelVersion {
  name?: string;
  version?: string;
  run_id?: string;
}

/** The registry calls the dataset commands make. */
export class MlflowRegistry {
  constructor(readonly http: HubHttp) {}

  /** Create a registered model; an existing one (any 4xx, as upstream ignores RestException) is fine. */
  async createRegisteredModel(name: string): Promise<void> {
    try {
      await this.http.json(`${API}/registered-models/create`, { json: { name } });
    } catch (e) {
      if (!isRestError(e)) throw e;
      log.debug(`registered model '${name}' not created (${e.detail || e.status}); using the existing one`);
    }
  }

  /** The model version, or undefined when the registry does not have it. */
  async getModelVersion(name: string, version: string): Promise<ModelVersion | undefined> {
    try {
      const q = new URLSearchParams({ name, version });
      return (await this.http.json<{ model_version?: ModelVersion }>(`${API}/model-versions/get?${q}`)).model_version ?? {};
    } catch (e) {
      if (isRestError(e)) return undefined;
      throw e;
    }
  }

  /** Create a model version; `source` carries the version as upstream passes it, and GitLab reads `gitlab.version`. */
  async createModelVersion(name: string, version: string): Promise<ModelVersion> {
    const body = { name, source: version, tags: [{ key: "gitlab.version", value: version }] };
    return (await this.http.json<{ model_version?: ModelVersion }>(`${API}/model-versions/create`, { json: body })).model_version ?? {};
  }

  /** The artifact root URI of a run. */
  async runArtifactUri(runId: string): Promise<string> {
    const q = new URLSearchParams({ run_id: runId });
    const run = await this.http.json<{ run?: { info?: { artifact_uri?: string } } }>(`${API}/runs/get?${q}`);
    const uri = run.run?.info?.artifact_uri;
    if (!uri) throw new RuntimeError(`GitLab: run '${runId}' has no artifact_uri`, { hint: "check that the model version was created by the GitLab model registry" });
    return uri;
  }

  /** The HTTP URL of a file under an artifact root (`mlflow-artifacts:` roots map onto the tracking server). */
  artifactUrl(artifactUri: string, file: string): string {
    const rel = file.replace(/^\/+/, "").split("/").map(encodeURIComponent).join("/");
    if (/^https?:\/\//.test(artifactUri)) return `${artifactUri.replace(/\/+$/, "")}/${rel}`;
    const m = /^mlflow-artifacts:(?:\/\/[^/]*)?\/?(.*)$/.exec(artifactUri);
    if (m) return `${this.http.baseUrl}/api/2.0/mlflow-artifacts/artifacts/${m[1]!.replace(/\/+$/, "")}${m[1] ? "/" : ""}${rel}`;
    throw new RuntimeError(`GitLab: unsupported artifact URI '${artifactUri}' (expected http(s) or mlflow-artifacts:)`);
  }

  /** True when the registered model exists; false (with the registry's message) when it does not. */
  async registeredModelExists(name: string): Promise<{ exists: boolean; detail: string }> {
    try {
      await this.http.json(`${API}/registered-models/get?${new URLSearchParams({ name })}`);
      return { exists: true, detail: "" };
    } catch (e) {
      if (isRestError(e)) return { exists: false, detail: e.detail || `HTTP ${e.status}` };
      throw e;
    }
  }

  /** Delete a registered model (MLflow's DELETE with a JSON body). */
  async deleteRegisteredModel(name: string): Promise<void> {
    await this.http.json(`${API}/registered-models/delete`, { method: "DELETE", json: { name } });
  }
}
