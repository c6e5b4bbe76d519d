/**
 * Sharded collection over a Slurm job array (issue 20): the golden job array + merge script, the
 * validation (GPU arithmetic, `shards` with `command`), the sbatch program's merge line, and the
 * merge script's decisions run against a fake `squeue`/`sbatch` on PATH.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { composeSubmit } from "../../src/submit/compose.ts";
import { renderAggregateScript } from "../../src/submit/render/aggregate.ts";
import { renderScript } from "../../src/submit/render/script.ts";
import { parseMergeOutput, sbatchProgram } from "../../src/submit/slurm.ts";
import { validateSubmit } from "../../src/submit/validate.ts";
import { tempDir } from "../helpers/tmp.ts";
import { baseConfig, check, errorOf, ID } from "./_helpers.ts";
import { FIXTURES, GOLDEN_ENV } from "./_render.ts";

function renderSharded(): string {
  const path = join(FIXTURES, "vllm-sharded.yaml");
  const lookup = (n: string) => GOLDEN_ENV[n];
  const v = validateSubmit(composeSubmit(path, [], lookup), path, { lookupEnv: lookup });
  return Object.keys(v.config.driver.benchmarks)
    .map((b) => renderScript(v.config, v.hostValues, ID, b) + (renderAggregateScript(v.config, ID, b) ?? ""))
    .join("");
}

describe("golden sharded scripts", () => {
  test("vllm-sharded: job array + merge script", () => {
    const got = renderSharded();
    // UPDATE_GOLDEN=1 rewrites the file; the diff is then reviewed by hand.
    if (process.env.UPDATE_GOLDEN === "1") writeFileSync(join(FIXTURES, "vllm-sharded.sh"), got);
    expect(got).toBe(readFileSync(join(FIXTURES, "vllm-sharded.sh"), "utf8"));
  });

  test("valid bash (and shellcheck -S error when installed)", async () => {
    await using dir = await tempDir("gym-shards-sc-");
    const c = baseConfig();
    c.driver.benchmarks.b1.shards = 3;
    const v = check(c);
    const files: [string, string][] = [
      ["job.sh", renderScript(v.config, v.hostValues, ID, "b1")],
      ["aggregate.sh", renderAggregateScript(v.config, ID, "b1")!],
      ["golden.sh", renderSharded()],
    ];
    for (const [n, t] of files) writeFileSync(join(dir.path, n), t);
    for (const [n] of files) {
      const r = Bun.spawnSync(["bash", "-n", join(dir.path, n)], { stderr: "pipe" });
      expect(`${n}: ${r.stderr.toString()}`).toBe(`${n}: `);
    }
    const sc = Bun.which("shellcheck");
    if (!sc) return console.warn("note: shellcheck not installed; skipped the shellcheck half (CI installs it)");
    const r = Bun.spawnSync([sc, "-S", "error", ...files.map(([n]) => join(dir.path, n))], { stdout: "pipe", stderr: "pipe" });
    expect(r.stdout.toString() + r.stderr.toString()).toBe("");
  });
});

describe("shapes", () => {
  test("shards: N → --array=0-(N-1), per-task output, num_shards/shard_index, no % without max_parallel", () => {
    const c = baseConfig();
    c.driver.benchmarks.b1.shards = 3;
    const v = check(c);
    const s = renderScript(v.config, v.hostValues, ID, "b1");
    expect(s).toContain("#SBATCH --array=0-2\n");
    expect(s).toContain(`"+output_jsonl_fpath=${ID.runDir}/b1/shards/\${SLURM_ARRAY_TASK_ID}/rollouts.jsonl"`);
    expect(s).toContain("+num_shards=3");
    expect(s).toContain('"+shard_index=${SLURM_ARRAY_TASK_ID}"');
    // Not resumable: no chain, but still a shard dir and a done marker.
    expect(s).not.toContain(".gym_job_chain");
    expect(s).toContain('touch "$GYM_SHARD_DIR/.gym_shard_done"');
    expect(s.trimEnd().endsWith('exit "$_gym_driver_rc"')).toBe(true);
  });

  test("resumable + shards: chain files per task, successor for the same array index", () => {
    const c = baseConfig();
    c.driver.benchmarks.b1.shards = { count: 5, max_parallel: 2 };
    c.driver.benchmarks.b1.resumable = true;
    const v = check(c);
    const s = renderScript(v.config, v.hostValues, ID, "b1");
    expect(s).toContain("#SBATCH --array=0-4%2\n");
    expect(s).toContain('OUTPUT_DIR="$GYM_SHARD_DIR"');
    expect(s).toContain('_this_script="$PWD/job.sh"');
    expect(s).toContain('--array="$SLURM_ARRAY_TASK_ID" --dependency="afternotok:$SLURM_JOB_ID"');
    expect(s).toContain('> "$OUTPUT_DIR/.gym_next_job"');
  });

  test("an unsharded benchmark has no merge script", () => {
    const v = check(baseConfig());
    expect(renderAggregateScript(v.config, ID, "b1")).toBeUndefined();
  });
});

describe("validation", () => {
  test.each([
    [{ command: "echo hi", shards: 2 }, "sets both `command` and `shards`"],
    [{ run: {}, shards: 0 }, "shards"],
    [{ run: {}, shards: 2.5 }, "shards"],
    [{ run: {}, shards: { count: 2, max_parallel: 0 } }, "max_parallel"],
    [{ run: {}, shards: { count: 2, extra: 1 } }, "extra"],
    [{ run: {}, shards: "three" }, "shards"],
  ])("%j is rejected (%s)", (bench, needle) => {
    const c = baseConfig();
    c.driver.benchmarks.b1 = bench;
    expect(errorOf(c)).toContain(needle);
  });

  test("the GPU arithmetic is explained", () => {
    const c = baseConfig();
    c.compute.cluster.node_pools.gpu.gpus_per_node = 8;
    c.driver.benchmarks.b1.shards = { count: 6, max_parallel: 2 };
    const w = check(c).warnings.join("\n");
    expect(w).toContain("driver.benchmarks.b1.shards: 6 array task(s)");
    expect(w).toContain("1 node(s) and 8 GPU(s) each, so up to 16 GPUs at once (2 running task(s) × 8; 48 GPU allocations in all)");
    expect(check(baseConfig()).warnings.join("\n")).not.toContain("array task");
  });
});

describe("sbatch program", () => {
  test("queues the merge afterany on the array and reports it", () => {
    const p = sbatchProgram("/r", ["a", "b"], {}, ["b"]);
    expect(p).toContain(`--dependency="afterany:$jid" /r/b/aggregate.sh`);
    expect(p.match(/aggregate\.sh/g)?.length).toBe(1);
    expect(sbatchProgram("/r", ["a"], {})).toBe(sbatchProgram("/r", ["a"], {}, []));
    expect(parseMergeOutput("__GYM_JOB:b:0:41\n__GYM_MERGE:b:0:42\n")).toEqual({ b: { jobId: "42", error: null } });
    expect(parseMergeOutput("__GYM_MERGE:b:1:sbatch: error: bad\n")).toEqual({ b: { jobId: null, error: "sbatch: error: bad" } });
  });
});

describe("merge script decisions (fake squeue/sbatch/gym on PATH)", () => {
  async function runMerge(setup: (shards: string) => void, queued: string[]): Promise<{ code: number; out: string; calls: string }> {
    await using dir = await tempDir("gym-merge-");
    const runDir = join(dir.path, "run");
    const bin = join(dir.path, "bin");
    mkdirSync(bin);
    mkdirSync(join(runDir, "b1", "shards"), { recursive: true });
    const calls = join(dir.path, "calls");
    writeFileSync(calls, "");
    const fake = (name: string, body: string) => {
      writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`);
      chmodSync(join(bin, name), 0o755);
    };
    fake("squeue", `for a in "$@"; do case " ${queued.join(" ")} " in *" $a "*) echo PENDING;; esac; done`);
    fake("sbatch", `echo "sbatch $*" >> '${calls}'; echo 99`);
    writeFileSync(join(runDir, "gym"), `#!/bin/bash\necho "gym $*" >> '${calls}'\n`);
    chmodSync(join(runDir, "gym"), 0o755);
    setup(join(runDir, "b1", "shards"));
    const c = baseConfig();
    c.driver.benchmarks.b1.shards = 3;
    const script = renderAggregateScript(check(c).config, { gymJobId: "g", runDir }, "b1")!;
    writeFileSync(join(runDir, "b1", "aggregate.sh"), script);
    const p = Bun.spawnSync(["bash", join(runDir, "b1", "aggregate.sh")], { cwd: join(runDir, "b1"), env: { PATH: `${bin}:${process.env.PATH}` }, stdout: "pipe", stderr: "pipe" });
    return { code: p.exitCode, out: p.stdout.toString() + p.stderr.toString(), calls: readFileSync(calls, "utf8").replaceAll(runDir, "RUN") };
  }
  const shard = (root: string, k: number, files: Record<string, string>) => {
    mkdirSync(join(root, String(k)), { recursive: true });
    for (const [n, t] of Object.entries(files)) writeFileSync(join(root, String(k), n), t);
  };

  test("all shards done → one merge", async () => {
    const r = await runMerge((s) => [0, 1, 2].forEach((k) => shard(s, k, { ".gym_shard_done": "" })), []);
    expect(r.code).toBe(0);
    expect(r.calls).toBe("gym eval aggregate -i RUN/b1/shards/*/rollouts.jsonl -o RUN/b1/artifacts/rollouts.jsonl +merge_shards=true\n");
  });

  test("a shard still retrying → the merge re-queues itself after its successor", async () => {
    const r = await runMerge((s) => {
      shard(s, 0, { ".gym_shard_done": "" });
      shard(s, 1, { ".gym_next_job": "77\n" });
      shard(s, 2, { ".gym_shard_done": "" });
    }, ["77"]);
    expect(r.code).toBe(0);
    expect(r.calls).toBe("sbatch --dependency=afterany:77 RUN/b1/aggregate.sh\n");
  });

  test("a shard that failed for good → no merge, exit 1 naming it", async () => {
    const r = await runMerge((s) => {
      shard(s, 0, { ".gym_shard_done": "" });
      shard(s, 1, { ".gym_next_job": "77\n" });
    }, []);
    expect(r.code).toBe(1);
    expect(r.out).toContain("Shard(s) 1 2 of 3 did not finish");
    expect(r.calls).toBe("");
  });
});
