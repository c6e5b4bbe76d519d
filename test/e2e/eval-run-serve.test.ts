import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const EXAMPLE = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call");

const lines = readJsonl;

describe("gym eval run (serve mode, built-ins)", () => {
  test("legacy_agent path: collate the split, start servers, collect, aggregate, shut down", async () => {
    await using dir = await tempDir();
    copyFileSync(join(EXAMPLE, "data", "example.jsonl"), join(dir.path, "val.jsonl"));
    const r = await runGym(
      [
        "eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "--split", "validation",
        "-o", "out/rollouts.jsonl", "--num-repeats", "2", "--concurrency", "4", "+head_server.port=0",
        `example_single_tool_call_simple_agent.responses_api_agents.simple_agent.datasets=[{name: v, type: validation, license: MIT, jsonl_fpath: ${join(dir.path, "val.jsonl")}}]`,
      ],
      { cwd: dir.path },
    );
    expect(r.stderr).toContain("NeMo Gym finished!");
    expect(r.code).toBe(0);
    expect(existsSync(join(dir.path, "out", "rollouts", "preprocessed_datasets", "validation.jsonl"))).toBe(true);
    const rows = lines(join(dir.path, "out", "rollouts.jsonl"));
    expect(rows.length).toBe(10);
    expect(new Set(rows.map((x) => `${x._ng_task_index}:${x._ng_rollout_index}`)).size).toBe(10);
    for (const row of rows) {
      expect(typeof row.reward).toBe("number");
      expect(row.agent_ref).toEqual({ type: "responses_api_agents", name: "example_single_tool_call_simple_agent" });
      expect(row._ng_result_type).toBe("legacy_agent");
    }
    const agg = JSON.parse(readFileSync(join(dir.path, "out", "rollouts_aggregate_metrics.json"), "utf8"));
    expect(agg[0].agent_metrics["mean/reward"]).toBeCloseTo(rows.reduce((a, x) => a + Number(x.reward), 0) / rows.length, 10);
  });

  test("native single_agent_turn path: episode envelope, flat result stored", async () => {
    await using dir = await tempDir();
    copyFileSync(join(EXAMPLE, "data", "example.jsonl"), join(dir.path, "val.jsonl"));
    const r = await runGym(
      [
        "eval", "run", "--config", join(EXAMPLE, "configs", "example_single_tool_call_single_agent_turn.yaml"), "--model-type", "scripted_model",
        "--split", "validation", "-o", "out/r.jsonl", "--concurrency", "4", "+head_server.port=0",
        `example_single_tool_call_session_agent.responses_api_agents.simple_agent.datasets=[{name: v, type: validation, license: MIT, jsonl_fpath: ${join(dir.path, "val.jsonl")}}]`,
      ],
      { cwd: dir.path },
    );
    expect(r.code).toBe(0);
    const rows = lines(join(dir.path, "out", "r.jsonl"));
    expect(rows.length).toBe(5);
    for (const row of rows) {
      expect(row._ng_result_type).toBe("single_agent_turn");
      expect(row._ng_task_id).toEqual({ taskset: "example_single_tool_call_session_agent", task_id: String(row._ng_task_index) });
      expect(typeof row.reward).toBe("number");
    }
  });

  test("serve mode needs a known split", async () => {
    await using dir = await tempDir();
    const r = await runGym(["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "-o", "o.jsonl"], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("split must be one of train, validation, benchmark");
  });
});
