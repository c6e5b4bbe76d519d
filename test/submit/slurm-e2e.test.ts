/**
 * Real bare-metal submits on the local Slurm (scripts/setup-slurm.sh). The policy service is a
 * `vllm` shim that runs `gym model serve scripted_model` with the staged gym. One job's driver runs
 * `gym eval run` (staged binary) collecting rollouts from the built-in single_agent_turn
 * environment as a resumable chain; another runs a `command:` benchmark. Skipped (with a note)
 * only when `sinfo` is absent.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";

const SHIM_DIR = join(import.meta.dir, "..", "fixtures", "submit", "e2e-bin");
const EXAMPLE = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call");
const HAS_SLURM = Bun.which("sinfo") !== null;
if (!HAS_SLURM) console.warn("note: sinfo not found; skipping the real-Slurm submit test (run scripts/setup-slurm.sh as root to enable it)");

const SECRETS = { GYM_E2E_HOST_SECRET: "e2e-host-5a1d", GYM_E2E_FWD_SECRET: "e2e-fwd-c3b9" };

function config(out: string, port: number): string {
  return `services:
  policy:
    type: vllm
    model: scripted
    port: ${port}
    health_check: {timeout_seconds: 90}
compute:
  cluster:
    type: slurm
    account: gym-test
    walltime: "00:05:00"
    container_runtime: none
    forward_env: [GYM_E2E_FWD_SECRET]
driver:
  policy_model: policy
  env:
    HOST_SECRET: host:GYM_E2E_HOST_SECRET
    FWD: runtime:GYM_E2E_FWD_SECRET
  benchmarks:
    smoke:
      command: |
        A="$NEMO_GYM_BENCH_DIR/artifacts"
        gym --version > "$A/version.txt"
        curl -sf --noproxy '*' --max-time 30 "$NEMO_GYM_POLICY_BASE_URL/models" > "$A/models.json"
        curl -sf --noproxy '*' --max-time 30 -H 'content-type: application/json' -d '{"model": "scripted", "input": "hello"}' "$NEMO_GYM_POLICY_BASE_URL/responses" > "$A/response.json"
        printf %s "$FWD" | sha256sum | cut -c1-64 > "$A/forwarded.txt"
        test -n "$GYM_JOB_END_TIME" && echo "$GYM_JOB_END_TIME" > "$A/end_time.txt"
job:
  output_path: ${out}
otel: {enabled: false}
`;
}

function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? allFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

async function waitForJob(id: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const q = Bun.spawnSync(["squeue", "-h", "-j", id, "-o", "%T"], { stdout: "pipe", stderr: "pipe" });
    if (q.stdout.toString().trim() === "") break;
    await Bun.sleep(1000);
  }
  const s = Bun.spawnSync(["scontrol", "show", "job", id], { stdout: "pipe", stderr: "pipe" }).stdout.toString();
  return /JobState=(\S+)/.exec(s)?.[1] ?? "unknown";
}

/** The example environment with its dataset as a validation split at an absolute path. */
function writeEnvConfig(dir: string): string {
  copyFileSync(join(EXAMPLE, "data", "example.jsonl"), join(dir, "val.jsonl"));
  const text = readFileSync(join(EXAMPLE, "configs", "example_single_tool_call_single_agent_turn.yaml"), "utf8")
    .replace("type: example", "type: validation")
    .replace("jsonl_fpath: resources_servers/example_single_tool_call/data/example.jsonl", `jsonl_fpath: ${join(dir, "val.jsonl")}\n        license: MIT`);
  writeFileSync(join(dir, "env.yaml"), text);
  return join(dir, "env.yaml");
}

/** A port that is free right now (the head server of the driver binds it). */
function freePort(): number {
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = l.port;
  l.stop(true);
  return port;
}

function rolloutConfig(out: string, port: number, envYaml: string): string {
  return `services:
  policy:
    type: vllm
    model: scripted
    port: ${port}
compute:
  cluster:
    type: slurm
    account: gym-test
    walltime: "00:10:00"
    container_runtime: none
driver:
  policy_model: policy
  benchmarks:
    tool-call:
      resumable: true
      run:
        config_paths: [${envYaml}]
        split: validation
        num_repeats: 2
        num_samples_in_parallel: 4
        head_server: {port: ${freePort()}}
job:
  output_path: ${out}
otel: {enabled: false}
`;
}

function readJsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

describe.skipIf(!HAS_SLURM)("real Slurm (bare metal)", () => {
  test(
    "gym eval run in a resumable chain collects rollouts from a built-in environment",
    async () => {
      await using dir = await tempDir("gym-slurm-e2e-");
      const port = freePort();
      writeFileSync(join(dir.path, "submit.yaml"), rolloutConfig(join(dir.path, "runs"), port, writeEnvConfig(dir.path)));
      const r = await runGym(["eval", "submit", "-c", "submit.yaml", "--json"], { cwd: dir.path, env: { PATH: `${SHIM_DIR}:${process.env.PATH}` } });
      expect(r.stderr).not.toContain("error:");
      expect(r.code).toBe(0);
      const rec = JSON.parse(r.stdout);
      const jobId = rec.benchmarks[0].job_id as string;
      const bench = join(rec.run_dir, "tool-call");
      let state = "unknown";
      let chain: string[] = [];
      try {
        state = await waitForJob(jobId, 170_000);
        chain = readFileSync(join(bench, ".gym_job_chain"), "utf8").split("\n").filter((x) => x !== "");
      } finally {
        // The chain's successor (afternotok) is cancelled by Slurm once this job completes; make sure.
        const mine = Bun.spawnSync(["squeue", "-h", "-o", "%i %o"], { stdout: "pipe" }).stdout.toString().split("\n").filter((l) => l.includes(bench)).map((l) => l.split(" ")[0]!);
        for (const id of [jobId, ...mine]) Bun.spawnSync(["scancel", id]);
      }
      const batchOut = readFileSync(join(bench, `slurm-${jobId}.out`), "utf8");
      const driverLog = readFileSync(join(bench, "logs", `driver-${jobId}.log`), "utf8");
      expect(`${state}\n${batchOut}\n${driverLog.slice(-3000)}`).toStartWith("COMPLETED\n");
      expect(chain).toEqual([jobId]);
      expect(driverLog).toContain("NeMo Gym finished!");
      const art = join(bench, "artifacts");
      const rows = readJsonl(join(art, "rollouts.jsonl"));
      expect(rows.length).toBe(10);
      expect(new Set(rows.map((x) => `${x._ng_task_index}:${x._ng_rollout_index}`)).size).toBe(10);
      for (const row of rows) expect(typeof row.reward).toBe("number");
      const agg = JSON.parse(readFileSync(join(art, "rollouts_aggregate_metrics.json"), "utf8"));
      expect(Array.isArray(agg)).toBe(true);
      expect(statSync(join(bench, "logs", `policy-${jobId}.log`)).isFile()).toBe(true);
      const st = await runGym(["eval", "status", rec.run_dir, "--json"], { cwd: dir.path });
      expect(st.code).toBe(0);
      const bs = JSON.parse(st.stdout).benchmarks["tool-call"];
      expect(bs).toMatchObject({ job_id: jobId, state: "COMPLETED", exit_code: "0:0", chain: [jobId] });
      expect(bs.progress).not.toBeNull();
    },
    200_000,
  );

  test(
    "a failing resumable driver is retried by the chain until max_retries, then the chain stops",
    async () => {
      await using dir = await tempDir("gym-slurm-chain-");
      // A config that resolves (so submit's run-config check passes) whose dataset is gone by the time
      // the job collates it: the driver fails inside the job, every time.
      const envYaml = writeEnvConfig(dir.path);
      rmSync(join(dir.path, "val.jsonl"));
      writeFileSync(
        join(dir.path, "submit.yaml"),
        `services: {}
compute:
  cluster: {type: slurm, account: gym-test, walltime: "00:05:00", container_runtime: none}
driver:
  benchmarks:
    broken:
      resumable: {max_retries: 1}
      run: {config_paths: [${envYaml}, responses_api_models/scripted_model/configs/scripted_model.yaml], split: validation}
job: {output_path: ${join(dir.path, "runs")}}
otel: {enabled: false}
`,
      );
      const r = await runGym(["eval", "submit", "-c", "submit.yaml", "--json"], { cwd: dir.path });
      expect(r.code).toBe(0);
      const rec = JSON.parse(r.stdout);
      const first = rec.benchmarks[0].job_id as string;
      const bench = join(rec.run_dir, "broken");
      const mine = () =>
        Bun.spawnSync(["squeue", "-h", "-o", "%i %o"], { stdout: "pipe" }).stdout.toString().split("\n").filter((l) => l.includes(bench)).map((l) => l.split(" ")[0]!);
      const deadline = Date.now() + 150_000;
      try {
        while (Date.now() < deadline && (mine().length > 0 || !existsSync(join(bench, ".gym_infra_retries")) || readFileSync(join(bench, ".gym_infra_retries"), "utf8").trim() !== "2")) {
          await Bun.sleep(1000);
        }
        while (Date.now() < deadline && mine().length > 0) await Bun.sleep(1000);
      } finally {
        for (const id of mine()) Bun.spawnSync(["scancel", id]);
      }
      const chain = readFileSync(join(bench, ".gym_job_chain"), "utf8").split("\n").filter((x) => x !== "");
      expect(chain.length).toBe(2);
      expect(chain[0]).toBe(first);
      expect(readFileSync(join(bench, ".gym_infra_retries"), "utf8")).toBe("2\n");
      // The third job judged its predecessor and stopped the chain in the prologue.
      const outs = readdirSync(bench).filter((f) => /^slurm-\d+\.out$/.test(f)).sort();
      expect(outs.length).toBe(3);
      const last = readFileSync(join(bench, outs.find((f) => !chain.some((id) => f === `slurm-${id}.out`))!), "utf8");
      expect(last).toContain(`Predecessor ${chain[1]} ended FAILED. Infra retry limit (1) reached.`);
      expect(readFileSync(join(bench, `slurm-${chain[1]}.out`), "utf8")).toContain(`Predecessor ${first} ended FAILED. Infra retry 1 of 1. Resuming.`);
      const st = await runGym(["eval", "status", rec.run_dir, "--json"], { cwd: dir.path });
      expect(JSON.parse(st.stdout).benchmarks.broken).toMatchObject({ job_id: chain[1], state: "FAILED", chain });
    },
    200_000,
  );

  test(
    "submit → scripted policy healthy → driver through the staged gym → COMPLETED, artifacts, logs, record, status",
    async () => {
      await using dir = await tempDir("gym-slurm-e2e-");
      const port = freePort();
      writeFileSync(join(dir.path, "submit.yaml"), config(join(dir.path, "runs"), port));
      const env = { ...SECRETS, PATH: `${SHIM_DIR}:${process.env.PATH}` };
      const r = await runGym(["eval", "submit", "-c", "submit.yaml", "--json"], { cwd: dir.path, env });
      expect(r.stderr).not.toContain("error:");
      expect(r.code).toBe(0);
      const rec = JSON.parse(r.stdout);
      const jobId = rec.benchmarks[0].job_id as string;
      expect(jobId).toMatch(/^\d+$/);
      let state = "unknown";
      try {
        state = await waitForJob(jobId, 150_000);
      } finally {
        if (state === "unknown" || state === "RUNNING" || state === "PENDING") Bun.spawnSync(["scancel", jobId]);
      }
      const bench = join(rec.run_dir, "smoke");
      const batchOut = readFileSync(join(bench, `slurm-${jobId}.out`), "utf8");
      expect(`${state}\n${batchOut}`).toStartWith("COMPLETED\n");
      expect(batchOut).toContain(`Waiting for policy at http://localhost:${port}...`);
      const art = join(bench, "artifacts");
      expect(readFileSync(join(art, "version.txt"), "utf8")).toStartWith("gym ");
      expect(JSON.parse(readFileSync(join(art, "models.json"), "utf8")).object).toBe("list");
      const resp = JSON.parse(readFileSync(join(art, "response.json"), "utf8"));
      expect(Array.isArray(resp.output)).toBe(true);
      // The forwarded secret reached the driver (compared by hash, so no file holds it).
      const sha = new Bun.CryptoHasher("sha256").update(SECRETS.GYM_E2E_FWD_SECRET).digest("hex");
      expect(readFileSync(join(art, "forwarded.txt"), "utf8")).toBe(`${sha}\n`);
      expect(Number(readFileSync(join(art, "end_time.txt"), "utf8"))).toBeGreaterThan(Date.now() / 1000);
      expect(statSync(join(bench, "logs", `policy-${jobId}.log`)).isFile()).toBe(true);
      expect(statSync(join(bench, "logs", `driver-${jobId}.log`)).isFile()).toBe(true);
      expect(JSON.parse(readFileSync(join(rec.run_dir, "gym-job.json"), "utf8")).benchmarks[0].job_id).toBe(jobId);
      // D28: the host: secret only in job.sh; the forwarded secret in no file at all.
      for (const f of allFiles(rec.run_dir)) {
        const text = readFileSync(f, "utf8");
        expect(`${f}:${text.includes(SECRETS.GYM_E2E_FWD_SECRET)}`).toBe(`${f}:false`);
        expect(`${f}:${text.includes(SECRETS.GYM_E2E_HOST_SECRET)}`).toBe(`${f}:${f.endsWith("/job.sh")}`);
      }
      const st = await runGym(["eval", "status", rec.run_dir, "--json"], { cwd: dir.path });
      expect(st.code).toBe(0);
      expect(JSON.parse(st.stdout).benchmarks.smoke).toMatchObject({ job_id: jobId, state: "COMPLETED", exit_code: "0:0" });
    },
    200_000,
  );
});
