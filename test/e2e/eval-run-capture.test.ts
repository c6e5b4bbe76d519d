/** `gym eval run` with observability on: the real model server writes the capture, the driver folds it (runtime §14). */
import { describe, expect, test } from "bun:test";
import { copyFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const EXAMPLE = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call");

const lines = readJsonl;

describe("gym eval run: model-call capture", () => {
  test("single_agent_turn + scripted_model: one capture file per rollout, folded into ng_model_call_capture / ng_trajectory", async () => {
    await using dir = await tempDir();
    copyFileSync(join(EXAMPLE, "data", "example.jsonl"), join(dir.path, "val.jsonl"));
    const cap = join(dir.path, "calls");
    const r = await runGym(
      [
        "eval", "run", "--config", join(EXAMPLE, "configs", "example_single_tool_call_single_agent_turn.yaml"), "--model-type", "scripted_model",
        "--split", "validation", "-o", "out/r.jsonl", "--num-repeats", "2", "--concurrency", "4", "+head_server.port=0",
        "+observability_enabled=true", `+model_call_capture_dir=${cap}`,
        `example_single_tool_call_session_agent.responses_api_agents.simple_agent.datasets=[{name: v, type: validation, license: MIT, jsonl_fpath: ${join(dir.path, "val.jsonl")}}]`,
      ],
      { cwd: dir.path },
    );
    expect(r.code).toBe(0);
    const rows = lines(join(dir.path, "out", "r.jsonl"));
    expect(rows.length).toBe(10);
    expect(readdirSync(cap).sort()).toEqual(rows.map((x) => `${x._ng_task_index}-${x._ng_rollout_index}.capture.jsonl`).sort());
    for (const row of rows) {
      const id = `${row._ng_task_index}-${row._ng_rollout_index}`;
      const raw = lines(join(cap, `${id}.capture.jsonl`));
      // scripted_model: the tool call, then the answer after the tool output.
      expect(raw.map((c) => c.dialect)).toEqual(["responses", "responses"]);
      expect(raw.every((c) => c.rollout_id === id && c.status_code === 200 && c.model_ref.type === "responses_api_models")).toBe(true);
      const capture = row.ng_model_call_capture;
      expect(capture.rollout_id).toBe(id);
      expect(capture.calls.map((c: Record<string, unknown>) => c.model_call_id)).toEqual(raw.map((c) => c.model_call_id));
      // Raw payloads stay in the capture files, not in the output row.
      expect(capture.calls[0].request).toBeUndefined();
      const usage = raw.reduce((a, c) => a + c.response.usage.input_tokens, 0);
      expect(capture.metrics.tokens_in).toBe(usage);
      expect(row.ng_trajectory).toMatchObject({ model_calls: 2, tool_calls: 1 });
    }
  }, 60_000);

  test("flat rows through the generated legacy_agent: the rollout id travels as a header, every rollout is captured", async () => {
    await using dir = await tempDir();
    const cap = join(dir.path, "calls");
    const r = await runGym(
      [
        "eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model",
        "--split", "example", "-o", "out/r.jsonl", "+head_server.port=0",
        "+observability_enabled=true", `+model_call_capture_dir=${cap}`,
      ],
      { cwd: dir.path },
    );
    expect(r.code).toBe(0);
    const rows = lines(join(dir.path, "out", "r.jsonl"));
    expect(rows.length).toBe(5);
    expect(readdirSync(cap).sort()).toEqual(rows.map((x) => `${x._ng_task_index}-${x._ng_rollout_index}.capture.jsonl`).sort());
    for (const row of rows) {
      expect(row.ng_model_call_capture.rollout_id).toBe(`${row._ng_task_index}-${row._ng_rollout_index}`);
      expect(row.ng_trajectory).toMatchObject({ model_calls: 2, tool_calls: 1 });
    }
  }, 60_000);
});
