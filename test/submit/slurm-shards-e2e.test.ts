/**
 * Sharded collection on the real local Slurm (scripts/setup-slurm.sh; issue 20): one submit with a
 * `shards: 3` benchmark (job array, resumable per task, merge job afterany) and the same rows as a
 * single job. Array task 1 is killed (SIGKILL to its batch shell, so it ends FAILED, not
 * CANCELLED) after its chain step; its successor collects the same slice. After the merge every
 * (task, rollout) is present exactly once and the metrics equal the single job's. Skipped (with a
 * note) only when `sinfo` is absent.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";

const EXAMPLE = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call");
const HAS_SLURM = Bun.which("sinfo") !== null;
if (!HAS_SLURM) console.warn("note: sinfo not found; skipping the real-Slurm sharded test (run scripts/setup-slurm.sh as root to enable it)");

function freePort(): number {
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = l.port;
  l.stop(true);
  return port;
}

function writeEnvConfig(dir: string): string {
  copyFileSync(join(EXAMPLE, "data", "example.jsonl"), join(dir, "val.jsonl"));
  const text = readFileSync(join(EXAMPLE, "configs", "example_single_tool_call_single_agent_turn.yaml"), "utf8")
    .replace("type: example", "type: validation")
    .replace("jsonl_fpath: resources_servers/example_single_tool_call/data/example.jsonl", `jsonl_fpath: ${join(dir, "val.jsonl")}\n        license: MIT`);
  writeFileSync(join(dir, "env.yaml"), text);
  return join(dir, "env.yaml");
}

function readJsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

function squeueIds(match: string): string[] {
  return Bun.spawnSync(["squeue", "-h", "-o", "%i %o"], { stdout: "pipe" }).stdout.toString().split("\n").filter((l) => l.includes(match)).map((l) => l.split(" ")[0]!);
}

describe.skipIf(!HAS_SLURM)("real Slurm: sharded collection", () => {
  test(
    "shards: 3 → every row once after the merge, a killed task retried, metrics equal to one job's",
    async () => {
      await using dir = await tempDir("gym-slurm-shards-");
      const envYaml = writeEnvConfig(dir.path);
      const run = (port: number) => `{config_paths: [${envYaml}, responses_api_models/scripted_model/configs/scripted_model.yaml], split: validation, num_repeats: 32, num_samples_in_parallel: 1, head_server: {port: ${port}}}`;
      writeFileSync(
        join(dir.path, "submit.yaml"),
        `services: {}
compute:
  cluster: {type: slurm, account: gym-test, walltime: "00:10:00", container_runtime: none}
driver:
  benchmarks:
    sharded:
      resumable: true
      shards: {count: 3, max_parallel: 1}
      run: ${run(freePort())}
    single:
      run: ${run(freePort())}
job: {output_path: ${join(dir.path, "runs")}}
otel: {enabled: false}
`,
      );
      const r = await runGym(["eval", "submit", "-c", "submit.yaml", "--json"], { cwd: dir.path });
      expect(r.stderr).toContain("driver.benchmarks.sharded.shards: 3 array task(s)");
      expect(r.code).toBe(0);
      const rec = JSON.parse(r.stdout);
      const sharded = rec.benchmarks.find((b: { benchmark: string }) => b.benchmark === "sharded");
      const single = rec.benchmarks.find((b: { benchmark: string }) => b.benchmark === "single");
      expect(sharded.merge_job_id).toMatch(/^\d+$/);
      const sdir = join(rec.run_dir, "sharded");
      const mergedOut = join(sdir, "artifacts", "rollouts.jsonl");
      const singleOut = join(rec.run_dir, "single", "artifacts", "rollouts.jsonl");
      const deadline = Date.now() + 280_000;
      let killed = "";
      let rowsAtKill = 0;
      try {
        // Kill array task 1 mid-collection: its chain step ran and it wrote its first rollouts.
        const s1 = join(sdir, "shards", "1");
        while (Date.now() < deadline && !killed) {
          const rows = existsSync(join(s1, "rollouts.jsonl")) ? readJsonl(join(s1, "rollouts.jsonl")).length : 0;
          if (rows > 0 && existsSync(join(s1, ".gym_next_job")) && existsSync(join(s1, ".gym_job_chain"))) {
            killed = readFileSync(join(s1, ".gym_job_chain"), "utf8").trim().split("\n")[0]!;
            Bun.spawnSync(["scancel", "--signal=KILL", "--batch", killed]);
            rowsAtKill = readJsonl(join(s1, "rollouts.jsonl")).length;
          } else await Bun.sleep(50);
        }
        while (Date.now() < deadline && (squeueIds(sdir).length > 0 || squeueIds(join(rec.run_dir, "single")).length > 0 || !existsSync(mergedOut))) await Bun.sleep(1000);
      } finally {
        for (const id of [...squeueIds(sdir), ...squeueIds(join(rec.run_dir, "single"))]) Bun.spawnSync(["scancel", id]);
      }
      const logs = () =>
        readdirSync(sdir)
          .filter((f) => f.endsWith(".out"))
          .map((f) => `--- ${f}\n${readFileSync(join(sdir, f), "utf8").slice(-1500)}`)
          .join("\n") + readdirSync(join(sdir, "logs")).filter((f) => f.startsWith("merge")).map((f) => readFileSync(join(sdir, "logs", f), "utf8").slice(-1500)).join("\n");
      expect(killed).not.toBe("");
      // Killed part-way: some of shard 1's 64 rollouts (tasks 1 and 4 × 32 repeats) were collected, not all.
      // (32 repeats, not 8: over Unix sockets a 16-row slice could finish between two 50 ms polls.)
      expect(rowsAtKill).toBeGreaterThan(0);
      expect(rowsAtKill).toBeLessThan(64);
      expect(`${existsSync(mergedOut)}\n${logs()}`).toStartWith("true\n");
      // Task 1's chain: the killed job, then its successor (same array index, same slice).
      const chain1 = readFileSync(join(sdir, "shards", "1", ".gym_job_chain"), "utf8").trim().split("\n");
      expect(chain1.length).toBe(2);
      expect(chain1[0]).toBe(killed);
      const retryOut = readdirSync(sdir).filter((f) => f.endsWith(".out")).map((f) => readFileSync(join(sdir, f), "utf8")).join("\n");
      expect(retryOut).toContain(`Predecessor ${killed} ended FAILED. Infra retry 1 of 3. Resuming.`);
      // The successor resumed the same 64-row slice instead of starting over.
      const retryLog = readFileSync(join(sdir, "logs", `driver-${chain1[1]}.log`), "utf8");
      expect(retryLog).toContain("Resumed from cache. Found:\n- 64 original input rows\n");
      const done = Number(/- (\d+) rows already done/.exec(retryLog)?.[1] ?? -1);
      expect(done).toBeGreaterThanOrEqual(rowsAtKill);
      for (const k of [0, 2]) expect(readFileSync(join(sdir, "shards", String(k), ".gym_job_chain"), "utf8").trim().split("\n").length).toBe(1);
      // Each shard holds only its own tasks.
      for (const k of [0, 1, 2]) for (const row of readJsonl(join(sdir, "shards", String(k), "rollouts.jsonl"))) expect(Number(row._ng_task_index) % 3).toBe(k);
      const merged = readJsonl(mergedOut);
      const one = readJsonl(singleOut);
      const key = (x: Record<string, unknown>) => `${x._ng_task_index}:${x._ng_rollout_index}`;
      expect(one.length).toBe(160);
      expect(readJsonl(join(sdir, "shards", "1", "rollouts.jsonl")).length).toBe(64);
      expect(merged.map(key)).toEqual([...one].sort((a, b) => Number(a._ng_task_index) - Number(b._ng_task_index) || Number(a._ng_rollout_index) - Number(b._ng_rollout_index)).map(key));
      const rewards = (rows: Record<string, unknown>[]) => Object.fromEntries(rows.map((x) => [key(x), x.reward]));
      expect(rewards(merged)).toEqual(rewards(one));
      // Metrics: the merge's file against the single job's, after dropping wall-clock fields; numbers to
      // 12 significant digits (a std summed in another row order differs in the last bits).
      const metricsOf = (p: string) => JSON.parse(readFileSync(p.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8"));
      const mm = metricsOf(mergedOut);
      const sm = metricsOf(singleOut);
      expect(stripTiming(mm)).toEqual(stripTiming(sm));
    },
    300_000,
  );
});

/** Metric entries without wall-clock figures, which differ between any two runs. */
function stripTiming(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripTiming);
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).filter(([k]) => !/elapsed|seconds|duration|time|latency|_ms$/i.test(k)).map(([k, x]) => [k, stripTiming(x)]));
  }
  if (typeof v === "number" && !Number.isInteger(v)) return Number(v.toPrecision(12));
  return v;
}
