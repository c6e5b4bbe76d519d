/** D38 output safety through the CLI: the output lock, the fresh-run guard, the resume input check, clean failures. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { GYM_MAIN, readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { configFor, startEnvServer, writeInput, type EnvServer } from "../fixtures/rollout/env-server.ts";

// Several CLI runs per test on a shared, noisy machine: more than bun's 5 s default.
setDefaultTimeout(60_000);

function startHead(env: EnvServer) {
  const yaml = stringify(configFor(env.port));
  return Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => (new URL(req.url).pathname === "/global_config_dict_yaml" ? Response.json(yaml) : Response.json({ status: "ok" })) });
}

function envVars(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}

/** A pid that certainly belonged to a process that is gone now (started and SIGKILLed here). */
async function deadPid(): Promise<number> {
  const p = Bun.spawn(["sleep", "30"], { stdout: "ignore", stderr: "ignore" });
  p.kill(9);
  await p.exited;
  return p.pid;
}

describe("gym eval run: output safety (D38)", () => {
  test("a second run on the same output fails at once naming the holder's pid; the first run is untouched", async () => {
    await using dir = await tempDir();
    const env = startEnvServer(() => ({ kind: "ok", delayMs: 25 }), { record: false });
    const head = startHead(env);
    try {
      const input = join(dir.path, "in.jsonl");
      // ~7.5 s of collection: the first run is still going while the other two start (slowly, on a busy machine).
      await writeInput(input, 300);
      const out = join(dir.path, "r.jsonl");
      const args = ["eval", "run", "--no-serve", "-i", input, "-o", out, "--concurrency", "1", "--disable-aggregation", `+head_server={host: 127.0.0.1, port: ${head.port}}`];
      const first = Bun.spawn([process.execPath, GYM_MAIN, ...args], { cwd: dir.path, env: envVars(), stdout: "ignore", stderr: "pipe" });
      const lock = join(dir.path, "r.gym-lock");
      const deadline = performance.now() + 20_000;
      while (!existsSync(lock) && performance.now() < deadline) await Bun.sleep(5);
      expect(existsSync(lock)).toBe(true);
      const t0 = performance.now();
      const second = await runGym([...args, "--overwrite"], { cwd: dir.path });
      expect(performance.now() - t0).toBeLessThan(15_000);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`is in use by another gym run (pid ${first.pid}`);
      expect(second.stderr).toContain(`kill ${first.pid}`);
      // A resume attempt is refused the same way (it would append to the same journal).
      const third = await runGym([...args, "--resume"], { cwd: dir.path });
      expect(third.code).toBe(1);
      expect(third.stderr).toContain(`pid ${first.pid}`);
      expect(await first.exited).toBe(0);
      const keys = readJsonl(out).map((x) => `${x._ng_task_index}:${x._ng_rollout_index}`);
      expect(keys.length).toBe(300);
      expect(new Set(keys).size).toBe(300);
      expect(existsSync(lock)).toBe(false);
    } finally {
      head.stop(true);
      await env.stop();
    }
  });

  test("a stale lock of a SIGKILLed run does not block --resume; stale temps are cleaned", async () => {
    await using dir = await tempDir();
    const env = startEnvServer(() => ({ kind: "ok", delayMs: 5 }), { record: false });
    const head = startHead(env);
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 40);
      const out = join(dir.path, "r.jsonl");
      const args = ["eval", "run", "--no-serve", "-i", input, "-o", out, "--concurrency", "4", "--disable-aggregation", `+head_server={host: 127.0.0.1, port: ${head.port}}`];
      const proc = Bun.spawn([process.execPath, GYM_MAIN, ...args], { cwd: dir.path, env: envVars(), stdout: "ignore", stderr: "ignore" });
      const deadline = performance.now() + 20_000;
      while (readJsonl(out).length < 5 && performance.now() < deadline) await Bun.sleep(5);
      proc.kill(9);
      await proc.exited;
      expect(existsSync(join(dir.path, "r.gym-lock"))).toBe(true);
      const dead = await deadPid();
      writeFileSync(join(dir.path, `r_aggregate_metrics.json.tmp-${dead}`), "{half");
      writeFileSync(join(dir.path, `r_materialized_inputs.jsonl.tmp-${dead}-staged`), "{}\n");
      const r = await runGym([...args, "--resume"], { cwd: dir.path });
      expect(r.stderr).toContain("is gone; taking the lock over");
      expect(r.code).toBe(0);
      const keys = readJsonl(out).map((x) => `${x._ng_task_index}:${x._ng_rollout_index}`);
      expect(new Set(keys).size).toBe(40);
      expect(keys.length).toBe(40);
      expect(readdirSync(dir.path).filter((n) => n.includes(".tmp-") || n.endsWith(".gym-lock"))).toEqual([]);
    } finally {
      head.stop(true);
      await env.stop();
    }
  });

  test("a lock written by a live process of this host blocks even a resume; one whose pid is gone does not", async () => {
    await using dir = await tempDir();
    const env = startEnvServer();
    const head = startHead(env);
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 3);
      const out = join(dir.path, "r.jsonl");
      const args = ["eval", "run", "--no-serve", "-i", input, "-o", out, "--disable-aggregation", `+head_server={host: 127.0.0.1, port: ${head.port}}`];
      const lock = join(dir.path, "r.gym-lock");
      writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), started_at: "then", argv: ["eval", "run"] }));
      const blocked = await runGym(args, { cwd: dir.path });
      expect(blocked.code).toBe(1);
      expect(blocked.stderr).toContain(`pid ${process.pid}`);
      expect(existsSync(out)).toBe(false);
      writeFileSync(lock, JSON.stringify({ pid: await deadPid(), host: hostname(), started_at: "then", argv: [] }));
      const ok = await runGym(args, { cwd: dir.path });
      expect(ok.code).toBe(0);
      expect(readJsonl(out).length).toBe(3);
    } finally {
      head.stop(true);
      await env.stop();
    }
  });

  test("a fresh run never truncates earlier results: bad input fails first, no --overwrite fails naming it, --overwrite replaces", async () => {
    await using dir = await tempDir();
    const env = startEnvServer();
    const head = startHead(env);
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 4);
      const out = join(dir.path, "r.jsonl");
      const common = ["eval", "run", "--no-serve", "-o", out, "--disable-aggregation", `+head_server={host: 127.0.0.1, port: ${head.port}}`];
      expect((await runGym([...common, "-i", input], { cwd: dir.path })).code).toBe(0);
      const before = readFileSync(out, "utf8");
      expect(before.length).toBeGreaterThan(0);
      const bad = join(dir.path, "bad.jsonl");
      writeFileSync(bad, '{"responses_create_params": {"input": "x"}}\nnot json\n');
      const r1 = await runGym([...common, "-i", bad, "--overwrite"], { cwd: dir.path });
      expect(r1.code).toBe(2);
      expect(r1.stderr).toContain("Malformed JSON");
      expect(readFileSync(out, "utf8")).toBe(before);
      const r2 = await runGym([...common, "-i", input], { cwd: dir.path });
      expect(r2.code).toBe(2);
      expect(r2.stderr).toContain("already holds results of an earlier run");
      expect(r2.stderr).toContain("--overwrite");
      expect(r2.stderr).toContain("--resume");
      expect(readFileSync(out, "utf8")).toBe(before);
      const r3 = await runGym([...common, "-i", input, "--overwrite"], { cwd: dir.path });
      expect(r3.code).toBe(0);
      expect(readJsonl(out).length).toBe(4);
    } finally {
      head.stop(true);
      await env.stop();
    }
  });

  test("--resume with a different -i fails clearly; the same content under another path resumes", async () => {
    await using dir = await tempDir();
    const env = startEnvServer();
    const head = startHead(env);
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 4);
      const other = join(dir.path, "other.jsonl");
      await writeInput(other, 6);
      const out = join(dir.path, "r.jsonl");
      const common = ["eval", "run", "--no-serve", "-o", out, "--disable-aggregation", `+head_server={host: 127.0.0.1, port: ${head.port}}`];
      expect((await runGym([...common, "-i", input], { cwd: dir.path })).code).toBe(0);
      const r = await runGym([...common, "-i", other, "--resume"], { cwd: dir.path });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("--resume with a different input");
      expect(r.stderr).toContain(input);
      const copy = join(dir.path, "copy.jsonl");
      writeFileSync(copy, readFileSync(input));
      const same = await runGym([...common, "-i", copy, "--resume"], { cwd: dir.path });
      expect(same.code).toBe(0);
      expect(readJsonl(out).length).toBe(4);
    } finally {
      head.stop(true);
      await env.stop();
    }
  });

  test("an input error leaves no empty output, status file or lock; -i <dir> is a clear config error", async () => {
    await using dir = await tempDir();
    const env = startEnvServer();
    const head = startHead(env);
    try {
      const bad = join(dir.path, "bad.jsonl");
      writeFileSync(bad, "[1, 2]\n");
      const out = join(dir.path, "res", "r.jsonl");
      const common = ["eval", "run", "--no-serve", "-o", out, `+head_server={host: 127.0.0.1, port: ${head.port}}`];
      const r = await runGym([...common, "-i", bad], { cwd: dir.path });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("not a JSON object");
      const left = existsSync(join(dir.path, "res")) ? readdirSync(join(dir.path, "res")) : [];
      expect(left).toEqual([]);
      mkdirSync(join(dir.path, "data"));
      const d = await runGym([...common, "-i", join(dir.path, "data")], { cwd: dir.path });
      expect(d.code).toBe(2);
      expect(d.stderr).toContain("is a directory, not a JSONL file");
      expect(d.stderr).not.toContain("bug in gym");
    } finally {
      head.stop(true);
      await env.stop();
    }
  });
});

describe("gym eval run: kill -9 at random points (start-up, collection, aggregation), then --resume", () => {
  test("every (task, repeat) pair exactly once; sidecars are never half-written", async () => {
    await using dir = await tempDir();
    const example = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call", "data", "example.jsonl");
    writeFileSync(join(dir.path, "val.jsonl"), readFileSync(example));
    const out = join(dir.path, "out", "rollouts.jsonl");
    const agg = join(dir.path, "out", "rollouts_aggregate_metrics.json");
    const args = [
      "eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "--split", "validation",
      "-o", out, "--num-repeats", "8", "--concurrency", "2", "+head_server.port=0",
      `example_single_tool_call_simple_agent.responses_api_agents.simple_agent.datasets=[{name: v, type: validation, license: MIT, jsonl_fpath: ${join(dir.path, "val.jsonl")}}]`,
    ];
    const total = 40;
    const count = () => (existsSync(out) ? readFileSync(out, "utf8").split("\n").filter((l) => l.trim() !== "").length : 0);
    // start-up (ms after spawn), collection (rows written), aggregation (all rows written).
    const points: ({ ms: number } | { rows: number })[] = [
      { ms: 50 + Math.floor(Math.random() * 400) },
      { ms: 400 + Math.floor(Math.random() * 800) },
      { rows: 1 + Math.floor(Math.random() * 15) },
      { rows: 16 + Math.floor(Math.random() * 20) },
      { rows: total },
    ];
    let first = true;
    for (const point of points) {
      const proc = Bun.spawn([process.execPath, GYM_MAIN, ...args, ...(first ? [] : ["--resume"])], { cwd: dir.path, env: envVars(), stdout: "ignore", stderr: "ignore" });
      first = false;
      const t0 = performance.now();
      const deadline = t0 + 30_000;
      if ("ms" in point) await Bun.sleep(point.ms);
      else while (count() < point.rows && performance.now() < deadline && proc.exitCode === null) await Bun.sleep(1);
      proc.kill(9);
      await proc.exited;
      // Whatever the moment, a sidecar that exists is whole.
      if (existsSync(agg) && statSync(agg).size > 0) expect(() => JSON.parse(readFileSync(agg, "utf8"))).not.toThrow();
      if (existsSync(`${out}.status.json`)) expect(() => JSON.parse(readFileSync(`${out}.status.json`, "utf8"))).not.toThrow();
      const keys = readJsonl(out).map((x) => `${x._ng_task_index}:${x._ng_rollout_index}`);
      expect(new Set(keys).size).toBe(keys.length);
    }
    const r = await runGym([...args, "--resume"], { cwd: dir.path });
    expect(r.code, `kill points ${JSON.stringify(points)}\n${r.stderr}`).toBe(0);
    const keys = readJsonl(out).map((x) => `${x._ng_task_index}:${x._ng_rollout_index}`);
    expect(keys.length).toBe(total);
    expect(new Set(keys).size).toBe(total);
    expect(JSON.parse(readFileSync(agg, "utf8"))[0].agent_metrics).toBeDefined();
    expect(readdirSync(join(dir.path, "out")).filter((n) => n.includes(".tmp-") || n.endsWith(".gym-lock"))).toEqual([]);
  }, 120_000);
});
