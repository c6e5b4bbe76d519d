/**
 * `gym eval submit` / `gym eval status` end to end through the CLI: resolve-only round trip,
 * dry-run listing, exit codes, and a full local submit against a fake `sbatch` on PATH that checks
 * the staged tree, the records and the D28 secret rules (grep every file written).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";

const CONFIG = (out: string) => `_x:
  img: vllm:1
services:
  policy: {type: vllm, container: "\${_x.img}", model: m, env: {HF_TOKEN: "host:GYM_T_HOST_SECRET"}}
  pd: {type: vllm_pd, container: c, model: pm, port: 9000, prefill: {node_pool: a}, decode: {node_pool: a}}
compute:
  cluster:
    type: slurm
    account: acct
    forward_env: [GYM_T_FWD_SECRET]
    node_pools: {a: {partition: p}}
driver:
  policy_model: policy
  env: {W: "runtime:GYM_T_FWD_SECRET"}
  benchmarks:
    b1: {run: {config_paths: [resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml], split: example, num_repeats: 2}}
    b2: {run: {config_paths: [resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml], split: example, x: 1}}
job: {output_path: ${out}}
otel: {enabled: false}
`;

const SECRETS = { GYM_T_HOST_SECRET: "hostsecret-9f2c", GYM_T_FWD_SECRET: "fwdsecret-77ab" };

function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...allFiles(p));
    else out.push(p);
  }
  return out;
}

describe("gym eval submit CLI", () => {
  test("usage and config errors exit 2 with error: lines", async () => {
    await using dir = await tempDir();
    const none = await runGym(["eval", "submit"], { cwd: dir.path });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("error:");
    const missing = await runGym(["eval", "submit", "-c", "nope.yaml"], { cwd: dir.path });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: Submit config 'nope.yaml' was not found");
    writeFileSync(join(dir.path, "s.yaml"), CONFIG("/tmp/x"));
    const bad = await runGym(["eval", "submit", "-c", "s.yaml", "--resolve-only"], { cwd: dir.path, env: { GYM_T_HOST_SECRET: undefined } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("references host:GYM_T_HOST_SECRET, but 'GYM_T_HOST_SECRET' is not set");
    expect(bad.stdout).toBe("");
  });

  test("--resolve-only prints the validated config, which re-validates to the same text", async () => {
    await using dir = await tempDir();
    writeFileSync(join(dir.path, "s.yaml"), CONFIG(dir.path));
    const r1 = await runGym(["eval", "submit", "-c", "s.yaml", "--resolve-only"], { cwd: dir.path, env: SECRETS });
    expect(r1.code).toBe(0);
    expect(r1.stderr).toContain("experimental");
    expect(r1.stdout).toContain("policy_base_url: http://localhost:8000/v1");
    expect(r1.stdout).toContain("HF_TOKEN: host:GYM_T_HOST_SECRET");
    expect(r1.stdout).not.toContain(SECRETS.GYM_T_HOST_SECRET);
    expect(r1.stdout).not.toContain("_x");
    writeFileSync(join(dir.path, "resolved.yaml"), r1.stdout);
    const r2 = await runGym(["eval", "submit", "-c", "resolved.yaml", "--resolve-only"], { cwd: dir.path, env: SECRETS });
    expect(r2.code).toBe(0);
    expect(r2.stdout).toBe(r1.stdout);
  });

  test("--dry-run prints every script with the upstream listing and stages nothing", async () => {
    await using dir = await tempDir();
    writeFileSync(join(dir.path, "s.yaml"), CONFIG(join(dir.path, "runs")));
    const r = await runGym(["eval", "submit", "-c", "s.yaml", "--dry-run"], { cwd: dir.path, env: { GYM_T_HOST_SECRET: "h", GYM_T_FWD_SECRET: undefined } });
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(new RegExp(`^\\[dry-run\\] remote run dir: ${dir.path}/runs/gym-job-\\d{8}T\\d{6}Z-[0-9a-f]{6}$`));
    expect(lines[1]).toBe("=".repeat(60));
    expect(lines[2]).toBe("[dry-run] sbatch script for benchmark: b1");
    expect(r.stdout).toContain("[dry-run] sbatch script for benchmark: b2");
    expect(r.stdout).toContain("#!/bin/bash");
    expect(readdirSync(dir.path)).toEqual(["s.yaml"]);
  });

  test("--dry-run prints host:NAME references, never the host values (D39)", async () => {
    await using dir = await tempDir();
    writeFileSync(join(dir.path, "s.yaml"), CONFIG(join(dir.path, "runs")));
    const r = await runGym(["eval", "submit", "-c", "s.yaml", "--dry-run"], { cwd: dir.path, env: { GYM_T_HOST_SECRET: "hf_dry-run-SECRET-value", GYM_T_FWD_SECRET: undefined } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("hf_dry-run-SECRET-value");
    expect(r.stdout).toContain("HF_TOKEN=host:GYM_T_HOST_SECRET");
  });

  test("submit-only checks fail before anything is staged: forward_env, mount sources", async () => {
    await using dir = await tempDir();
    const runs = join(dir.path, "runs");
    writeFileSync(join(dir.path, "s.yaml"), CONFIG(runs));
    const fwd = await runGym(["eval", "submit", "-c", "s.yaml"], { cwd: dir.path, env: { GYM_T_HOST_SECRET: "h", GYM_T_FWD_SECRET: undefined } });
    expect(fwd.code).toBe(2);
    expect(fwd.stderr).toContain("compute.cluster.forward_env names 'GYM_T_FWD_SECRET', which is not set in the submitting shell's environment");
    writeFileSync(join(dir.path, "m.yaml"), CONFIG(runs).replace("driver:\n", `driver:\n  mounts: ["${dir.path}:/d", "/nonexistent/gym-x:/x:ro"]\n`));
    const mnt = await runGym(["eval", "submit", "-c", "m.yaml"], { cwd: dir.path, env: SECRETS });
    expect(mnt.code).toBe(2);
    expect(mnt.stderr).toContain("Mount src paths do not exist:\n  driver: '/nonexistent/gym-x'");
    expect(mnt.stderr).not.toContain(`'${dir.path}'`);
    expect(readdirSync(dir.path).sort()).toEqual(["m.yaml", "s.yaml"]);
  });

  test("a full local submit: staged tree, modes, records, job ids by name, secrets only in job.sh", async () => {
    await using dir = await tempDir();
    const bin = join(dir.path, "bin");
    const runs = join(dir.path, "runs");
    Bun.spawnSync(["mkdir", "-p", bin]);
    // Fake sbatch: fails for b2, prints an id for the rest, and records whether it saw the forwarded secret.
    writeFileSync(join(bin, "sbatch"), `#!/bin/bash\ncase "$2" in */b2/*) echo "sbatch: error: QOS limit" >&2; exit 1;; esac\n[ "$GYM_T_FWD_SECRET" = "${SECRETS.GYM_T_FWD_SECRET}" ] && echo 4711 || echo "no secret"\n`);
    chmodSync(join(bin, "sbatch"), 0o755);
    writeFileSync(join(dir.path, "s.yaml"), CONFIG(runs));
    const env = { ...SECRETS, PATH: `${bin}:${process.env.PATH}` };
    const r = await runGym(["eval", "submit", "-c", "s.yaml", "--json"], { cwd: dir.path, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: 1 benchmark(s) failed to submit");
    const rec = JSON.parse(r.stdout);
    expect(rec.benchmarks).toEqual([
      { benchmark: "b1", job_dir: `${rec.run_dir}/b1`, job_id: "4711", error: null },
      { benchmark: "b2", job_dir: `${rec.run_dir}/b2`, job_id: null, error: "sbatch: error: QOS limit" },
    ]);
    expect(rec).toMatchObject({ executor: "slurm", cluster: "cluster", hostname: null, schema_version: 1, executor_metadata: {} });
    expect(rec.gym_job_id).toMatch(/^gym-job-\d{8}T\d{6}Z-[0-9a-f]{6}$/);
    expect(rec.submitted_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const runDir = rec.run_dir as string;
    expect(runDir).toBe(join(runs, rec.gym_job_id));
    expect(JSON.parse(readFileSync(join(runDir, "gym-job.json"), "utf8"))).toEqual(rec);
    expect(statSync(join(runDir, "gym")).mode & 0o777).toBe(0o755);
    // The binary is staged once per content digest beside the run dirs and linked into each.
    expect(readdirSync(join(runs, ".gym-bin")).filter((f) => f.startsWith("gym-"))).toHaveLength(1);
    expect(statSync(join(runDir, "b1", "job.sh")).mode & 0o777).toBe(0o600);
    expect(statSync(join(runDir, "b1", "logs")).isDirectory()).toBe(true);
    expect(statSync(join(runDir, "b1", "artifacts")).isDirectory()).toBe(true);
    // D28: host: values only in job.sh; forward_env values nowhere.
    const files = allFiles(runDir);
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      expect(`${f}:${text.includes(SECRETS.GYM_T_FWD_SECRET)}`).toBe(`${f}:false`);
      expect(`${f}:${text.includes(SECRETS.GYM_T_HOST_SECRET)}`).toBe(`${f}:${f.endsWith("job.sh")}`);
    }
    expect(readFileSync(join(runDir, "resolved-config.yaml"), "utf8")).toContain("host:GYM_T_HOST_SECRET");
    expect(r.stdout + r.stderr).not.toContain(SECRETS.GYM_T_HOST_SECRET);
    expect(r.stdout + r.stderr).not.toContain(SECRETS.GYM_T_FWD_SECRET);

    // gym eval status: no Slurm answers for the fake id → unknown, chain/progress read from disk.
    writeFileSync(join(runDir, "b1", ".gym_job_chain"), "4711\n");
    writeFileSync(join(runDir, "b1", "artifacts", "rollouts.jsonl.status.json"), JSON.stringify({ done: 1, failed: 0, in_flight: 1, total: 4 }));
    const st = await runGym(["eval", "status", runDir, "--json"], { cwd: dir.path, env: { PATH: `${bin}:/usr/bin:/bin` } });
    expect(st.code).toBe(0);
    const js = JSON.parse(st.stdout);
    expect(js.gym_job_id).toBe(rec.gym_job_id);
    expect(js.benchmarks.b1).toMatchObject({ job_id: "4711", chain: ["4711"], progress: { done: 1, failed: 0, in_flight: 1, total: 4 } });
    expect(js.benchmarks.b2).toMatchObject({ job_id: null, state: "unknown" });
  });
});
