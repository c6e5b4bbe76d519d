/** The verifier worker pool: load figures, failures by kind, the shared process pool, its size key and HTTP route. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { defaultPoolSize, poolSizeOf, verifierPool, WorkerJobError, WorkerPool } from "../../src/components/_worker-pool.ts";
import { ConfigError } from "../../src/errors.ts";
import { envStatus, formatStatus } from "../../src/runtime/process/status.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

const spawnBusy = () => new Worker(new URL("../fixtures/components/busy-worker.ts", import.meta.url).href);

describe("WorkerPool", () => {
  test("busy workers and queue depth while jobs run; totals after", async () => {
    const pool = new WorkerPool({ spawn: spawnBusy, size: 2, guardMs: 30_000 });
    try {
      const jobs = Array.from({ length: 5 }, () => pool.run({ ms: 150 }));
      expect(pool.stats()).toEqual({ size: 2, workers: 2, busy: 2, queued: 3, completed: 0, failed: 0 });
      const results = await Promise.all(jobs);
      expect(results.every((r) => r.done === 150 && r.thread === "worker")).toBe(true);
      expect(pool.stats()).toEqual({ size: 2, workers: 2, busy: 0, queued: 0, completed: 5, failed: 0 });
    } finally {
      pool.close();
    }
  });

  test("a reported error, a crash and an overrun reject with their kind; the pool carries on", async () => {
    const pool = new WorkerPool({ spawn: spawnBusy, size: 1, guardMs: 30_000 });
    try {
      const reported = await pool.run({ fail: "ValueError: bad kwargs" }).catch((e) => e);
      expect(reported).toBeInstanceOf(WorkerJobError);
      expect([reported.failure, reported.message]).toEqual(["reported", "ValueError: bad kwargs"]);
      const crashed = await pool.run({ crash: true }).catch((e) => e);
      expect([crashed.failure, crashed.message]).toEqual(["crash", expect.stringContaining("worker exploded")]);
      const overran = await pool.run({ hang: true }, { guardMs: 200 }).catch((e) => e);
      expect([overran.failure, overran.message]).toEqual(["overrun", "verification overran its 0.2 s guard"]);
      expect((await pool.run({ ms: 1 })).done).toBe(1);
      // A warm worker may answer before a sub-millisecond guard's timer fires: still an overrun.
      const late = await pool.run({ ms: 2 }, { guardMs: 0.001 }).catch((e) => e);
      expect(late.failure).toBe("overrun");
      expect(pool.stats()).toMatchObject({ completed: 1, failed: 4, busy: 0, queued: 0 });
    } finally {
      pool.close();
    }
    expect((await pool.run({}).catch((e) => e)).failure).toBe("closed");
  });

  test("verifier_workers sizes the pool (default cores − 1, at least 1); a bad value names the key", () => {
    const cores = navigator.hardwareConcurrency || 1;
    expect(defaultPoolSize()).toBe(Math.max(1, cores - 1));
    expect(poolSizeOf("rs", {})).toBe(defaultPoolSize());
    expect(poolSizeOf("rs", { verifier_workers: 3 })).toBe(3);
    for (const bad of [0, -1, 1.5, "many"]) expect(() => poolSizeOf("rs", { verifier_workers: bad })).toThrow(ConfigError);
    expect(() => poolSizeOf("rs", { verifier_workers: 0 })).toThrow("rs: verifier_workers must be a positive integer");
  });

  test("one pool per process: users share it; the last release stops it", async () => {
    const a = verifierPool(2);
    const b = verifierPool(5);
    expect(b.pool).toBe(a.pool);
    expect(a.pool.stats().size).toBe(2);
    a.release();
    a.release(); // idempotent
    expect((await b.pool.run({ task: "math", expected: "2", generated: "\\boxed{2}" })).reward).toBe(1);
    b.release();
    expect((await b.pool.run({ task: "math" }).catch((e) => e)).failure).toBe("closed");
    const c = verifierPool(1);
    expect(c.pool).not.toBe(a.pool);
    c.release();
  });
});

describe("servers on the pool", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([
      { name: "if", serverType: "resources_servers", impl: "instruction_following", leaf: { verifier_workers: 2 } },
      { name: "math", serverType: "resources_servers", impl: "math_with_judge", leaf: { should_use_judge: false } },
    ]);
  }, 60_000);
  afterAll(async () => stack.stop());

  const msg = (text: string) => ({ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
  const response = (text: string) => ({ id: "r", created_at: 0, model: "m", object: "response", output: [msg(text)], parallel_tool_calls: true, tool_choice: "auto", tools: [] });

  test("instruction_following and math_with_judge score in the shared pool and serve its load at /_gym/verifier_pool", async () => {
    const body = { id: 1, responses_create_params: { input: [{ role: "user", content: "Answer in lowercase." }] }, response: response("all lowercase here"), verifier_metadata: { instruction_id_list: ["change_case:english_lowercase"], kwargs: [null], prompt: "p" } };
    const r = await postJson(`${stack.url.if}/verify`, body);
    expect([r.status, r.json.reward, r.json.follow_instruction_list]).toEqual([200, 1, [true]]);
    const m = await postJson(`${stack.url.math}/verify`, { responses_create_params: { input: [] }, response: response("so \\boxed{4}"), question: "2+2", expected_answer: "4" });
    expect([m.status, m.json.reward]).toEqual([200, 1]);
    // Both servers live in this test process, so they share one pool (the first user sized it: 2).
    const load = (await (await fetch(`${stack.url.if}/_gym/verifier_pool`)).json()) as Record<string, number>;
    expect(load).toMatchObject({ size: 2, busy: 0, queued: 0, failed: 0 });
    expect(load.completed).toBeGreaterThanOrEqual(2);
    expect(await (await fetch(`${stack.url.math}/_gym/verifier_pool`)).json()).toEqual(load);
  }, 60_000);

  test("verdicts from the pool equal the inline grading, row for row (recorded example rows and an unknown instruction id)", async () => {
    const { gradeInstructionFollowing } = await import("../../src/components/resources/instruction-following.ts");
    const { readJsonl } = await import("../helpers/tmp.ts");
    const rows = readJsonl(new URL("../../assets/resources_servers/instruction_following/data/example_rollouts.jsonl", import.meta.url).pathname).slice(0, 5);
    rows.push({ ...rows[0], verifier_metadata: { instruction_id_list: ["no_such:instruction", "change_case:english_lowercase"], kwargs: [null, null], prompt: "p" } });
    expect(rows.length).toBe(6);
    for (const row of rows) {
      const body = { ...row, id: typeof row.id === "number" ? row.id : 0 };
      const r = await postJson(`${stack.url.if}/verify`, body);
      const inline = gradeInstructionFollowing(body);
      expect(r.status).toBe(200);
      expect([r.json.reward, r.json.follow_all_instructions, r.json.follow_instruction_list]).toEqual([inline.reward, inline.follow_all_instructions, inline.follow_instruction_list]);
    }
  }, 60_000);

  test("gym env status reports each resources server's pool load (a local head server lists the instances)", async () => {
    const instances = [
      { process_name: "if", server_type: "resources_servers", name: "instruction_following", url: stack.url.if, pid: process.pid, status: "success" },
      { process_name: "agent", server_type: "responses_api_agents", name: "simple_agent", url: stack.url.math, pid: process.pid, status: "success" },
    ];
    const head = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => (new URL(req.url).pathname === "/server_instances" ? Response.json(instances) : new Response("ok")) });
    try {
      const s = await envStatus({ host: "127.0.0.1", port: head.port! });
      expect(s.servers[0]!.verifier_pool).toMatchObject({ size: 2, busy: 0, queued: 0 });
      expect(s.servers[1]!.verifier_pool).toBeUndefined(); // only resources servers are asked
      expect(formatStatus(s)).toContain("verifier pool 0/2 busy, 0 queued");
    } finally {
      head.stop(true);
    }
  }, 60_000);
});

describe("verifier pool metrics over OTLP", () => {
  test("busy workers, queue depth and job totals reach the collector as gym.verifier_pool.* (gauges and a counter by outcome)", async () => {
    const { otlpCollector } = await import("../helpers/otlp.ts");
    const { ServerTelemetry } = await import("../../src/runtime/http/otlp-push.ts");
    const { watchPoolMetrics } = await import("../../src/components/_worker-pool.ts");
    const collector = otlpCollector();
    const pool = new WorkerPool({ spawn: spawnBusy, size: 2, guardMs: 30_000 });
    const unwatch = watchPoolMetrics(pool);
    const telemetry = new ServerTelemetry(collector.url, { "nemo.gym.server.name": "math_rs" }, 60_000, "http/protobuf");
    type Point = { attributes?: { key: string; value: { stringValue: string } }[]; asInt?: string };
    const read = () => {
      const body = collector.received.at(-1)!.body as { resourceMetrics: { scopeMetrics: { scope: { name: string }; metrics: { name: string; gauge?: { dataPoints: Point[] }; sum?: { isMonotonic?: boolean; dataPoints: Point[] } }[] }[] }[] };
      const scope = body.resourceMetrics[0]!.scopeMetrics.find((s) => s.scope.name === "gym")!;
      const out: Record<string, string> = {};
      for (const m of scope.metrics) for (const p of (m.gauge ?? m.sum)!.dataPoints) out[[m.name, ...(p.attributes ?? []).map((a) => a.value.stringValue)].join("/")] = p.asInt ?? "0";
      return out;
    };
    try {
      const jobs = Array.from({ length: 5 }, () => pool.run({ ms: 300 }));
      await telemetry.push();
      expect(read()).toMatchObject({ "gym.verifier_pool.workers": "2", "gym.verifier_pool.busy_workers": "2", "gym.verifier_pool.queue_depth": "3", "gym.verifier_pool.jobs/completed": "0" });
      await Promise.all(jobs);
      await pool.run({ fail: "ValueError: bad" }).catch(() => undefined);
      await telemetry.push();
      expect(read()).toMatchObject({ "gym.verifier_pool.busy_workers": "0", "gym.verifier_pool.queue_depth": "0", "gym.verifier_pool.jobs/completed": "5", "gym.verifier_pool.jobs/failed": "1" });
      // Once unwatched the pool reports nothing (another pool of this process may still report).
      const { providedMetrics } = await import("../../src/runtime/http/metric-providers.ts");
      const points = () => ((providedMetrics("0", "1") as { name: string; gauge?: { dataPoints: unknown[] } }[]).find((m) => m.name === "gym.verifier_pool.workers")?.gauge?.dataPoints.length ?? 0);
      const watched = points();
      unwatch();
      expect(points()).toBe(watched - 1);
    } finally {
      unwatch();
      pool.close();
      collector.stop();
    }
  });
});
