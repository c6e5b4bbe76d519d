import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkRunConfigs } from "../../src/submit/run-config.ts";
import { runGym, tempDir } from "../helpers/tmp.ts";
import { baseConfig, check } from "./_helpers.ts";

const GOOD = "resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml";

function withRun(run: Record<string, unknown>, edit: (c: Record<string, any>) => void = () => {}) {
  const c = baseConfig();
  c.driver.benchmarks.b1 = { run };
  edit(c);
  return check(c).config;
}

const messageOf = async (p: Promise<unknown>) => ((await p.then(() => undefined, (e) => e)) as Error | undefined)?.message ?? "";

describe("submit-time check of each benchmark's run config", () => {
  test("a run config the job could resolve passes", async () => {
    expect(await checkRunConfigs(withRun({ config_paths: [GOOD], split: "example" }), { remote: false })).toEqual([]);
  });

  test("a config_paths entry that does not exist fails, naming the benchmark and the path", async () => {
    const msg = await messageOf(checkRunConfigs(withRun({ config_paths: ["resources_servers/no_such/configs/no_such.yaml"], split: "example" }), { remote: false }));
    expect(msg).toContain("benchmark 'b1'");
    expect(msg).toContain("no_such.yaml");
  });

  test("a run without a split the driver accepts fails", async () => {
    expect(await messageOf(checkRunConfigs(withRun({ config_paths: [GOOD] }), { remote: false }))).toContain("split must be one of");
  });

  test("over SSH, cluster paths cannot be checked here: a note, no error; command benchmarks are skipped", async () => {
    const notes = await checkRunConfigs(withRun({ config_paths: ["/lustre/me/cfg.yaml"], split: "benchmark" }), { remote: true });
    expect(notes).toEqual([expect.stringContaining("benchmark 'b1': run config not checked")]);
    const cmd = baseConfig();
    cmd.driver.benchmarks.b1 = { command: "echo hi" };
    expect(await checkRunConfigs(check(cmd).config, { remote: false })).toEqual([]);
  });

  test("gym eval submit --dry-run: a bad path is an error (exit 2) before any script is printed", async () => {
    await using dir = await tempDir();
    writeFileSync(
      join(dir.path, "submit.yaml"),
      `services: {policy: {type: vllm, container: c, model: m}}
compute: {cluster: {type: slurm, account: a, node_pools: {gpu: {partition: p, gpus_per_node: 1}}}}
driver: {policy_model: policy, benchmarks: {b1: {run: {config_paths: [resources_servers/typo/configs/typo.yaml], split: benchmark}}}}
job: {output_path: ${dir.path}/runs}
otel: {enabled: false}
`,
    );
    const r = await runGym(["eval", "submit", "-c", "submit.yaml", "--dry-run"], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("benchmark 'b1'");
    expect(r.stdout).not.toContain("sbatch script");
  });
});
