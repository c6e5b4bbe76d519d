/**
 * MLflow over its REST API (components §5): experiment by name (created when missing), a run,
 * the full config as `global_config.json` plus flattened params, metrics and string tags in
 * batches, the rollouts table as `rollouts.json`, and FINISHED on close. Needs
 * `mlflow_tracking_uri`, `mlflow_experiment_name` and `mlflow_run_name`; the token is optional.
 */
import { redactSecrets } from "../config/redact.ts";
import { log } from "../log.ts";
import { call, flattenParams, setting, type Exporter, type ExporterFactory } from "./types.ts";
import { RuntimeError } from "../errors.ts";

/** MLflow's key length limit. */
export const MAX_ENTITY_KEY_LENGTH = 250;
/** MLflow's param value limit. */
export const MAX_PARAM_VAL_LENGTH = 6000;

function normalise(key: string): string {
  const replaced = key.replaceAll("@", "_at_").replace(/[^/\w.\- :]/g, "_");
  return replaced
    .split("/")
    .filter((seg) => seg !== "")
    .map((seg) => (/^\.+$/.test(seg) ? "_".repeat(seg.length) : seg.replace(/^\.+/, (d) => "_".repeat(d.length))))
    .join("/");
}

/** MLflow-safe metric/tag key (MLflow rejects a whole batch on one bad key); "" when nothing is left. */
export function sanitizeMlflowKey(key: string): string {
  let k = normalise(key);
  if (k.length > MAX_ENTITY_KEY_LENGTH) {
    const keep = MAX_ENTITY_KEY_LENGTH - 3;
    const head = Math.ceil(keep / 2);
    k = `${k.slice(0, head)}___${k.slice(k.length - (keep - head))}`;
    k = normalise(k);
  }
  return k;
}

function chunks<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/** Open an MLflow run when fully configured. */
export const openMlflow: ExporterFactory = async (get, dict) => {
  const uri = setting(get, "mlflow_tracking_uri")?.replace(/\/$/, "");
  const experimentName = setting(get, "mlflow_experiment_name");
  const runName = setting(get, "mlflow_run_name");
  if (!uri || !experimentName || !runName) return undefined;
  const token = setting(get, "mlflow_tracking_token");
  const headers: Record<string, string> = { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const api = `${uri}/api/2.0/mlflow`;
  const getJson = async (path: string, okStatuses: number[] = []) => {
    const res = await call(`${api}/${path}`, { headers, okStatuses });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  };
  const postJson = async (path: string, body: unknown, okStatuses: number[] = []) => {
    const res = await call(`${api}/${path}`, { method: "POST", headers, body: JSON.stringify(body), okStatuses });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  };
  const findExperiment = async () => {
    const r = await getJson(`experiments/get-by-name?experiment_name=${encodeURIComponent(experimentName)}`, [404]);
    return r.status === 404 ? undefined : String((r.body.experiment as { experiment_id?: string } | undefined)?.experiment_id ?? "") || undefined;
  };
  let experimentId = await findExperiment();
  if (!experimentId) {
    const r = await postJson("experiments/create", { name: experimentName }, [400, 409]);
    // Another shard may have created it between the lookup and the create: look it up again.
    experimentId = r.status < 300 ? String(r.body.experiment_id) : await findExperiment();
    if (!experimentId) throw new RuntimeError(`MLflow: could not create experiment '${experimentName}'`, { hint: "check mlflow_tracking_uri and that the token may create experiments" });
  }
  const created = await postJson("runs/create", { experiment_id: experimentId, run_name: runName, start_time: Date.now() });
  const runId = String((created.body.run as { info?: { run_id?: string } } | undefined)?.info?.run_id ?? "");
  if (!runId) throw new RuntimeError("MLflow: runs/create returned no run id", { hint: "check that mlflow_tracking_uri points at an MLflow tracking server" });
  log.info(`MLflow run ${runId} in experiment '${experimentName}'`);
  const artifact = (name: string) => `${uri}/api/2.0/mlflow-artifacts/artifacts/${experimentId}/${runId}/artifacts/${name}`;
  const safeConfig = redactSecrets(dict);
  await call(artifact("global_config.json"), { method: "PUT", headers, body: JSON.stringify(safeConfig, null, 2) });
  const params = Object.entries(flattenParams(safeConfig)).map(([key, value]) => ({ key: sanitizeMlflowKey(key), value: value.slice(0, MAX_PARAM_VAL_LENGTH) }));
  for (const batch of chunks(params.filter((p) => p.key), 100)) await postJson("runs/log-batch", { run_id: runId, params: batch });

  const exporter: Exporter = {
    name: "mlflow",
    async logMetrics(flat) {
      const now = Date.now();
      const metrics: { key: string; value: number; timestamp: number; step: number }[] = [];
      const tags: { key: string; value: string }[] = [];
      for (const [raw, v] of Object.entries(flat)) {
        const key = sanitizeMlflowKey(raw);
        if (!key) {
          log.warn(`MLflow: metric key '${raw}' is empty after sanitising; dropped`);
          continue;
        }
        if (typeof v === "number" || typeof v === "boolean") metrics.push({ key, value: Number(v), timestamp: now, step: 0 });
        else if (typeof v === "string") tags.push({ key, value: v });
      }
      // One rejected batch must not cost the others: send all, then report the first failure.
      const errors: unknown[] = [];
      const send = async (body: unknown) => postJson("runs/log-batch", body).catch((e) => void errors.push(e));
      for (const batch of chunks(metrics, 1000)) await send({ run_id: runId, metrics: batch });
      for (const batch of chunks(tags, 100)) await send({ run_id: runId, tags: batch });
      if (errors.length > 0) throw errors[0];
    },
    async logRollouts(rows) {
      if (rows.length === 0) return;
      const existing = await call(artifact("rollouts.json"), { headers, okStatuses: [404] });
      let data: unknown[][] = [];
      if (existing.status < 300) {
        const prev = (await existing.json().catch(() => ({}))) as { data?: unknown[][] };
        if (Array.isArray(prev.data)) data = prev.data;
      }
      data.push(...rows.map((r) => [r]));
      await call(artifact("rollouts.json"), { method: "PUT", headers, body: JSON.stringify({ columns: ["Rollout"], data }) });
      await postJson("runs/set-tag", { run_id: runId, key: "mlflow.loggedArtifacts", value: JSON.stringify([{ path: "rollouts.json", type: "table" }]) });
    },
    async close() {
      await postJson("runs/update", { run_id: runId, status: "FINISHED", end_time: Date.now() });
    },
  };
  return exporter;
};
