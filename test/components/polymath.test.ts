/**
 * polymath: upstream's tests (resources_servers/polymath/tests/test_app.py) as data — weighted and
 * per-language metrics, weight/language echoed by /verify — and reverify of its recorded rollouts.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { mathKeyMetrics } from "../../src/components/resources/math-with-judge/index.ts";
import { polymathComputeMetrics } from "../../src/components/resources/polymath/index.ts";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { postJson, startStack } from "../servers/_stack.ts";

const r = (reward: number, ans: string, weight?: number, language?: string) => ({ reward, library_reward: reward, extracted_answer: ans, ...(weight !== undefined ? { weight } : {}), ...(language ? { language } : {}) });
const rep = <T>(x: T, n: number): T[] => Array.from({ length: n }, () => x);

// [name, tasks, metric, expected percentage]
const METRICS: [string, Record<string, unknown>[][], string, number][] = [
  ["weighted pass@1 (Skills formula)", [rep(r(1, "1", 1, "en"), 4), rep(r(0, "2", 8, "en"), 4)], "pass@1/symbolic_accuracy_weighted", 100 / 9],
  ["weighted pass@4", [rep(r(1, "1", 1, "en"), 4), rep(r(0, "2", 8, "en"), 4)], "pass@4/symbolic_accuracy_weighted", 100 / 9],
  ["weighted pass@1[avg-of-4]", [[r(1, "1", 2, "en"), r(0, "2", 2, "en"), r(1, "1", 2, "en"), r(0, "2", 2, "en")], rep(r(1, "3", 4, "en"), 4)], "pass@1[avg-of-4]/symbolic_accuracy_weighted", (100 * 5) / 6],
  ["per-language en", [rep(r(1, "1", 1, "en"), 2), rep(r(0, "2", 1, "zh"), 2)], "en/pass@1/symbolic_accuracy", 100],
  ["per-language zh", [rep(r(1, "1", 1, "en"), 2), rep(r(0, "2", 1, "zh"), 2)], "zh/pass@1/symbolic_accuracy", 0],
  ["weights default to one", [rep(r(1, "1"), 2), rep(r(0, "2"), 2)], "pass@1/symbolic_accuracy_weighted", 50],
  ["weighted majority@4", [[r(1, "1", 4, "en"), r(1, "1", 4, "en"), r(1, "1", 4, "en"), r(0, "2", 4, "en")]], "majority@4/symbolic_accuracy_weighted", 100],
  ["unweighted keys still present", [rep(r(1, "1", 1, "en"), 2), rep(r(0, "2", 1, "en"), 2)], "pass@1[avg-of-2]/symbolic_accuracy", 50],
];

describe("polymath metrics (upstream TestComputeMetrics)", () => {
  test.each(METRICS)("%s", (_n, tasks, name, want) => {
    expect(polymathComputeMetrics(tasks)[name] as number).toBeCloseTo(want, 3);
  });
  test("empty tasks give no metrics; key metrics keep weighted variants and drop no_answer", () => {
    expect(polymathComputeMetrics([])).toEqual({});
    const key = mathKeyMetrics({
      "mean/input_tokens": 100, "pass@1[avg-of-4]/symbolic_accuracy": 50, "pass@1[avg-of-4]/symbolic_accuracy_weighted": 45, "pass@1[avg-of-4]/no_answer": 5,
      "pass@4/symbolic_accuracy": 70, "pass@4/symbolic_accuracy_weighted": 65, "pass@4/no_answer": 5, "majority@4/symbolic_accuracy": 60, "majority@4/symbolic_accuracy_weighted": 58, "majority@4/no_answer": 5,
    });
    for (const k of ["pass@1[avg-of-4]/symbolic_accuracy", "pass@1[avg-of-4]/symbolic_accuracy_weighted", "pass@4/symbolic_accuracy", "pass@4/symbolic_accuracy_weighted", "majority@4/symbolic_accuracy", "majority@4/symbolic_accuracy_weighted"]) expect(key).toHaveProperty([k]);
    expect(key).not.toHaveProperty(["pass@4/no_answer"]);
  });
});

describe("polymath server", () => {
  const row = (extra: Record<string, unknown>) => ({
    responses_create_params: { input: [{ role: "user", content: "What is 2 + 2?" }] },
    response: { id: "r", created_at: 0, model: "m", object: "response", output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "so \\boxed{4}", annotations: [] }] }], parallel_tool_calls: false, tool_choice: "none", tools: [] },
    question: "What is 2 + 2?",
    expected_answer: "4",
    ...extra,
  });
  test("weight and language pass through; missing ones are null", async () => {
    await using s = await startStack([{ name: "pm", serverType: "resources_servers", impl: "polymath", leaf: { should_use_judge: false, judge_model_server: { type: "responses_api_models", name: "policy_model" }, judge_responses_create_params: { input: [] } } }]);
    const a = await postJson(`${s.url.pm}/verify`, row({ weight: 4.0, language: "en" }));
    expect([a.json.reward, a.json.extracted_answer, a.json.weight, a.json.language]).toEqual([1, "4", 4, "en"]);
    const b = await postJson(`${s.url.pm}/verify`, row({}));
    expect([b.json.reward, b.json.weight, b.json.language]).toEqual([1, null, null]);
  });

  test("reverify of upstream's recorded rollouts reproduces every reward and extracted answer", async () => {
    await using dir = await tempDir();
    const data = join(import.meta.dir, "..", "..", "assets", "resources_servers", "polymath", "data");
    const out = join(dir.path, "out.jsonl");
    // The recorded rows carry no agent_ref or indexes (their materialized inputs do, in the same order).
    const rollouts = join(dir.path, "rollouts.jsonl");
    writeFileSync(rollouts, readJsonl(join(data, "example_rollouts.jsonl")).map((x, i) => JSON.stringify({ agent_ref: { name: "polymath_simple_agent" }, _ng_task_index: i, _ng_rollout_index: 0, ...x })).join("\n") + "\n");
    const res = await runGym([
      "eval", "reverify", "--force", "--resources-server", "polymath", "--model-type", "scripted_model", "+head_server.port=0",
      "--rollouts", rollouts, "--inputs", join(data, "example_rollouts_materialized_inputs.jsonl"), "-o", out,
    ], { cwd: dir.path });
    expect(res.stderr).toContain("0 failed");
    const recorded = readJsonl(join(data, "example_rollouts.jsonl"));
    const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
    for (const [i, rec] of recorded.entries()) {
      const got = now.get(i)!;
      expect([got.reward, got.extracted_answer, got.weight, got.language]).toEqual([rec.reward, rec.extracted_answer, rec.weight, rec.language]);
    }
  }, 120_000);
});
