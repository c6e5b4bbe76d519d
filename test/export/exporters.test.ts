import { describe, expect, test } from "bun:test";
import { setupExporters } from "../../src/export/index.ts";
import { configAccess } from "../../src/config/access.ts";
import { sanitizeMlflowKey } from "../../src/export/mlflow.ts";

interface Hit {
  method: string;
  path: string;
  body: string;
  auth: string | null;
}

/** A recorder that answers like the W&B and MLflow endpoints the exporters use. */
function startTracker(opts: { failMetrics?: boolean } = {}) {
  const hits: Hit[] = [];
  const artifacts = new Map<string, string>();
  let port = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      const body = await req.text();
      hits.push({ method: req.method, path: url.pathname + url.search, body, auth: req.headers.get("authorization") });
      const p = url.pathname;
      // W&B
      if (p === "/graphql") {
        const q = JSON.parse(body) as { query: string; variables: Record<string, unknown> };
        if (q.query.includes("viewer")) return Response.json({ data: { viewer: { entity: "me" } } });
        if (q.query.includes("upsertBucket")) return Response.json({ data: { upsertBucket: { bucket: { id: "b1", name: q.variables.name } } } });
        if (q.query.includes("createRunFiles")) {
          const files = (q.variables.files as string[]).map((name) => ({ name, uploadUrl: `http://127.0.0.1:${port}/upload/${encodeURIComponent(name)}` }));
          return Response.json({ data: { createRunFiles: { runID: "r", uploadHeaders: [], files } } });
        }
      }
      if (p.includes("/file_stream")) return Response.json({});
      if (p.startsWith("/upload/")) return new Response("");
      // MLflow
      if (p === "/api/2.0/mlflow/experiments/get-by-name") return Response.json({ error_code: "RESOURCE_DOES_NOT_EXIST" }, { status: 404 });
      if (p === "/api/2.0/mlflow/experiments/create") return Response.json({ experiment_id: "7" });
      if (p === "/api/2.0/mlflow/runs/create") return Response.json({ run: { info: { run_id: "run1", artifact_uri: "x" } } });
      if (p === "/api/2.0/mlflow/runs/log-batch") {
        if (opts.failMetrics && body.includes('"metrics"')) return Response.json({ error_code: "INTERNAL" }, { status: 500 });
        return Response.json({});
      }
      if (p === "/api/2.0/mlflow/runs/set-tag" || p === "/api/2.0/mlflow/runs/update") return Response.json({});
      if (p.startsWith("/api/2.0/mlflow-artifacts/artifacts/")) {
        if (req.method === "PUT") {
          artifacts.set(p, body);
          return new Response("");
        }
        const a = artifacts.get(p);
        return a === undefined ? new Response("", { status: 404 }) : new Response(a);
      }
      return Response.json({ detail: "Not Found" }, { status: 404 });
    },
  });
  port = server.port!;
  return { hits, artifacts, url: `http://127.0.0.1:${port}`, stop: () => server.stop(true) };
}

function getter(dict: Record<string, unknown>) {
  return configAccess({ dict });
}

describe("exporters", () => {
  test("silently skipped without keys; a masked key counts as unset", async () => {
    const t = startTracker();
    try {
      const dict = { wandb_project: "p", wandb_name: "n", wandb_api_key: "****", wandb_base_url: t.url, mlflow_tracking_uri: t.url, mlflow_experiment_name: "e" };
      const ex = await setupExporters(getter(dict));
      expect(ex.names).toEqual([]);
      ex.spoolRollout({ reward: 1 });
      await ex.logMetrics({ a: 1 });
      await ex.finish();
      expect(t.hits.length).toBe(0);
    } finally {
      t.stop();
    }
  });

  test("W&B: run upsert, metrics history, rollouts table, finish", async () => {
    const t = startTracker();
    try {
      const dict = { wandb_project: "proj", wandb_name: "my run", wandb_api_key: "k123", wandb_base_url: t.url, policy_api_key: "sk-secret" };
      const ex = await setupExporters(getter(dict));
      expect(ex.names).toEqual(["wandb"]);
      ex.spoolRollout({ reward: 1, ng_trajectory: { big: true }, _ng_task_index: 0 });
      ex.spoolRollout({ reward: 0, _ng_task_index: 1 });
      await ex.logMetrics({ "agent/mean/reward": 0.5, "key_metrics/agent/mean/reward": 0.5 });
      await ex.finish();
      // The key goes to the API, never to the signed upload URL.
      expect(t.hits.filter((h) => !h.path.startsWith("/upload/")).every((h) => h.auth === `Basic ${btoa("api:k123")}`)).toBe(true);
      expect(t.hits.find((h) => h.path.startsWith("/upload/"))!.auth).toBeNull();
      const upsert = t.hits.find((h) => h.body.includes("upsertBucket"))!;
      const vars = JSON.parse(upsert.body).variables;
      expect(vars).toMatchObject({ project: "proj", entity: "me", displayName: "my run" });
      // Secrets never leave in the run config.
      expect(vars.config).not.toContain("sk-secret");
      const streams = t.hits.filter((h) => h.path.startsWith(`/files/me/proj/${vars.name}/file_stream`)).map((h) => JSON.parse(h.body));
      const history = streams.flatMap((s) => s.files?.["wandb-history.jsonl"]?.content ?? []).map((l: string) => JSON.parse(l));
      expect(history[0]).toMatchObject({ "agent/mean/reward": 0.5, _step: 0 });
      expect(history[1].Rollouts).toMatchObject({ _type: "table-file", ncols: 1, nrows: 2 });
      expect(streams.at(-1)).toEqual({ complete: true, exitcode: 0 });
      const upload = t.hits.find((h) => h.path.startsWith("/upload/"))!;
      const table = JSON.parse(upload.body);
      expect(table.columns).toEqual(["Rollout"]);
      expect(table.data.length).toBe(2);
      expect(table.data[0][0]).not.toContain("ng_trajectory");
    } finally {
      t.stop();
    }
  });

  test("MLflow: experiment created, params, metrics and tags batched, rollouts artifact appended, FINISHED; a failing call only warns", async () => {
    const t = startTracker({ failMetrics: true });
    try {
      const dict = { mlflow_tracking_uri: t.url, mlflow_experiment_name: "exp", mlflow_run_name: "run", mlflow_tracking_token: "tok", nested: { a: [1, 2] }, hf_token: "hf_secret" };
      const ex = await setupExporters(getter(dict));
      expect(ex.names).toEqual(["mlflow"]);
      ex.spoolRollout({ reward: 1 });
      await ex.logMetrics({ "agent/pass@1/accuracy": 50, "agent/label": "x" }); // metrics batch fails → warning only
      await ex.finish();
      expect(t.hits.every((h) => h.auth === "Bearer tok")).toBe(true);
      const paths = t.hits.map((h) => `${h.method} ${h.path.split("?")[0]}`);
      expect(paths).toContain("POST /api/2.0/mlflow/experiments/create");
      expect(paths).toContain("POST /api/2.0/mlflow/runs/create");
      expect(paths.at(-1)).toBe("POST /api/2.0/mlflow/runs/update");
      const config = t.artifacts.get("/api/2.0/mlflow-artifacts/artifacts/7/run1/artifacts/global_config.json")!;
      expect(config).not.toContain("hf_secret");
      const params = t.hits.filter((h) => h.path.endsWith("log-batch") && h.body.includes('"params"')).flatMap((h) => JSON.parse(h.body).params);
      expect(params).toContainEqual({ key: "nested.a_1_", value: "2" });
      const tags = t.hits.filter((h) => h.body.includes('"tags"')).flatMap((h) => JSON.parse(h.body).tags);
      expect(tags).toContainEqual({ key: "agent/label", value: "x" });
      const metrics = t.hits.filter((h) => h.body.includes('"metrics"')).flatMap((h) => JSON.parse(h.body).metrics);
      expect(metrics[0]).toMatchObject({ key: "agent/pass_at_1/accuracy", value: 50, step: 0 });
      const rollouts = JSON.parse(t.artifacts.get("/api/2.0/mlflow-artifacts/artifacts/7/run1/artifacts/rollouts.json")!);
      expect(rollouts).toEqual({ columns: ["Rollout"], data: [['{"reward":1}']] });
    } finally {
      t.stop();
    }
  });

  test("MLflow key sanitising", () => {
    expect(sanitizeMlflowKey("a/pass@1[avg-of-4]/x")).toBe("a/pass_at_1_avg-of-4_/x");
    expect(sanitizeMlflowKey("a//b/../.c")).toBe("a/b/__/_c");
    const long = sanitizeMlflowKey("k".repeat(400));
    expect(long.length).toBe(250);
    expect(long).toContain("___");
    expect(sanitizeMlflowKey("@")).toBe("_at_");
    expect(sanitizeMlflowKey("///")).toBe("");
  });
});
