/**
 * Acceptance (issue 13): `gym eval run --benchmark gsm8k --model-type scripted_model` with a replay file of
 * known-correct and known-wrong answers gives reward 1.0 and 0.0 for exactly those rows (math_with_judge,
 * judge off as shipped). The rows come from the local source server (three gsm8k rows).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { startSourceServer, type SourceServer } from "../fixtures/benchmarks/server.ts";

let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

test("gsm8k on math_with_judge: replayed right answers score 1.0, wrong ones 0.0", async () => {
  await using dir = await tempDir();
  const env = { XDG_CACHE_HOME: join(dir.path, "cache") };
  const base = ["eval", "run", "--benchmark", "gsm8k", "--model-type", "scripted_model", "+head_server.port=0", `+benchmark_mirror_url=${srv.url}`];
  const first = await runGym([...base, "-o", join(dir.path, "first", "rollouts.jsonl")], { cwd: dir.path, env });
  expect(first.code).toBe(0);
  const rows = readJsonl(join(dir.path, "first", "rollouts.jsonl")).sort((a, b) => a._ng_task_index - b._ng_task_index);
  expect(rows.length).toBe(3);
  // Task 1 gets a wrong answer; the others the expected one, written the way a model writes it.
  const wrong = new Set([1]);
  const answer = (r: Record<string, any>) => (wrong.has(r._ng_task_index) ? "So the answer is \\boxed{42}." : `Therefore the answer is \\boxed{${String(r.expected_answer)}}.`);
  const replay = join(dir.path, "replay.jsonl");
  writeFileSync(replay, rows.map((r) => JSON.stringify({
    responses_create_params: r.responses_create_params,
    response: { ...r.response, output: [{ id: `m${r._ng_task_index}`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: answer(r), annotations: [] }] }] },
  })).join("\n") + "\n");
  const second = await runGym([...base, `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${replay}`, "-o", join(dir.path, "second", "rollouts.jsonl")], { cwd: dir.path, env });
  expect(second.code).toBe(0);
  const scored = readJsonl(join(dir.path, "second", "rollouts.jsonl")).sort((a, b) => a._ng_task_index - b._ng_task_index);
  expect(scored.map((r) => [r._ng_task_index, r.reward, r.library_reward])).toEqual([[0, 1, 1], [1, 0, 0], [2, 1, 1]]);
}, 180_000);
