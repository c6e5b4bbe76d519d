/**
 * W&B over its REST/GraphQL protocol (components §5): `upsertBucket` creates the run,
 * `file_stream` carries history and summary rows, `createRunFiles` + PUT uploads the rollouts
 * table. Needs `wandb_project`, `wandb_name` and `wandb_api_key`; otherwise it is skipped.
 */
import { redactSecrets } from "../config/redact.ts";
import { log } from "../log.ts";
import { call, setting, type Exporter, type ExporterFactory } from "./types.ts";
import { ConfigError, RuntimeError } from "../errors.ts";

const UPSERT = `mutation UpsertBucket($name: String, $project: String, $entity: String, $displayName: String, $config: JSONString) {
  upsertBucket(input: {name: $name, modelName: $project, entityName: $entity, displayName: $displayName, config: $config}) {
    bucket { id name displayName project { name entity { name } } }
  }
}`;
const VIEWER = `query Viewer { viewer { entity } }`;
const CREATE_FILES = `mutation CreateRunFiles($entity: String!, $project: String!, $run: String!, $files: [String!]!) {
  createRunFiles(input: {entityName: $entity, projectName: $project, runName: $run, files: $files}) {
    runID uploadHeaders files { name uploadUrl }
  }
}`;

function runId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");
}

/** Open a W&B run when fully configured. */
export const openWandb: ExporterFactory = async (get, dict) => {
  const project = setting(get, "wandb_project");
  const name = setting(get, "wandb_name");
  const key = setting(get, "wandb_api_key");
  if (!project || !name || !key) return undefined;
  const base = (setting(get, "wandb_base_url") ?? "https://api.wandb.ai").replace(/\/$/, "");
  const auth = `Basic ${btoa(`api:${key}`)}`;
  const gql = async (query: string, variables: Record<string, unknown>) => {
    const res = await call(`${base}/graphql`, { method: "POST", headers: { authorization: auth, "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
    const body = (await res.json()) as { data?: Record<string, unknown>; errors?: { message: string }[] };
    if (body.errors?.length) throw new RuntimeError(`W&B GraphQL: ${body.errors.map((e) => e.message).join("; ")}`, { hint: "check wandb_api_key, wandb_project and wandb_base_url" });
    return body.data ?? {};
  };
  let entity = setting(get, "wandb_entity");
  if (!entity) entity = String(((await gql(VIEWER, {})).viewer as { entity?: string } | undefined)?.entity ?? "");
  if (!entity) throw new ConfigError("W&B: no entity for this API key", { key: "wandb_entity", hint: "set +wandb_entity=<team or user>" });
  const run = runId();
  const config: Record<string, { value: unknown }> = {};
  for (const [k, v] of Object.entries(redactSecrets(dict))) config[k] = { value: v };
  await gql(UPSERT, { name: run, project, entity, displayName: name, config: JSON.stringify(config) });
  log.info(`W&B run ${base.replace("api.", "")}/${entity}/${project}/runs/${run}`);
  const stream = `${base}/files/${entity}/${project}/${run}/file_stream`;
  const started = Date.now() / 1000;
  let step = 0;
  const summary: Record<string, unknown> = {};
  const post = (body: unknown) => call(stream, { method: "POST", headers: { authorization: auth, "content-type": "application/json" }, body: JSON.stringify(body) });
  const history = async (row: Record<string, unknown>) => {
    const now = Date.now() / 1000;
    Object.assign(summary, row);
    const line = JSON.stringify({ ...row, _step: step, _runtime: now - started, _timestamp: now });
    await post({ files: { "wandb-history.jsonl": { offset: step, content: [line] }, "wandb-summary.json": { offset: 0, content: [JSON.stringify(summary)] } } });
    step++;
  };
  const exporter: Exporter = {
    name: "wandb",
    async logMetrics(flat) {
      const row: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(flat)) if (typeof v === "number" || typeof v === "boolean" || typeof v === "string") row[k] = v;
      await history(row);
    },
    async logRollouts(rows) {
      if (rows.length === 0) return;
      const table = JSON.stringify({ columns: ["Rollout"], data: rows.map((r) => [r]) });
      const bytes = new TextEncoder().encode(table);
      const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
      const path = `media/table/Rollouts_${step}_${sha256.slice(0, 20)}.table.json`;
      const created = (await gql(CREATE_FILES, { entity, project, run, files: [path] })).createRunFiles as { files?: { name: string; uploadUrl: string }[] } | undefined;
      const url = created?.files?.find((f) => f.name === path)?.uploadUrl;
      if (!url) throw new RuntimeError("W&B: createRunFiles returned no upload URL", { hint: "check wandb_base_url points at a W&B server" });
      await call(url, { method: "PUT", body: bytes, headers: { "content-type": "application/json" } });
      await history({ Rollouts: { _type: "table-file", path, sha256, size: bytes.length, ncols: 1, nrows: rows.length } });
    },
    async close() {
      await post({ complete: true, exitcode: 0 });
    },
  };
  return exporter;
};
