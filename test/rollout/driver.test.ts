import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { rolloutConfigFrom } from "../../src/rollout/config.ts";
import { runRollouts } from "../../src/rollout/driver.ts";
import { groupRollouts } from "../../src/rollout/aggregate.ts";
import { targetsFromConfig } from "../../src/rollout/targets.ts";
import { OtlpMetrics } from "../../src/rollout/otlp.ts";
import { otlpCollector } from "../helpers/otlp.ts";
import { freePort, readJsonl, tempDir } from "../helpers/tmp.ts";
import { configFor, defaultReward, startEnvServer, writeInput } from "../fixtures/rollout/env-server.ts";

const lines = readJsonl;

function cfgDict(input: string, dir: string): Record<string, unknown> {
  return { input_jsonl_fpath: input, output_jsonl_fpath: join(dir, "r.jsonl"), num_repeats: 3, num_samples_in_parallel: 16 };
}

function pairs(rows: Record<string, unknown>[]): string[] {
  return rows.map((r) => `${r._ng_task_index}:${r._ng_rollout_index}`);
}

describe("runRollouts", () => {
  test("1,000 rows × 4 repeats: every pair once, indices, stamps, aggregate", async () => {
    await using dir = await tempDir();
    const server = startEnvServer(() => ({ kind: "ok" }), { record: false });
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 1000);
      const cfg = rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "out", "rollouts.jsonl"), num_repeats: 4, num_samples_in_parallel: 64 });
      const s = await runRollouts(cfg, { targets: targetsFromConfig(configFor(server.port)) });
      expect(s.exitCode).toBe(0);
      const out = lines(s.paths.output);
      expect(out.length).toBe(4000);
      expect(new Set(pairs(out)).size).toBe(4000);
      for (const r of out) {
        expect(Number(r._ng_task_index)).toBeLessThan(1000);
        expect(Number(r._ng_rollout_index)).toBeLessThan(4);
        expect(r.agent_ref).toEqual({ name: "my_agent" });
        expect(r._ng_environment_server).toBe("my_agent__legacy_agent");
        expect(r._ng_result_type).toBe("legacy_agent");
        // The task index follows the raw line; the fixture puts id = line number.
        expect(r.id).toBe(r._ng_task_index);
      }
      const mat = lines(s.paths.materialized);
      expect(mat.length).toBe(4000);
      // aabbcc order: the repeats of a task are adjacent.
      expect(pairs(mat.slice(0, 5))).toEqual(["0:0", "0:1", "0:2", "0:3", "1:0"]);
      const agg = JSON.parse(readFileSync(s.paths.aggregate, "utf8"));
      expect(agg.length).toBe(1);
      const expectedMean = out.reduce((a, r) => a + defaultReward(r), 0) / out.length;
      expect(agg[0].agent_metrics["mean/reward"]).toBeCloseTo(expectedMean, 10);
      expect(agg[0].agent_metrics["server/count"]).toBe(4000);
      expect(agg[0].agent_ref).toEqual({ name: "my_agent" });
      expect(lines(s.paths.failures).length).toBe(0);
      const status = JSON.parse(readFileSync(s.paths.status, "utf8"));
      expect(status).toMatchObject({ done: 4000, failed: 0, in_flight: 0, total: 4000, state: "finished" });
    } finally {
      await server.stop();
    }
  });

  test("500s, 422s, 429s and a hanging endpoint give typed failures within the budget, not a hang", async () => {
    await using dir = await tempDir();
    let calls429 = 0;
    const server = startEnvServer((row) => {
      const t = Number(row._ng_task_index);
      if (t === 1) return { kind: "status", status: 500 };
      if (t === 2) return { kind: "status", status: 422, body: JSON.stringify({ detail: [{ type: "missing" }] }) };
      if (t === 3) {
        calls429++;
        return { kind: "status", status: 429 };
      }
      if (t === 4) return { kind: "hang" };
      if (t === 5) return { kind: "json", body: { _ng_failure_class: "judge_failed", _ng_failure_message: "judge said no" } };
      if (t === 6) return { kind: "json", body: { _ng_no_persist: true } };
      return { kind: "ok" };
    });
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 8);
      const cfg = rolloutConfigFrom({
        input_jsonl_fpath: input,
        output_jsonl_fpath: join(dir.path, "rollouts.jsonl"),
        request_timeout_seconds: 1,
        request_retry_budget_seconds: 1.5,
        require_complete: true,
      });
      const t0 = performance.now();
      const err = await runRollouts(cfg, { targets: targetsFromConfig(configFor(server.port)) }).catch((e) => e);
      expect(performance.now() - t0).toBeLessThan(15_000);
      expect(String(err.message)).toContain("EVAL FAILED: 2/8 samples completed");
      const out = lines(join(dir.path, "rollouts.jsonl"));
      expect(pairs(out).sort()).toEqual(["0:0", "7:0"]);
      const fails = lines(join(dir.path, "rollouts_failures.jsonl"));
      const byTask = Object.fromEntries(fails.map((f) => [f._ng_task_index, f]));
      expect(byTask[1]).toMatchObject({ _ng_failure_class: "agent_run_error", _ng_failure_http_status: 500, _ng_failure_category: "infra" });
      expect(byTask[2]).toMatchObject({ _ng_failure_class: "agent_run_error", _ng_failure_http_status: 422, _ng_failure_category: "data" });
      expect(byTask[3]).toMatchObject({ _ng_failure_class: "agent_request_failed", _ng_failure_http_status: 429, _ng_failure_category: "infra" });
      expect(byTask[4]).toMatchObject({ _ng_failure_class: "agent_request_failed", _ng_failure_category: "timeout" });
      expect(byTask[5]).toMatchObject({ _ng_failure_class: "judge_failed", _ng_failure_category: "verifier" });
      expect(byTask[6]).toBeUndefined();
      // 429 was retried, but a bounded number of times.
      expect(calls429).toBeGreaterThan(1);
      expect(calls429).toBeLessThan(10);
      // No failure ever counts as reward 0 in the main output.
      for (const f of fails) expect(f.reward).toBeUndefined();
    } finally {
      await server.stop();
    }
  });

  test("resume retries failed pairs with _ng_attempt_index, repairs a torn line, never duplicates", async () => {
    await using dir = await tempDir();
    let healthy = false;
    const server = startEnvServer((row) => (!healthy && Number(row._ng_task_index) % 3 === 0 ? { kind: "status", status: 500 } : { kind: "ok" }));
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 30);
      const dict = { input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), num_repeats: 2, disable_aggregation: true };
      const targets = targetsFromConfig(configFor(server.port));
      const first = await runRollouts(rolloutConfigFrom(dict), { targets });
      expect(first.done).toBe(40);
      expect(first.failed).toBe(20);
      // Simulate a kill mid-write: a torn half line at the end of the output.
      appendFileSync(first.paths.output, '{"_ng_task_index": 99, "_ng_rollout_in');
      healthy = true;
      server.received.length = 0;
      const second = await runRollouts(rolloutConfigFrom({ ...dict, resume_from_cache: true }), { targets });
      expect(second.newlyDone).toBe(20);
      expect(server.received.length).toBe(20);
      for (const r of server.received) {
        expect(Number(r._ng_task_index) % 3).toBe(0);
        expect(r._ng_attempt_index).toBe(1);
      }
      const out = lines(first.paths.output);
      expect(out.length).toBe(60);
      expect(new Set(pairs(out)).size).toBe(60);
      // A third resume has nothing left to do.
      server.received.length = 0;
      const third = await runRollouts(rolloutConfigFrom({ ...dict, resume_from_cache: true }), { targets });
      expect(third.newlyDone).toBe(0);
      expect(server.received.length).toBe(0);
    } finally {
      await server.stop();
    }
  });

  test("attempts are capped by max attempts and terminal failures are not retried", async () => {
    await using dir = await tempDir();
    const server = startEnvServer((row) =>
      Number(row._ng_task_index) === 0 ? { kind: "status", status: 500 } : { kind: "json", body: { _ng_failure_class: "skipped", _ng_failure_terminal: true } },
    );
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 2);
      const dict = { input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), disable_aggregation: true, resume_from_cache: true };
      const targets = targetsFromConfig(configFor(server.port));
      for (let i = 0; i < 4; i++) await runRollouts(rolloutConfigFrom(dict), { targets, maxAttempts: 2 }).catch(() => undefined);
      const attemptsSeen = server.received.filter((r) => r._ng_task_index === 0).map((r) => r._ng_attempt_index ?? 0);
      expect(attemptsSeen).toEqual([0, 1]);
      expect(server.received.filter((r) => r._ng_task_index === 1).length).toBe(1);
    } finally {
      await server.stop();
    }
  });

  test("walltime drain: no admission near GYM_JOB_END_TIME, marker written, exit 75", async () => {
    await using dir = await tempDir();
    const server = startEnvServer(() => ({ kind: "ok", delayMs: 50 }));
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 50);
      const cfg = rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), num_samples_in_parallel: 2, drain_margin_seconds: 5 });
      // 6 s left, margin 5 s: the first rollouts run; once p95 (~50 ms) + 5 s passes the time left, admission stops.
      const s = await runRollouts(cfg, { targets: targetsFromConfig(configFor(server.port)), jobEndTime: Date.now() / 1000 + 5.3 });
      expect(s.exitCode).toBe(75);
      expect(s.drained).toBe(true);
      expect(existsSync(join(dir.path, ".gym_drained"))).toBe(true);
      expect(s.done).toBeGreaterThan(0);
      expect(s.done).toBeLessThan(50);
      expect(lines(s.paths.output).length).toBe(s.done);
      expect(JSON.parse(readFileSync(join(dir.path, ".gym_drained"), "utf8")).new_rows).toBe(s.newlyDone);
    } finally {
      await server.stop();
    }
  });

  test("walltime shorter than the margin: drains at 0 rows and the marker says no progress (D37)", async () => {
    await using dir = await tempDir();
    const server = startEnvServer(() => ({ kind: "ok" }));
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 5);
      const cfg = rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), drain_margin_seconds: 120 });
      const s = await runRollouts(cfg, { targets: targetsFromConfig(configFor(server.port)), jobEndTime: Date.now() / 1000 + 60 });
      expect(s.exitCode).toBe(75);
      expect(s.done).toBe(0);
      const marker = JSON.parse(readFileSync(join(dir.path, ".gym_drained"), "utf8"));
      expect(marker.new_rows).toBe(0);
    } finally {
      await server.stop();
    }
  });

  test("GET /status on --status-port serves the D32 counts", async () => {
    await using dir = await tempDir();
    let seen: Record<string, unknown> | undefined;
    const statusPort = freePort();
    // The first rollout lasts long enough for the poll below to catch the run in flight on a loaded machine.
    const server = startEnvServer((_row, n) => ({ kind: "ok", delayMs: n === 0 ? 1500 : 0 }));
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 3);
      const cfg = rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), status_port: statusPort, num_samples_in_parallel: 1 });
      const run = runRollouts(cfg, { targets: targetsFromConfig(configFor(server.port)) });
      for (let i = 0; i < 200 && !seen; i++) {
        await Bun.sleep(25);
        seen = await fetch(`http://127.0.0.1:${statusPort}/status`).then((r) => r.json() as Promise<Record<string, unknown>>).catch(() => undefined);
      }
      await run;
      expect(seen).toBeDefined();
      expect(Object.keys(seen!)).toEqual(expect.arrayContaining(["done", "failed", "in_flight", "total"]));
      expect(seen!.total).toBe(3);
    } finally {
      await server.stop();
    }
  });

  test("a fresh run aggregates what it wrote without re-reading it: the same /aggregate_metrics body as grouping the output file; a resume re-reads the file", async () => {
    await using dir = await tempDir();
    // Failures (not aggregated), a heavy key, floats, unicode and a nested usage among the successes.
    let failing = true;
    const server = startEnvServer((row) => (failing && Number(row._ng_task_index) % 7 === 3 ? { kind: "status", status: 500 } : { kind: "ok", reward: Number(row._ng_task_index) / 3, extra: { note: "é\u2028", ng_trajectory: [1, 2] } }));
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 60);
      const cfg = rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), num_repeats: 3, num_samples_in_parallel: 16 });
      const s = await runRollouts(cfg, { targets: targetsFromConfig(configFor(server.port)), maxAttempts: 1 });
      expect(s.done).toBeLessThan(180);
      expect(server.aggregateBodies).toHaveLength(1);
      const fromFile = async () => JSON.stringify({ verify_responses: (await groupRollouts([s.paths.output]))[0]!.entries });
      expect(server.aggregateBodies[0]).toBe(await fromFile());
      expect(JSON.parse(server.aggregateBodies[0]!).verify_responses).toHaveLength(s.done);
      // Resume: the output also holds the first run's records, so it is read back.
      failing = false;
      const again = await runRollouts(rolloutConfigFrom({ ...cfgDict(input, dir.path), resume_from_cache: true }), { targets: targetsFromConfig(configFor(server.port)), maxAttempts: 3 });
      expect(again.done).toBeGreaterThan(s.done);
      expect(server.aggregateBodies).toHaveLength(2);
      expect(server.aggregateBodies[1]).toBe(await fromFile());
    } finally {
      await server.stop();
    }
  });

  test("local aggregation when the server has no /aggregate_metrics", async () => {
    await using dir = await tempDir();
    const server = startEnvServer(() => ({ kind: "ok" }), { aggregate: false });
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 5);
      const s = await runRollouts(rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), num_repeats: 2 }), {
        targets: targetsFromConfig(configFor(server.port)),
      });
      const agg = JSON.parse(readFileSync(s.paths.aggregate, "utf8"));
      expect(agg[0].group_level_metrics.length).toBe(5);
      expect(agg[0].agent_metrics["mean/reward"]).toBeCloseTo(0.5, 10);
      expect(agg[0].agent_metrics["mean/input_tokens"]).toBe(10);
      expect(agg[0].key_metrics["mean/reward"]).toBeCloseTo(0.5, 10);
    } finally {
      await server.stop();
    }
  });

  test("a fresh run deletes the stale sidecar; resume without files runs fresh", async () => {
    await using dir = await tempDir();
    const server = startEnvServer();
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 2);
      writeFileSync(join(dir.path, "r_failures.jsonl"), '{"_ng_task_index":0,"_ng_rollout_index":0,"_ng_failure_class":"x"}\n');
      const s = await runRollouts(rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), resume_from_cache: true }), {
        targets: targetsFromConfig(configFor(server.port)),
      });
      expect(s.done).toBe(2);
      expect(lines(join(dir.path, "r_failures.jsonl")).length).toBe(0);
    } finally {
      await server.stop();
    }
  });

  test("observability: capture folded into ng_model_call_capture / ng_trajectory, stale files cleared, token monotonicity checked", async () => {
    await using dir = await tempDir();
    const cap = join(dir.path, "capture");
    const call = (prompt: number[], gen: number[], usage: Record<string, number>) =>
      JSON.stringify({ model_call_id: "m", dialect: "responses", status_code: 200, latency_ms: 5, request: { big: "x".repeat(100) }, response: { usage, output: [{ type: "message", prompt_token_ids: prompt, generation_token_ids: gen }] } });
    const server = startEnvServer((row) => {
      const id = `${row._ng_task_index}-${row._ng_rollout_index}`;
      // Task 1 breaks monotonicity on its second call.
      const second = row._ng_task_index === 1 ? [9, 9] : [1, 2, 3, 4];
      writeFileSync(join(cap, `${id}.capture.jsonl`), `${call([1, 2], [3, 4], { input_tokens: 2, output_tokens: 2 })}\n${call(second, [5], { input_tokens: 4, output_tokens: 1, output_tokens_details: { reasoning_tokens: 1 } } as never)}\n`);
      return { kind: "ok" };
    });
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 3);
      const { mkdirSync } = await import("node:fs");
      mkdirSync(cap, { recursive: true });
      writeFileSync(join(cap, "2-0.capture.jsonl"), "stale\n");
      writeFileSync(join(cap, "2-0.capture.incomplete"), "");
      const s = await runRollouts(
        rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), observability_enabled: true, model_call_capture_dir: cap, disable_aggregation: true }),
        { targets: targetsFromConfig(configFor(server.port)) },
      );
      expect(s.done).toBe(3);
      const out = Object.fromEntries(lines(s.paths.output).map((r) => [r._ng_task_index, r]));
      const c0 = out[0]!.ng_model_call_capture as Record<string, unknown>;
      expect(c0.metrics).toMatchObject({ tokens_in: 6, tokens_out: 3, tokens_reasoning: 1, tokens_total: 9 });
      expect((c0.calls as Record<string, unknown>[])[0]!.request).toBeUndefined();
      expect(c0.token_sequence_violations).toBeUndefined();
      expect(out[0]!.ng_trajectory).toMatchObject({ model_calls: 2 });
      expect((out[1]!.ng_model_call_capture as Record<string, unknown>).token_sequence_violations).toEqual([2]);
      // The stale incomplete marker was removed before dispatch: no gap reported.
      expect((out[2]!.ng_model_call_capture as Record<string, unknown>).gaps).toBeUndefined();
    } finally {
      await server.stop();
    }
  });

  test("OTLP/HTTP metrics: periodic and final pushes with the run's counts, protobuf by default", async () => {
    await using dir = await tempDir();
    const collector = otlpCollector();
    const server = startEnvServer((row) => (Number(row._ng_task_index) === 0 ? { kind: "status", status: 500 } : { kind: "ok", delayMs: 30 }));
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 6);
      const otlp = new OtlpMetrics(collector.url, { "nemo.gym.run.id": "job-1" }, 20);
      await runRollouts(rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), num_samples_in_parallel: 1, disable_aggregation: true }), {
        targets: targetsFromConfig(configFor(server.port)),
        otlp,
      });
      expect(collector.received.length).toBeGreaterThan(1);
      expect(collector.received.every((r) => r.contentType === "application/x-protobuf")).toBe(true);
      type M = { name: string; sum?: { dataPoints: { asInt: string }[] }; histogram?: { dataPoints: { count: string }[] } };
      const last = collector.received.at(-1)!.body as { resourceMetrics: { resource: { attributes: { key: string }[] }; scopeMetrics: { metrics: M[] }[] }[] };
      const metrics = Object.fromEntries(last.resourceMetrics[0]!.scopeMetrics[0]!.metrics.map((m) => [m.name, m]));
      expect(metrics["gym.rollouts.completed"]!.sum!.dataPoints[0]!.asInt).toBe("5");
      expect(metrics["gym.rollouts.failed"]!.sum!.dataPoints[0]!.asInt).toBe("1");
      expect(metrics["gym.rollout.duration"]!.histogram!.dataPoints[0]!.count).toBe("6");
      expect(last.resourceMetrics[0]!.resource.attributes.map((a) => a.key)).toContain("nemo.gym.run.id");
    } finally {
      collector.stop();
      await server.stop();
    }
  });

  test("dispatch_longest_first: retried rows go longest recorded duration first", async () => {
    await using dir = await tempDir();
    let healthy = false;
    const server = startEnvServer((row) => {
      const t = Number(row._ng_task_index);
      if (!healthy && t < 4) return { kind: "status", status: 500, delayMs: 0 } as never;
      return { kind: "ok" };
    });
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 6);
      const dict = { input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), disable_aggregation: true, num_samples_in_parallel: 1 };
      const targets = targetsFromConfig(configFor(server.port));
      await runRollouts(rolloutConfigFrom(dict), { targets });
      // Give the recorded failures distinct durations: task t took t seconds.
      const failures = join(dir.path, "r_failures.jsonl");
      writeFileSync(failures, lines(failures).map((f) => JSON.stringify({ ...f, elapsed_seconds: Number(f._ng_task_index) })).join("\n") + "\n");
      healthy = true;
      server.received.length = 0;
      await runRollouts(rolloutConfigFrom({ ...dict, resume_from_cache: true, dispatch_longest_first: true }), { targets });
      expect(server.received.map((r) => r._ng_task_index)).toEqual([3, 2, 1, 0]);
    } finally {
      await server.stop();
    }
  });

  test("native rows: episode envelope to a native environment server, result or failure unwrapped", async () => {
    await using dir = await tempDir();
    const server = startEnvServer((body) => {
      const ep = body.episode_id as { rollout_id: string };
      const task = body.task as { task_id: { taskset: string; task_id: string } };
      if (task.task_id.task_id === "q1") return { kind: "json", body: { episode_id: ep, task_id: task.task_id, result: null, failure: { failure_reason: "Episode timed out", terminal: false } } };
      return { kind: "json", body: { episode_id: ep, task_id: task.task_id, result: { reward: 1, response: { output: [] } }, failure: null } };
    });
    try {
      const input = join(dir.path, "in.jsonl");
      writeFileSync(input, [0, 1].map((i) => JSON.stringify({ task_id: { taskset: "ts", task_id: `q${i}` }, task_input: { responses_create_params: { input: "x" }, task_data: { k: i } } })).join("\n") + "\n");
      const dict = { env_native: { environment_servers: { single_agent_turn: { host: "127.0.0.1", port: server.port, agent_server: { name: "a" } } } } };
      const s = await runRollouts(rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "r.jsonl"), environment_server_routes: { ts: "env_native" }, disable_aggregation: true }), {
        targets: targetsFromConfig(dict),
      });
      expect(s.done).toBe(1);
      expect(server.received[0]).toMatchObject({ episode_id: { rollout_id: "0-0", attempt: 0 }, task: { task_id: { taskset: "ts", task_id: "q0" }, task_input: { task_data: { k: 0 } } } });
      expect(lines(s.paths.output)[0]).toMatchObject({ reward: 1, _ng_task_id: { taskset: "ts", task_id: "q0" }, _ng_environment_server: "env_native", _ng_result_type: "single_agent_turn" });
      expect(lines(join(dir.path, "r_failures.jsonl"))[0]).toMatchObject({ _ng_failure_class: "environment_server_failed", _ng_failure_category: "timeout", _ng_failure_message: "Episode timed out" });
    } finally {
      await server.stop();
    }
  });
});
