/**
 * LiveCodeBench benchmarks over a local Hub: v5/v6 date windows over the release files at
 * refs/pr/7 (private tests decoded), LiveCodeBench-X joined on task_id, and `gym eval run
 * --benchmark` through code_gen with a replayed known-correct and known-wrong program.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { startSourceServer, type SourceServer } from "../fixtures/benchmarks/server.ts";

let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

function env(dir: string) {
  return { XDG_CACHE_HOME: join(dir, "cache"), HF_ENDPOINT: srv.url };
}

function rows(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
}

const STDIO_FMT = "Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when the python program runs, it reads the inputs, runs the algorithm and writes output to STDOUT.";

describe("livecodebench preparers", () => {
  test("v5 and v6 windows: rows in [from, to), public then private tests, fn_name from metadata, compact JSON", async () => {
    await using dir = await tempDir();
    const out = join(dir.path, "out");
    srv.seen.length = 0;
    const r = await runGym(["eval", "prepare", "--benchmark", "livecodebench/v5_2408_2502", "--benchmark", "livecodebench/v6_2408_2505", "--output-dir", out], { cwd: dir.path, env: env(dir.path) });
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    // Every release file is read at refs/pr/7 (v5: five files, v6: six).
    const paths = srv.seen.map((s) => s.path).filter((p) => p.includes("code_generation_lite"));
    expect(new Set(paths)).toEqual(new Set(["", "2", "3", "4", "5", "6"].map((n) => `/datasets/livecodebench/code_generation_lite/resolve/refs/pr/7/test${n}.jsonl`)));

    const v5file = join(out, "benchmarks/livecodebench/v5_2408_2502/data/livecodebench_v5_validation.jsonl");
    const v5 = rows(v5file);
    expect(v5.map((x) => (x.verifier_metadata as { problem_id: string }).problem_id)).toEqual(["abc365_a", "3500"]);
    expect(v5[0]).toEqual({
      question_content: "Read A and B, print A+B.",
      verifier_metadata: { problem_id: "abc365_a", difficulty: "easy", unit_tests: { inputs: ["1 2\n", "40 2\n"], outputs: ["3\n", "42\n"], fn_name: null } },
      formatting_message: STDIO_FMT,
      starter_code: "```python\n# YOUR CODE HERE\n```",
    });
    expect(v5[1]).toMatchObject({
      verifier_metadata: { difficulty: "medium", unit_tests: { inputs: ["1\n2", "-5\n7"], outputs: ["3", "2"], fn_name: "addTwo" } },
      formatting_message: "You will use the following starter code to write the solution to the problem and enclose your code within delimiters.",
      starter_code: "```python\nclass Solution:\n    def addTwo(self, a: int, b: int) -> int:\n        \n```",
    });
    // orjson's layout: no spaces after separators, keys in upstream's order.
    expect(readFileSync(v5file, "utf8").split("\n")[0]).toStartWith('{"question_content":"Read A and B, print A+B.","verifier_metadata":{"problem_id":"abc365_a","difficulty":"easy","unit_tests":{"inputs":["1 2\\n","40 2\\n"]');

    const v6 = rows(join(out, "benchmarks/livecodebench/v6_2408_2505/data/livecodebench_v6_validation.jsonl"));
    // 2025-04-05 is inside v6's window only; 2025-06-01 (the end date) and 2023 are outside both.
    expect(v6.map((x) => (x.verifier_metadata as { problem_id: string }).problem_id)).toEqual(["abc365_a", "3500", "abc400_a"]);
    expect((v6[2]!.verifier_metadata as { difficulty: string; unit_tests: unknown }).unit_tests).toEqual({ inputs: ["3 9\n"], outputs: ["9\n"], fn_name: null });
  }, 60_000);

  test("livecodebench-x: per version and language, joined on task_id, unmatched rows dropped, ensure_ascii off", async () => {
    await using dir = await tempDir();
    const out = join(dir.path, "out");
    const r = await runGym(["eval", "prepare", "--benchmark", "livecodebench-x", "--output-dir", out], { cwd: dir.path, env: env(dir.path) });
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    const file = join(out, "benchmarks/livecodebench-x/data/livecodebench-x_benchmark.jsonl");
    const xs = rows(file);
    expect(xs.map((x) => `${x.release_version}/${x.target_language}/${x.task_id}`)).toEqual([
      "v5/de/abc365_a", "v5/es/abc365_a", "v5/fr/abc365_a", "v5/ja/abc365_a",
      "v6/de/abc400_a", "v6/es/abc400_a", "v6/fr/abc400_a", "v6/ja/abc400_a",
    ]);
    expect(xs[3]).toEqual({
      question: "以下は、Pythonプログラミング言語で実行可能なコードを生成する必要がある問題です。\n\n[ja] statement of abc365_a",
      problem: "[ja] statement of abc365_a",
      task_id: "abc365_a",
      release_version: "v5",
      subset_for_metrics: "ja",
      target_language: "ja",
      verifier_metadata: { unit_tests: { inputs: ["1 2\n", "40 2\n"], outputs: ["3\n", "42\n"], fn_name: null }, difficulty: "easy" },
    });
    // json.dumps(ensure_ascii=False): Python's separators, characters kept.
    expect(readFileSync(file, "utf8")).toContain('"question": "Hier ist ein Problem, für das');
  }, 60_000);
});

/** A Responses API answer whose output text is `text`. */
function answer(text: string): Record<string, unknown> {
  return { id: "resp_x", object: "response", created_at: 0, model: "scripted", status: "completed", output: [{ type: "message", id: "msg_x", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }], parallel_tool_calls: false, tool_choice: "auto", tools: [] };
}

describe("gym eval run --benchmark livecodebench", () => {
  test("a replayed correct and a replayed wrong program score exactly 1 and 0 on their rows", async () => {
    await using dir = await tempDir();
    const e = env(dir.path);
    // Prepare first, then build the replay from the prepared rows rendered with the benchmark's prompt.
    const prep = await runGym(["eval", "prepare", "--benchmark", "livecodebench/v5_2408_2502"], { cwd: dir.path, env: e });
    expect(prep.code).toBe(0);
    const prepared = rows(join(dir.path, "cache/gym/prepared/benchmarks/livecodebench/v5_2408_2502/data/livecodebench_v5_validation.jsonl"));
    const system = "You are a helpful and harmless assistant. You should think step-by-step.";
    const programs: Record<string, string> = {
      abc365_a: "Here it is:\n```python\na, b = map(int, input().split())\nprint(a + b)\n```",
      "3500": "```python\nclass Solution:\n    def addTwo(self, a: int, b: int) -> int:\n        return a - b\n```",
    };
    const replay = prepared.map((row) => {
      const user = `${row.question_content}${row.starter_code}\n\n${row.formatting_message}`;
      const id = (row.verifier_metadata as { problem_id: string }).problem_id;
      return JSON.stringify({ responses_create_params: { input: [{ role: "system", content: system }, { role: "user", content: user }] }, response: answer(programs[id]!) });
    });
    const replayFile = join(dir.path, "replay.jsonl");
    writeFileSync(replayFile, `${replay.join("\n")}\n`);
    mkdirSync(join(dir.path, "results"), { recursive: true });
    const r = await runGym(
      ["eval", "run", "--benchmark", "livecodebench/v5_2408_2502", "--model-type", "scripted_model", "+head_server.port=0", `+policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${replayFile}`],
      { cwd: dir.path, env: e },
    );
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    const out = readJsonl(join(dir.path, "results/livecodebench/v5_2408_2502/rollouts.jsonl"));
    // Task 0 is abc365_a (right program), task 1 is 3500 (a - b instead of a + b); every repeat scores the same.
    expect(out.length).toBeGreaterThan(0);
    for (const x of out) {
      if (x._ng_task_index === 0) expect(x).toMatchObject({ reward: 1.0, result: [true, true], difficulty: "easy" });
      else expect(x).toMatchObject({ _ng_task_index: 1, reward: 0.0, result: [false], difficulty: "medium" });
    }
    expect(new Set(out.map((x) => x._ng_task_index))).toEqual(new Set([0, 1]));
  }, 180_000);
});
