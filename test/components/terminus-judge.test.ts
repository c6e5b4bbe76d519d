/**
 * terminus_judge: upstream's tests/test_app.py as data (keystroke similarity, task-complete rule,
 * verdict parsing, the verify pipeline in its three modes and each failure code), over real sockets
 * with a local judge, plus `gym eval reverify` of upstream's recorded rollouts (judge calls replayed).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { commandSimilarity, taskCompleteOk, terminusVerdict } from "../../src/verify/rules/terminus.ts";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { postJson, startStack } from "../servers/_stack.ts";

const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers", "terminus_judge");
const k = (...ks: string[]) => ({ commands: ks.map((keystrokes) => ({ keystrokes })) });

test.each([
  [k("ls -la"), k("ls -la"), (v: number) => v === 1],
  [k("ls"), k("pwd"), (v: number) => v < 0.5],
  [k(), k(), (v: number) => v === 1],
  [k("ls"), k(), (v: number) => v === 0],
  [k("cd /home", "ls"), k("cd /home", "ls"), (v: number) => v === 1],
  [k("ls", "pwd"), k("pwd", "ls"), (v: number) => v < 1],
  [{ commands: [{ keystrokes: "a" }, { other: 1 }] }, k("a"), (v: number) => v === 1],
] as [Record<string, unknown>, Record<string, unknown>, (v: number) => boolean][])("commandSimilarity %#", (gt, pred, ok) => expect(ok(commandSimilarity(gt, pred))).toBe(true));

test.each([
  [{ task_complete: true }, { task_complete: true }, true], [{}, { task_complete: true }, false], [{ task_complete: false }, { task_complete: true }, false],
  [{ is_task_complete: true }, { is_task_complete: true }, true], [{}, { is_task_complete: true }, false],
  [{}, { task_complete: false }, true], [{}, {}, true], [{ is_task_complete: true }, { task_complete: false, is_task_complete: true }, true],
] as [Record<string, unknown>, Record<string, unknown>, boolean][])("taskCompleteOk(%p, %p) = %p", (pred, gold, want) => expect(taskCompleteOk(pred, gold)).toBe(want));

test.each([
  ["The commands are equivalent. [[A=B]]", [true, "[[A=B]]"]],
  ["The commands are not equivalent. [[A!=B]]", [false, "[[A!=B]]"]],
  ["A".repeat(500) + "\n\nFinal verdict: [[A=B]]", [true, "[[A=B]]"]],
  ["The judge failed to provide a clear verdict.", [false, null]],
  ["In some cases [[A!=B]] but in this case [[A=B]]", [true, "[[A=B]]"]],
  ["The verdict is [[A=B]] because the commands match. Additional notes follow.", [true, "[[A=B]]"]],
  ["", [false, null]],
  // Outside the last 200 characters the first label wins.
  ["[[A!=B]] early, then [[A=B]] " + "x".repeat(300), [false, "[[A!=B]]"]],
] as [string, [boolean, string | null]][])("terminusVerdict %#", (text, want) => expect(terminusVerdict(text, "[[A=B]]", "[[A!=B]]")).toEqual(want));

// A local judge answering the queued texts.
const answers: string[] = [];
const seen: any[] = [];
const judge = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    seen.push(await req.json());
    const text = answers.shift() ?? "no verdict";
    return Response.json({ id: "r", created_at: 1, model: "j", object: "response", parallel_tool_calls: false, tool_choice: "none", tools: [], output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }] });
  },
});
afterAll(() => judge.stop(true));
const stackExtra = { request_timeout_seconds: 5, judge_model: { responses_api_models: { openai_model: { host: "127.0.0.1", port: judge.port } } } };
const judged = (extra: Record<string, unknown> = {}) => ({ judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_responses_create_params: { input: [] }, enable_string_similarity: true, string_similarity_threshold: 0.95, enable_llm_judge: true, ...extra });

const t1 = (keys: string, done = false) => JSON.stringify({ state_analysis: "s", explanation: "e", commands: [{ keystrokes: keys, is_blocking: true, timeout_sec: 3 }], is_task_complete: done });
const t2 = (keys: string, extra: Record<string, unknown> = {}) => JSON.stringify({ analysis: "a", plan: "p", commands: [{ keystrokes: keys }], ...extra });
const row = (answer: string, expected: string | null, harness: string | null = "terminus_1", extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: "q" }] },
  response: { id: "r", created_at: 0, model: "m", object: "response", output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: answer, annotations: [] }] }], parallel_tool_calls: false, tool_choice: "none", tools: [] },
  expected_answer: expected,
  metadata: harness ? { harness } : {},
  uuid: "u1",
  ...extra,
});

describe("terminus_judge server", () => {
  test("each failure code and the similarity fast path (judged config)", async () => {
    await using s = await startStack([{ name: "tj", serverType: "resources_servers", impl: "terminus_judge", leaf: judged() }], stackExtra);
    const v = async (r: unknown) => (await postJson(`${s.url.tj}/verify`, r)).json;
    seen.length = 0;
    const cases: [unknown, number, string, Record<string, unknown>?][] = [
      [row(t1("ls -la\n"), t1("ls -la\n")), 1, "none", { similarity_score: 1, string_similarity_passed: true, judge_passed: null, schema_check_passed: true }],
      [row(`<think>hm</think> ${t2("cd /x\n")}`, t2("cd /x\n"), "terminus_2"), 1, "none"],
      [row("not json", t1("ls")), 0, "model_output_invalid", { model_output: "not json" }],
      [row("true", t1("ls")), 0, "model_output_invalid"],
      [row(t1("ls"), t1("ls"), "terminus_9"), 0, "unknown_harness"],
      [row(JSON.stringify({ commands: [] }), t1("ls")), 0, "schema_check_failed", { schema_check_passed: false }],
      [row(t1("ls"), t1("ls", true)), 0, "task_complete_check_failed", { task_complete_check_passed: false }],
      [row(t1("ls"), null), 0, "expected_answer_invalid", { expected_answer: "", model_output: "" }],
      [row(t1("ls"), "[1, 2]"), 0, "expected_answer_invalid"],
      [row(t1("ls"), JSON.stringify({ commands: [] })), 0, "expected_answer_invalid"],
      [row("", t1("ls")), 0, "model_output_invalid"],
      [row(t2("ls\n", { task_complete: true }), t2("ls\n"), "terminus_2"), 1, "none"], // task_complete is optional for terminus_2
    ];
    for (const [r, reward, reason, more] of cases) {
      const got = await v(r);
      expect([got.reward, got.failure_reason]).toEqual([reward, reason]);
      if (more) expect(got).toMatchObject(more);
    }
    expect(seen).toHaveLength(0); // none of these needed the judge
  });

  test("below the threshold the judge decides; no verdict is judge_parsing_failed; a per-row threshold wins", async () => {
    await using s = await startStack([{ name: "tj", serverType: "resources_servers", impl: "terminus_judge", leaf: judged() }], stackExtra);
    const v = async (r: unknown) => (await postJson(`${s.url.tj}/verify`, r)).json;
    answers.push("They match. [[A=B]]", "No. [[A!=B]]", "unclear");
    seen.length = 0;
    expect(await v(row(t1("ls -l\n"), t1("ls -la\n")))).toMatchObject({ reward: 1, failure_reason: "none", judge_passed: true, string_similarity_passed: false });
    expect(seen[0].input.at(-1).content).toContain(t1("ls -la\n"));
    expect(await v(row(t1("pwd\n"), t1("ls -la\n")))).toMatchObject({ reward: 0, failure_reason: "judge_not_equivalent", judge_passed: false });
    const none = await v(row(t1("pwd\n"), t1("ls -la\n")));
    expect(none).toMatchObject({ reward: 0, failure_reason: "judge_parsing_failed", judge_passed: null });
    expect(none.judge_evaluations[0].verdict_label).toBeNull();
    expect(await v(row(t1("ls -l\n"), t1("ls -la\n"), "terminus_1", { threshold: 0.5 }))).toMatchObject({ reward: 1, threshold: 0.5 });
  });

  test("swap check: the second, swapped call must agree; reward_if_swap_fails otherwise", async () => {
    await using s = await startStack([{ name: "tj", serverType: "resources_servers", impl: "terminus_judge", leaf: judged({ check_twice_swap: true, reward_if_swap_fails: 0.25, enable_string_similarity: false }) }], stackExtra);
    const v = async (r: unknown) => (await postJson(`${s.url.tj}/verify`, r)).json;
    answers.push("[[A=B]]", "[[A=B]]", "[[A=B]]", "[[A!=B]]", "[[A=B]]", "??");
    expect(await v(row(t1("a"), t1("b")))).toMatchObject({ reward: 1, judge_passed: true });
    const failed = await v(row(t1("a"), t1("b")));
    expect(failed).toMatchObject({ reward: 0.25, failure_reason: "judge_not_equivalent", judge_passed: false, similarity_score: null });
    expect(failed.judge_evaluations.map((e: any) => e.verdict_label)).toEqual(["[[A=B]]", "[[A!=B]]"]);
    expect(await v(row(t1("a"), t1("b")))).toMatchObject({ reward: 0, failure_reason: "judge_swap_parsing_failed" });
  });

  test("string-only and neither mode; lone surrogates are scrubbed from what is echoed", async () => {
    await using s = await startStack([
      { name: "so", serverType: "resources_servers", impl: "terminus_judge", leaf: { enable_string_similarity: true, string_similarity_threshold: 0.9, enable_llm_judge: false } },
      { name: "no", serverType: "resources_servers", impl: "terminus_judge", leaf: { enable_string_similarity: false, enable_llm_judge: false } },
    ], stackExtra);
    expect((await postJson(`${s.url.so}/verify`, row(t1("pwd"), t1("ls -la")))).json).toMatchObject({ reward: 0, failure_reason: "string_similarity_below_threshold" });
    expect((await postJson(`${s.url.no}/verify`, row(t1("pwd"), t1("ls -la")))).json).toMatchObject({ reward: 1, failure_reason: "none", similarity_score: null });
    const lone = (await postJson(`${s.url.so}/verify`, row(t1("ls \ud83d"), t1("ls \ud83d")))).json;
    expect(lone.parsed_output.commands[0].keystrokes).toBe("ls \ufffd\ufffd\ufffd");
    expect(lone.reward).toBe(1);
  });

  test("a judged config without judge settings fails at start", async () => {
    await expect(startStack([{ name: "tj", serverType: "resources_servers", impl: "terminus_judge", leaf: { enable_llm_judge: true } }], stackExtra)).rejects.toThrow("judge_model_server is required when enable_llm_judge is True");
  });
});

test("gym eval reverify of upstream's recordings (terminus_judge_simple.yaml, judge replayed): rewards, similarity, every judge verdict", async () => {
  await using dir = await tempDir();
  // The recordings carry no task indices; they were made with the simple config's prompt and swap check.
  const recs: Record<string, any>[] = readJsonl(join(ASSETS, "data", "example_rollouts.jsonl")).map((r, i) => ({ ...r, agent_ref: { type: "responses_api_agents", name: "terminus_judge_simple_agent" }, _ng_task_index: i, _ng_rollout_index: 0 }));
  const rollouts = join(dir.path, "rollouts.jsonl");
  writeFileSync(rollouts, recs.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const out = join(dir.path, "out.jsonl");
  const r = await runGym([
    "eval", "reverify", "--resources-server", "terminus_judge/terminus_judge_simple", "--model-type", "scripted_model", "+head_server.port=0",
    `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${rollouts}`, "--rollouts", rollouts, "-o", out,
  ], { cwd: dir.path });
  expect(r.code).toBe(0);
  const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
  let agree = 0;
  for (const rec of recs) {
    const got = now.get(rec._ng_task_index)!;
    expect(got._ng_failure_class).toBeUndefined();
    for (const key of ["reward", "similarity_score", "string_similarity_passed", "schema_check_passed", "task_complete_check_passed", "judge_passed", "model_output", "expected_answer"]) expect([key, got[key]]).toEqual([key, rec[key]]);
    expect(got.judge_evaluations.map((e: any) => e.verdict_label)).toEqual(rec.judge_evaluations.map((e: any) => e.verdict_label));
    // Upstream renamed this failure code after recording ("judge_evaluation_failed" → "judge_not_equivalent").
    expect([rec.failure_reason, got.failure_reason]).toEqual(["judge_evaluation_failed", "judge_not_equivalent"]);
    agree++;
  }
  console.log(`terminus_judge: ${agree}/${recs.length} recorded rewards reproduced`);
  expect(agree).toBe(5);
}, 120_000);
