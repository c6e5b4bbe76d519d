import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const EXAMPLE = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call");

const lines = readJsonl;

describe("after a run: gym eval reverify / profile / aggregate", () => {
  test("reverify re-scores stored rollouts; profile and aggregate read them back", async () => {
    await using dir = await tempDir();
    copyFileSync(join(EXAMPLE, "data", "example.jsonl"), join(dir.path, "val.jsonl"));
    const datasets = `example_single_tool_call_simple_agent.responses_api_agents.simple_agent.datasets=[{name: v, type: validation, license: MIT, jsonl_fpath: ${join(dir.path, "val.jsonl")}}]`;
    const base = ["--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "+head_server.port=0", datasets];
    const run = await runGym(["eval", "run", ...base, "--split", "validation", "-o", "out/r.jsonl", "--num-repeats", "2", "--concurrency", "4"], { cwd: dir.path });
    expect(run.code).toBe(0);
    const original = lines(join(dir.path, "out", "r.jsonl"));

    // Tamper with the stored rewards: reverify must restore them from /verify.
    writeFileSync(join(dir.path, "out", "tampered.jsonl"), original.map((r) => JSON.stringify({ ...r, reward: -1 })).join("\n") + "\n");
    const rv = await runGym(["eval", "reverify", ...base, "--rollouts", "out/tampered.jsonl", "--inputs", "out/r_materialized_inputs.jsonl", "-o", "out/rv.jsonl", "--concurrency", "4"], { cwd: dir.path });
    expect(rv.stderr).toContain("10 re-verified (10 with a different reward)");
    expect(rv.code).toBe(0);
    const re = lines(join(dir.path, "out", "rv.jsonl"));
    const byKey = new Map(original.map((r) => [`${r._ng_task_index}:${r._ng_rollout_index}`, r.reward]));
    expect(re.length).toBe(10);
    for (const r of re) expect(r.reward).toBe(byKey.get(`${r._ng_task_index}:${r._ng_rollout_index}`)!);
    expect(existsSync(join(dir.path, "out", "rv_aggregate_metrics.json"))).toBe(true);
    // Existing output without --overwrite/--append/--resume is refused.
    const again = await runGym(["eval", "reverify", ...base, "--rollouts", "out/tampered.jsonl", "-o", "out/rv.jsonl"], { cwd: dir.path });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("--overwrite");

    const prof = await runGym(["eval", "profile", "--inputs", "out/r_materialized_inputs.jsonl", "--rollouts", "out/r.jsonl"], { cwd: dir.path });
    expect(prof.code).toBe(0);
    const groups = lines(join(dir.path, "out", "r_reward_profiling.jsonl"));
    expect(groups.length).toBe(5);
    expect(groups[0]!.sample).toMatchObject({ agent_ref: { name: "example_single_tool_call_simple_agent" } });
    expect(groups[0]!["mean/reward"]).toBeDefined();
    const agents = JSON.parse(readFileSync(join(dir.path, "out", "r_agent_metrics.json"), "utf8"));
    expect(agents[0].agent_ref).toEqual({ name: "example_single_tool_call_simple_agent" });
    const missing = await runGym(["eval", "profile", "--inputs", "nope.jsonl", "--rollouts", "out/r.jsonl"], { cwd: dir.path });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("Input file not found: 'nope.jsonl' (--inputs). Check the path is spelled correctly.");

    // Two shards aggregated together (no servers running: local default metrics).
    writeFileSync(join(dir.path, "out", "shard_0.jsonl"), original.slice(0, 5).map((r) => JSON.stringify(r)).join("\n") + "\n");
    writeFileSync(join(dir.path, "out", "shard_1.jsonl"), original.slice(5).map((r) => JSON.stringify(r)).join("\n") + "\n");
    const agg = await runGym(["eval", "aggregate", "-i", "out/shard_*.jsonl", "-o", "out/all.jsonl", "+merge_shards=true", "+head_server.port=1"], { cwd: dir.path });
    expect(agg.code).toBe(0);
    const merged = lines(join(dir.path, "out", "all.jsonl"));
    expect(merged.map((r) => `${r._ng_task_index}:${r._ng_rollout_index}`)).toEqual([...byKey.keys()].sort((a, b) => { const [at, ar] = a.split(":").map(Number); const [bt, br] = b.split(":").map(Number); return at! - bt! || ar! - br!; }));
    const m = JSON.parse(readFileSync(join(dir.path, "out", "all_aggregate_metrics.json"), "utf8"));
    expect(m[0].group_level_metrics.length).toBe(5);
    expect(m[0].agent_metrics["mean/reward"]).toBeCloseTo(original.reduce((a, r) => a + Number(r.reward), 0) / 10, 10);
    // Six gym commands (two start a whole stack): ~2 s on an idle machine, 10-12 s on a loaded one.
  }, 120_000);
});
