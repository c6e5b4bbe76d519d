import { describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rolloutConfigFrom, maxInFlight, parseNumRepeats } from "../../src/rollout/config.ts";
import { materialize } from "../../src/rollout/materialize.ts";
import { JsonlAppender, repairTornTail } from "../../src/rollout/jsonl.ts";
import { readJsonl } from "../../src/util/jsonl.ts";
import { computeAggregateMetrics, passAtK, passMajorityMetrics } from "../../src/rollout/metrics.ts";
import { failureCategory, routeOutcome, runRequestBody } from "../../src/rollout/record.ts";
import { targetsFromConfig } from "../../src/rollout/targets.ts";
import { Monitor } from "../../src/rollout/monitor.ts";
import { Progress, percentBlock } from "../../src/rollout/progress.ts";
import { WalltimeDrain } from "../../src/rollout/drain.ts";
import { expandShardGlobs } from "../../src/rollout/shards.ts";
import { tempDir } from "../helpers/tmp.ts";
import { configFor } from "../fixtures/rollout/env-server.ts";

async function mat(dir: string, input: string, dict: Record<string, unknown>) {
  const p = join(dir, "in.jsonl");
  writeFileSync(p, input);
  const cfg = rolloutConfigFrom({ input_jsonl_fpath: p, output_jsonl_fpath: join(dir, "o.jsonl"), ...dict });
  const dest = join(dir, "m.jsonl");
  const r = await materialize(cfg, dest);
  const rows: Record<string, unknown>[] = [];
  for await (const { value } of readJsonl(dest)) rows.push(value);
  return { r, rows };
}

const line = (i: number, agent?: string) => JSON.stringify({ responses_create_params: { input: `q${i}` }, ...(agent ? { agent_ref: { name: agent } } : {}) });

describe("materialize", () => {
  test("task index by raw line (duplicates share it, rollout index continues), aabb order", async () => {
    await using d = await tempDir();
    const { rows } = await mat(d.path, [line(0, "a"), line(1, "a"), line(0, "a")].join("\n") + "\n", { num_repeats: 2 });
    expect(rows.map((r) => `${r._ng_task_index}:${r._ng_rollout_index}`)).toEqual(["0:0", "0:1", "1:0", "1:1", "0:2", "0:3"]);
  });

  test("interleave_repeats gives abab; per-agent dict repeats; seeds merged into extra_body", async () => {
    await using d = await tempDir();
    const input = [line(0, "a"), line(1, "b"), JSON.stringify({ responses_create_params: { input: "z", metadata: { extra_body: '{"x": 1}' } }, agent_ref: { name: "a" } })].join("\n");
    const { rows, r } = await mat(d.path, input, { interleave_repeats: true, num_repeats: { a: 2, _default: 1 }, num_repeats_add_seed: true });
    expect(rows.map((x) => `${x._ng_task_index}:${x._ng_rollout_index}`)).toEqual(["0:0", "1:0", "2:0", "0:1", "2:1"]);
    expect(JSON.parse((rows[4]!.responses_create_params as { metadata: { extra_body: string } }).metadata.extra_body)).toEqual({ x: 1, seed: 1 });
    expect([...r.perAgent]).toEqual([["a", 4], ["b", 1]]);
  });

  test("agent_name overrides every row; limit; rcp overrides shallow-merged; _ng_task_index kept", async () => {
    await using d = await tempDir();
    const input = [line(0, "x"), line(1), JSON.stringify({ responses_create_params: { input: "k", temperature: 1 }, _ng_task_index: 77 }), line(3)].join("\n");
    const { rows } = await mat(d.path, input, { agent_name: "ag", limit: 3, responses_create_params: { temperature: 0.2 } });
    expect(rows.length).toBe(3);
    expect(rows.every((r) => (r.agent_ref as { name: string }).name === "ag")).toBe(true);
    expect(rows[2]).toMatchObject({ _ng_task_index: 77, responses_create_params: { input: "k", temperature: 0.2 } });
  });

  test("errors: no agent (rows listed together), bad JSON with line, missing dict entry, bad rollout id", async () => {
    await using d = await tempDir();
    await expect(mat(d.path, [line(0), line(1)].join("\n"), {})).rejects.toThrow("No agent specified for rows [0, 1]");
    await expect(mat(d.path, `${line(0, "a")}\n{bad`, {})).rejects.toThrow("at line 2");
    await expect(mat(d.path, line(0, "zz"), { num_repeats: { a: 2 } })).rejects.toThrow("no entry for agent 'zz'");
    await expect(mat(d.path, JSON.stringify({ responses_create_params: {}, agent_ref: { name: "a" }, _ng_rollout_id: "-x" }), {})).rejects.toThrow("_ng_rollout_id");
  });
});

describe("routing modes", () => {
  const native = (i: number, taskset = "ts") => JSON.stringify({ task_id: { taskset, task_id: `q${i}` }, task_input: { responses_create_params: { input: `n${i}` }, task_data: {} } });

  test("native rows route by environment_server_routes; legacy mode sends flat rows to one server; taskset mode rejects flat rows", async () => {
    await using d = await tempDir();
    const checked: string[] = [];
    const p = join(d.path, "in.jsonl");
    writeFileSync(p, [native(0), native(1), line(2)].join("\n") + "\n");
    const base = { input_jsonl_fpath: p, output_jsonl_fpath: join(d.path, "o.jsonl"), environment_server_routes: { ts: "env_native" }, responses_create_params: { temperature: 0.5 } };
    const r = await materialize(rolloutConfigFrom({ ...base, environment_routing_mode: "legacy", environment_server_name: "env_legacy" }), join(d.path, "m.jsonl"), { checkServer: (s) => void checked.push(s) });
    const rows: Record<string, unknown>[] = [];
    for await (const { value } of readJsonl(join(d.path, "m.jsonl"))) rows.push(value);
    expect(rows.map((x) => x._ng_environment_server)).toEqual(["env_native", "env_native", "env_legacy"]);
    expect((rows[0]!.task_input as { responses_create_params: unknown }).responses_create_params).toEqual({ input: "n0", temperature: 0.5 });
    expect(checked).toEqual(["env_native", "env_legacy"]);
    expect(r.total).toBe(3);
    await expect(materialize(rolloutConfigFrom({ ...base, environment_routing_mode: "taskset" }), join(d.path, "m2.jsonl"))).rejects.toThrow("rejected in environment_routing_mode=taskset");
    writeFileSync(p, native(0, "other") + "\n");
    await expect(materialize(rolloutConfigFrom(base), join(d.path, "m3.jsonl"))).rejects.toThrow("environment_server_routes does not route");
    expect(() => rolloutConfigFrom({ ...base, environment_routing_mode: "legacy" })).toThrow("environment_server_name");
  });
});

describe("config", () => {
  test("validation names the key", () => {
    expect(() => rolloutConfigFrom({ input_jsonl_fpath: "i" })).toThrow("output_jsonl_fpath is required");
    expect(() => rolloutConfigFrom({ input_jsonl_fpath: "i", output_jsonl_fpath: "o", num_samples_in_parallel: 0 })).toThrow("num_samples_in_parallel must be > 0");
    expect(() => parseNumRepeats(0)).toThrow("num_repeats");
    expect(parseNumRepeats(null)).toBe(1);
    expect(() => rolloutConfigFrom({ input_jsonl_fpath: "i", output_jsonl_fpath: "o", rollout_collection_driver: "m:f" })).toThrow("not supported");
    expect(maxInFlight({ concurrency: 10, maxResident: 4 })).toBe(4);
    expect(() => rolloutConfigFrom({ input_jsonl_fpath: "i", output_jsonl_fpath: "o", count_failure_classes_as_zero: true })).toThrow("D21");
    expect(rolloutConfigFrom({ input_jsonl_fpath: "i", output_jsonl_fpath: "o", upload_rollouts_to_wandb: false }).uploadRollouts).toBe(false);
  });

  test("D37: the drain margin is drain_margin_seconds (default 120); the old drain_margin_s still counts", () => {
    const base = { input_jsonl_fpath: "i", output_jsonl_fpath: "o" };
    expect(rolloutConfigFrom(base).drainMarginSeconds).toBe(120);
    expect(rolloutConfigFrom({ ...base, drain_margin_seconds: 30 }).drainMarginSeconds).toBe(30);
    expect(rolloutConfigFrom({ ...base, drain_margin_s: 45 }).drainMarginSeconds).toBe(45);
    expect(rolloutConfigFrom({ ...base, drain_margin_seconds: 30, drain_margin_s: 45 }).drainMarginSeconds).toBe(30);
    expect(() => rolloutConfigFrom({ ...base, drain_margin_seconds: -1 })).toThrow("drain_margin_seconds");
  });
});

describe("journal files", () => {
  test("torn tail: invalid partial line dropped, complete JSON without newline kept", async () => {
    await using d = await tempDir();
    const p = join(d.path, "o.jsonl");
    writeFileSync(p, '{"a":1}\n{"b":');
    expect(repairTornTail(p)).toBe("dropped");
    expect(readFileSync(p, "utf8")).toBe('{"a":1}\n');
    appendFileSync(p, '{"c":2}');
    expect(repairTornTail(p)).toBe("terminated");
    expect(readFileSync(p, "utf8")).toBe('{"a":1}\n{"c":2}\n');
    expect(repairTornTail(p)).toBe("ok");
    expect(repairTornTail(join(d.path, "none"))).toBe("missing");
  });

  test("appendSoon: one turn's records land together, in the file before any promise resolves; close writes the rest", async () => {
    await using d = await tempDir();
    const p = join(d.path, "o.jsonl");
    const out = new JsonlAppender(p);
    const pending = [1, 2, 3].map((i) => out.appendSoon({ i }));
    // Nothing is written (or counted) within the turn that queued the records.
    expect(readFileSync(p, "utf8")).toBe("");
    expect(out.count).toBe(0);
    const seenOnResolve: string[] = [];
    await Promise.all(pending.map((w) => w.then(() => seenOnResolve.push(readFileSync(p, "utf8")))));
    expect(seenOnResolve).toEqual(Array(3).fill('{"i":1}\n{"i":2}\n{"i":3}\n'));
    expect(out.count).toBe(3);
    void out.appendSoon({ i: 4 });
    out.close();
    expect(readFileSync(p, "utf8").trim().split("\n").length).toBe(4);
  });
});

describe("metrics", () => {
  test("§12 default aggregation: stats, per-group NaN std rule, duplicates rejected", () => {
    const m = computeAggregateMetrics([
      { _ng_task_index: 1, _ng_rollout_index: 0, reward: 1, flag: true, response: { usage: { input_tokens: 4, output_tokens: 2, input_tokens_details: { cached: 1 } } } },
      { _ng_task_index: 1, _ng_rollout_index: 1, reward: 0, flag: false, response: { usage: { input_tokens: 6, output_tokens: 2 } } },
      { _ng_task_index: 0, _ng_rollout_index: 0, reward: 0.5 },
    ]);
    expect(m.group_level_metrics.map((g) => g._ng_task_index)).toEqual([0, 1]);
    expect(m.group_level_metrics[0]).toMatchObject({ "mean/reward": 0.5, "std/reward": 0, num_rollouts: 1 });
    expect(m.group_level_metrics[1]).toMatchObject({ "mean/reward": 0.5, "median/reward": 0.5, "mean/flag": 0.5, "mean/input_tokens": 5 });
    expect(m.group_level_metrics[1]!["std/reward"]).toBeCloseTo(Math.SQRT1_2, 12);
    expect((m.group_level_metrics[1]!.rollout_infos as unknown[]).length).toBe(2);
    expect(m.agent_metrics["mean/reward"]).toBeCloseTo(0.5, 12);
    expect(m.key_metrics).toEqual(Object.fromEntries(Object.entries(m.agent_metrics).filter(([k]) => k.startsWith("mean/"))));
    expect(() => computeAggregateMetrics([{ _ng_task_index: 0 }, { _ng_task_index: 0 }])).toThrow("Duplicate");
    expect(computeAggregateMetrics([])).toEqual({ group_level_metrics: [], agent_metrics: {}, key_metrics: {} });
  });

  test("pass@k: unbiased estimator, avg-of-k, majority with ties, across-run spread", () => {
    expect(passAtK(4, 1, 1)).toBeCloseTo(0.25, 12);
    expect(passAtK(4, 1, 2)).toBeCloseTo(1 - 3 / 6, 12);
    expect(passAtK(4, 3, 2)).toBe(1);
    const tasks = [
      [{ reward: 1, ans: "a" }, { reward: 0, ans: "b" }, { reward: 1, ans: "a" }, { reward: 0, ans: null }],
      [{ reward: 0, ans: "c" }, { reward: 0, ans: "c" }, { reward: 0, ans: "d" }, { reward: 0, ans: "d" }],
    ];
    const m = passMajorityMetrics(tasks, undefined, "ans");
    expect(m["pass@1/accuracy"]).toBeCloseTo(100 * (0.5 + 0) / 2, 10);
    expect(m["pass@4/accuracy"]).toBeCloseTo(50, 10);
    expect(m["pass@1[avg-of-2]/accuracy"]).toBeCloseTo(100 * (0.5 + 0) / 2, 10);
    expect(m["majority@4/accuracy"]).toBeCloseTo(100 * (1 + 0) / 2, 10);
    expect(m["pass@1[avg-of-4]/no_answer"]).toBeCloseTo(100 * (0.25 + 0) / 2, 10);
    expect((m.per_sample_aggregate as Record<string, number[]>).accuracy).toEqual([50, 0, 50, 0]);
    expect(m["pass@1[avg-of-2]/accuracy/std_dev_across_runs"]).toBeCloseTo(Math.sqrt(1250), 8);
    // continuous scores: max of the first k
    expect(passMajorityMetrics([[{ reward: 0.2 }, { reward: 0.7 }]])["pass@2/accuracy"]).toBeCloseTo(70, 10);
  });
});

describe("records", () => {
  const target = targetsFromConfig(configFor(1234)).forAgent("my_agent");
  const row = { responses_create_params: { input: "x" }, agent_ref: { name: "my_agent" }, q: 1, _ng_task_index: 3, _ng_rollout_index: 1, _ng_attempt_index: 2 };

  test("flat body is the row; native body is the episode envelope", () => {
    expect(JSON.parse(runRequestBody(row, target))).toEqual(row);
    const native = { ...target, native: true };
    expect(JSON.parse(runRequestBody(row, native))).toEqual({
      episode_id: { rollout_id: "3-1", attempt: 2 },
      task: { task_id: { taskset: "my_agent", task_id: "3" }, task_input: { responses_create_params: { input: "x" }, task_data: { q: 1 } } },
    });
  });

  test("outcome routing and D21 categories", () => {
    const ok = routeOutcome(row, target, { kind: "response", status: 200, text: JSON.stringify({ reward: 0.5, _ng_task_index: 99 }), attempts: 1, elapsedMs: 5 });
    expect(ok).toMatchObject({ dest: "output", record: { reward: 0.5, _ng_task_index: 3, _ng_rollout_index: 1, _ng_attempt_index: 2, _ng_environment_server: "my_agent__legacy_agent" } });
    const nat = routeOutcome(row, target, { kind: "response", status: 200, text: JSON.stringify({ episode_id: {}, task_id: { taskset: "t", task_id: "1" }, failure: { failure_reason: "judge down", terminal: true, stage: "verification" } }), attempts: 1, elapsedMs: 5 });
    expect(nat).toMatchObject({ dest: "failures", record: { _ng_failure_class: "environment_server_failed", _ng_failure_terminal: true, _ng_failure_category: "verifier", _ng_failure_message: "judge down" } });
    expect(routeOutcome(row, target, { kind: "response", status: 200, text: "[1]", attempts: 1, elapsedMs: 1 })).toMatchObject({ dest: "failures", record: { _ng_failure_type: "JSONDecodeError" } });
    expect(routeOutcome(row, target, { kind: "aborted", attempts: 1, elapsedMs: 1 })).toEqual({ dest: "none" });
    expect(failureCategory({ cls: "environment_server_failed", stage: "agent" })).toBe("model");
    expect(failureCategory({ cls: "environment_server_failed", stage: "seed" })).toBe("infra");
    expect(failureCategory({ cls: "x", message: "Episode admission timed out" })).toBe("timeout");
    expect(failureCategory({ cls: "reference_missing" })).toBe("data");
    expect(failureCategory({ cls: "transport_ineligible" })).toBe("infra");
  });

  test("routing errors name the agent", () => {
    const t = targetsFromConfig({ ...configFor(1), ...configFor(2, "other"), dup__a: { environment_servers: { x: { port: 3, agent_server: { name: "my_agent" } } } } });
    expect(() => t.forAgent("my_agent")).toThrow("AmbiguousEnvironmentServerError");
    expect(() => t.forAgent("nope")).toThrow("No agent named 'nope'");
    expect(t.forAgent("other").runUrl).toBe("http://127.0.0.1:2/run");
    const bare = targetsFromConfig({ solo: { responses_api_agents: { simple_agent: { host: "127.0.0.1", port: 9 } } } });
    expect(bare.forAgent("solo").runUrl).toBe("http://127.0.0.1:9/run");
  });
});

describe("progress, watchdog, drain, capacity", () => {
  test("stall watchdog names the rollout and the server it waits on, once per period", () => {
    const p = new Progress();
    const m = new Monitor(p, { tty: false, stallWarningSeconds: 1, write: () => {} });
    m.inFlight.set("3-0", { id: "3-0", server: "env_a", url: "http://x/run", startedAt: 0 });
    m.inFlight.set("4-0", { id: "4-0", server: "env_a", url: "http://x/run", startedAt: 900 });
    expect(m.checkStalls(1500).map((f) => f.id)).toEqual(["3-0"]);
    expect(m.checkStalls(1600).length).toBe(0);
    expect(m.checkStalls(2100).map((f) => f.id)).toEqual(["4-0"]);
  });

  test("percentage block prints at marks only (non-TTY)", () => {
    const p = new Progress();
    p.total = 200;
    p.agentTotal.set("a", 200);
    const out: string[] = [];
    const m = new Monitor(p, { tty: false, stallWarningSeconds: 300, write: (s) => out.push(s) });
    for (let i = 0; i < 3; i++) {
      p.finish("a", true, { reward: 1, _hidden: 5 });
      m.onFinished();
    }
    expect(out.length).toBe(1); // 0.5 % → none, 1 % → one, 1.5 % → none
    expect(out[0]).toContain("Finished 2 / 200 rollouts (1%)");
    expect(percentBlock(p)).toContain("Found 3 / 200 (1.50%) rollouts for `a`.");
    expect(percentBlock(p)).not.toContain("_hidden");
  });

  test("drain decision uses p95 + margin", () => {
    const d = new WalltimeDrain(1000, 10);
    for (let i = 1; i <= 100; i++) d.record(i * 100);
    expect(d.p95Seconds()).toBeCloseTo(9.5, 5);
    expect(d.shouldDrain(1000 - 20)).toBe(false);
    expect(d.shouldDrain(1000 - 19)).toBe(true);
    expect(new WalltimeDrain(undefined, 10).shouldDrain()).toBe(false);
  });

  test("shard globs: order, de-duplication, sidecars skipped", async () => {
    await using d = await tempDir();
    for (const f of ["b.jsonl", "a.jsonl", "a_failures.jsonl", "a_materialized_inputs.jsonl", "c.jsonl"]) writeFileSync(join(d.path, f), "");
    const files = expandShardGlobs(` ${d.path}/c.jsonl , ${d.path}/*.jsonl`);
    expect(files.map((f) => f.split("/").pop())).toEqual(["c.jsonl", "a.jsonl", "b.jsonl"]);
  });
});
