import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GYM_MAIN, readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { configFor, startEnvServer, writeInput, type EnvServer } from "../fixtures/rollout/env-server.ts";
import { stringify } from "yaml";

const lines = readJsonl;

/** A head server that publishes a config fronting one agent with the given env server. */
function startHead(env: EnvServer) {
  const yaml = stringify(configFor(env.port));
  return Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => (new URL(req.url).pathname === "/global_config_dict_yaml" ? Response.json(yaml) : Response.json({ status: "ok" })) });
}

function countLines(path: string): number {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, "utf8");
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

describe("gym eval run --no-serve", () => {
  test("collects through the head server's config and writes every artifact", async () => {
    await using dir = await tempDir();
    const env = startEnvServer();
    const head = startHead(env);
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 50, undefined);
      const out = join(dir.path, "res", "rollouts.jsonl");
      const r = await runGym(["eval", "run", "--no-serve", "-i", input, "-o", out, "-a", "my_agent", "--num-repeats", "{my_agent: 2, _default: 1}", "--concurrency", "8", "--temperature", "0.3", `+head_server={host: 127.0.0.1, port: ${head.port}}`], {
        cwd: dir.path,
      });
      expect(r.stderr).toContain("Finished rollout collection!");
      expect(r.code).toBe(0);
      const rows = lines(out);
      expect(rows.length).toBe(100);
      expect(new Set(rows.map((x) => `${x._ng_task_index}:${x._ng_rollout_index}`)).size).toBe(100);
      expect((env.received[0]!.responses_create_params as Record<string, unknown>).temperature).toBe(0.3);
      expect(env.received[0]!.agent_ref).toEqual({ name: "my_agent" });
      expect(existsSync(join(dir.path, "res", "rollouts_materialized_inputs.jsonl"))).toBe(true);
      expect(existsSync(join(dir.path, "res", "rollouts_aggregate_metrics.json"))).toBe(true);
      expect(JSON.parse(readFileSync(`${out}.status.json`, "utf8"))).toMatchObject({ done: 100, failed: 0, in_flight: 0, total: 100 });
    } finally {
      head.stop(true);
      await env.stop();
    }
  });

  test("kill -9 at several points, then --resume: every pair exactly once", async () => {
    await using dir = await tempDir();
    const env = startEnvServer(() => ({ kind: "ok", delayMs: 15 }), { record: false });
    const head = startHead(env);
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 150);
      const out = join(dir.path, "rollouts.jsonl");
      const args = ["eval", "run", "--no-serve", "-i", input, "-o", out, "--num-repeats", "2", "--concurrency", "16", "--disable-aggregation", `+head_server={host: 127.0.0.1, port: ${head.port}}`];
      const envVars: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) envVars[k] = v;
      const killPoints = [1, 60, 170];
      for (const [i, point] of killPoints.entries()) {
        const proc = Bun.spawn([process.execPath, GYM_MAIN, ...args, ...(i > 0 ? ["--resume"] : [])], { cwd: dir.path, env: envVars, stdout: "ignore", stderr: "ignore" });
        const deadline = performance.now() + 20_000;
        while (countLines(out) < point && performance.now() < deadline && proc.exitCode === null) await Bun.sleep(2);
        proc.kill(9);
        await proc.exited;
      }
      const before = countLines(out);
      expect(before).toBeGreaterThanOrEqual(170);
      expect(before).toBeLessThan(300);
      const r = await runGym([...args, "--resume"], { cwd: dir.path });
      expect(r.stderr).toContain("Resumed from cache");
      expect(r.code).toBe(0);
      const rows = lines(out);
      const keys = rows.map((x) => `${x._ng_task_index}:${x._ng_rollout_index}`);
      expect(keys.length).toBe(300);
      expect(new Set(keys).size).toBe(300);
    } finally {
      head.stop(true);
      await env.stop();
    }
  });

  test("SIGTERM stops admission, exits 143, and --resume finishes the rest exactly once", async () => {
    await using dir = await tempDir();
    const env = startEnvServer(() => ({ kind: "ok", delayMs: 20 }), { record: false });
    const head = startHead(env);
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 200);
      const out = join(dir.path, "rollouts.jsonl");
      const args = ["eval", "run", "--no-serve", "-i", input, "-o", out, "--concurrency", "8", "--disable-aggregation", `+head_server={host: 127.0.0.1, port: ${head.port}}`];
      const envVars: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) envVars[k] = v;
      const proc = Bun.spawn([process.execPath, GYM_MAIN, ...args], { cwd: dir.path, env: envVars, stdout: "ignore", stderr: "ignore" });
      const deadline = performance.now() + 20_000;
      while (countLines(out) < 30 && performance.now() < deadline) await Bun.sleep(5);
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(143);
      expect(JSON.parse(readFileSync(`${out}.status.json`, "utf8")).state).toBe("stopped");
      expect(countLines(out)).toBeLessThan(200);
      const r = await runGym([...args, "--resume"], { cwd: dir.path });
      expect(r.code).toBe(0);
      const keys = lines(out).map((x) => `${x._ng_task_index}:${x._ng_rollout_index}`);
      expect(keys.length).toBe(200);
      expect(new Set(keys).size).toBe(200);
    } finally {
      head.stop(true);
      await env.stop();
    }
  });

  test("more than 256 in flight without BUN_CONFIG_MAX_HTTP_REQUESTS: all run at once over the pool (no re-spawn) and each pair is written once", async () => {
    await using dir = await tempDir();
    // Each /run is held 1.5 s: had a cap of 256 applied, no more than 256 could arrive before the first answer.
    const arrivals: number[] = [];
    const env = startEnvServer(() => (arrivals.push(performance.now()), { kind: "ok", delayMs: 1500 }), { record: false });
    const head = startHead(env);
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 400);
      const out = join(dir.path, "r.jsonl");
      const r = await runGym(["eval", "run", "-v", "--no-serve", "-i", input, "-o", out, "--concurrency", "300", "--disable-aggregation", `+head_server={host: 127.0.0.1, port: ${head.port}}`], {
        cwd: dir.path,
        env: { BUN_CONFIG_MAX_HTTP_REQUESTS: undefined },
      });
      expect(r.code).toBe(0);
      expect(r.stderr).not.toContain("re-spawning the driver");
      expect(r.stderr.split("Finished rollout collection!").length).toBe(2);
      // Bun's fetch cap (256) did not bound the driver: more than 256 /run were open at once.
      expect(arrivals.filter((t) => t - arrivals[0]! < 1400).length).toBeGreaterThan(256);
      const keys = lines(out).map((x) => `${x._ng_task_index}:${x._ng_rollout_index}`);
      expect(keys.length).toBe(400);
      expect(new Set(keys).size).toBe(400);
    } finally {
      head.stop(true);
      await env.stop();
    }
  });

  test("experiment tracking: W&B receives the run, metrics and the rollouts table from the CLI", async () => {
    await using dir = await tempDir();
    const env = startEnvServer();
    const head = startHead(env);
    const seen: string[] = [];
    let port = 0;
    const wandb = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req): Promise<Response> {
        const url = new URL(req.url);
        const body = await req.text();
        seen.push(`${url.pathname} ${body}`);
        if (url.pathname === "/graphql") {
          const q = JSON.parse(body) as { query: string; variables: { files?: string[] } };
          if (q.query.includes("createRunFiles")) return Response.json({ data: { createRunFiles: { files: q.variables.files!.map((name) => ({ name, uploadUrl: `http://127.0.0.1:${port}/upload` })) } } });
          return Response.json({ data: { viewer: { entity: "me" }, upsertBucket: { bucket: { id: "b" } } } });
        }
        return Response.json({});
      },
    });
    port = wandb.port!;
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 4);
      const r = await runGym(
        ["eval", "run", "--no-serve", "-i", input, "-o", join(dir.path, "r.jsonl"), `+head_server={host: 127.0.0.1, port: ${head.port}}`,
          "+wandb_project=proj", "+wandb_name=run1", "+wandb_api_key=key", `+wandb_base_url=http://127.0.0.1:${port}`],
        { cwd: dir.path },
      );
      expect(r.code).toBe(0);
      const history = seen.filter((x) => x.includes("file_stream")).join("\n");
      expect(history).toContain("my_agent/mean/reward");
      expect(history).toContain("key_metrics/my_agent/mean/reward");
      expect(history).toContain("table-file");
      expect(seen.some((x) => x.startsWith("/upload ") && x.includes("Rollout"))).toBe(true);
    } finally {
      wandb.stop(true);
      head.stop(true);
      await env.stop();
    }
  });

  test("usage and config errors exit 2", async () => {
    await using dir = await tempDir();
    const bad = await runGym(["eval", "run", "--no-serve", "--outptu", "x.jsonl"], { cwd: dir.path });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--output");
    const missing = await runGym(["eval", "run", "--no-serve", "-i", "in.jsonl"], { cwd: dir.path });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("output_jsonl_fpath");
  });

  test("a missing input file is a config error naming it", async () => {
    await using dir = await tempDir();
    const env = startEnvServer();
    const head = startHead(env);
    try {
      const r = await runGym(["eval", "run", "--no-serve", "-i", "missing.jsonl", "-o", "o.jsonl", `+head_server={host: 127.0.0.1, port: ${head.port}}`], { cwd: dir.path });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("Input file not found: 'missing.jsonl'");
    } finally {
      head.stop(true);
      await env.stop();
    }
  });

  test("no head server: a clear runtime error, exit 1", async () => {
    await using dir = await tempDir();
    const input = join(dir.path, "in.jsonl");
    await writeInput(input, 1);
    const r = await runGym(["eval", "run", "--no-serve", "-i", input, "-o", join(dir.path, "o.jsonl"), "+head_server={host: 127.0.0.1, port: 1}"], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Could not connect to the head server");
  });
});
