/**
 * `gym eval reverify` of upstream's recorded math_with_judge example rollouts with the shipped YAML
 * (should_use_judge: false) reproduces every judge-independent reward: the recorded `library_reward`.
 * The rollout file carries no task index, so each rollout is paired with its example row by prompt.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const DATA = join(import.meta.dir, "..", "..", "assets", "resources_servers", "math_with_judge", "data");

test("reverify math_with_judge example_rollouts.jsonl: library rewards as recorded", async () => {
  await using dir = await tempDir();
  const lines = (f: string) => readFileSync(join(DATA, f), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  const recs = lines("example_rollouts.jsonl");
  const byPrompt = new Map(lines("example.jsonl").map((r) => [r.responses_create_params.input[0].content, r]));
  const stamp = (i: number) => ({ _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: "math_with_judge_simple_agent" } });
  const rollouts = join(dir.path, "rollouts.jsonl");
  const inputs = join(dir.path, "inputs.jsonl");
  writeFileSync(rollouts, recs.map((r, i) => JSON.stringify({ ...r, ...stamp(i) })).join("\n") + "\n");
  writeFileSync(inputs, recs.map((r, i) => JSON.stringify({ ...byPrompt.get(r.responses_create_params.input[0].content), ...stamp(i) })).join("\n") + "\n");
  const out = join(dir.path, "out.jsonl");
  const r = await runGym([
    "eval", "reverify", "--force", "--resources-server", "math_with_judge", "--model-type", "scripted_model", "+head_server.port=0",
    `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${rollouts}`, "--rollouts", rollouts, "--inputs", inputs, "-o", out,
  ], { cwd: dir.path });
  expect(r.stderr).toContain("0 failed");
  expect(r.code).toBe(0);
  const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
  let agree = 0;
  recs.forEach((rec, i) => {
    const got = now.get(i)!;
    expect([i, got.reward, got.library_reward, got.judge_evaluations]).toEqual([i, rec.library_reward, rec.library_reward, null]);
    if (got.reward === rec.library_reward) agree++;
    // SymPy's term order is not ours for long sums; short answers print as upstream records them.
    if (rec.extracted_answer.length < 20) expect(got.extracted_answer).toBe(rec.extracted_answer);
  });
  process.stderr.write(`reverify math_with_judge: ${agree}/${recs.length} judge-independent rewards as recorded\n`);
}, 120_000);

// Recorded under another agent name (imo_answerbench_…) and with the judge on: the rows are re-stamped
// with the shipped agent, and scripted_model (as the judge server) replays the recorded judge answers.
test("reverify math_with_autograder example_rollouts.jsonl: rewards and judge calls as recorded", async () => {
  await using dir = await tempDir();
  const DATA2 = join(import.meta.dir, "..", "..", "assets", "resources_servers", "math_with_autograder", "data");
  const recs = readFileSync(join(DATA2, "example_rollouts.jsonl"), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  const rollouts = join(dir.path, "rollouts.jsonl");
  writeFileSync(rollouts, recs.map((r) => JSON.stringify({ ...r, agent_ref: { type: "responses_api_agents", name: "math_with_autograder_simple_agent" } })).join("\n") + "\n");
  const out = join(dir.path, "out.jsonl");
  const r = await runGym([
    "eval", "reverify", "--force", "--resources-server", "math_with_autograder", "--model-type", "scripted_model", "+head_server.port=0",
    `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${rollouts}`,
    "++math_with_autograder.resources_servers.math_with_autograder.judge_model_server.name=policy_model",
    "--rollouts", rollouts, "-o", out,
  ], { cwd: dir.path });
  expect(r.stderr).toContain("0 failed");
  expect(r.code).toBe(0);
  const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
  for (const rec of recs) {
    const got = now.get(rec._ng_task_index)!;
    expect([got.reward, got.library_reward, got.extracted_answer]).toEqual([rec.reward, rec.library_reward, rec.extracted_answer]);
    expect(got.judge_evaluations.map((e: any) => e.responses_create_params.input.map((m: any) => m.content))).toEqual(rec.judge_evaluations.map((e: any) => e.responses_create_params.input.map((m: any) => m.content)));
  }
  process.stderr.write(`reverify math_with_autograder: ${recs.length}/${recs.length} rewards as recorded\n`);
}, 120_000);
