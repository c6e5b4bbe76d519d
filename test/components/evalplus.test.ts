/**
 * evalplus as a server: upstream's test_app cases as data (extraction, verify outcomes, prompt prepending,
 * metrics), plus evalplus 0.3.1's harness details that decide verdicts (per-input and global limits,
 * float tolerance, MBPP+ special oracles and input types, the find_zero quirk), and missing data as a
 * `verifier` failure. Ground truth is computed here with the CodeRunner, as `gym eval prepare` does.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { evalplusComputeMetrics, evalplusKeyMetrics } from "../../src/components/resources/evalplus.ts";
import { readEnv } from "../../src/env.ts";
import { computeAggregateMetrics } from "../../src/verify/aggregate-metrics.ts";
import { computeGroundTruth, EXPECTED_FORMAT, evalplusSolution, extractCodeStrict, parseRelease, releaseStem, type EvalplusDataset } from "../../src/verify/code/evalplus.ts";
import { CodeRunner } from "../../src/verify/code/runner.ts";
import { tempDir } from "../helpers/tmp.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

// upstream's mock task (HumanEval/0: `def f(x):`, base [[1]], plus [[2]]) and ours.
const HUMANEVAL = [
  { task_id: "HumanEval/0", prompt: "def f(x):\n", entry_point: "f", base_input: [[1]], plus_input: [[2]], atol: 0, canonical_solution: "    return x\n" },
  { task_id: "HumanEval/1", prompt: "def half(x):\n", entry_point: "half", base_input: [[1.0], [3.0]], plus_input: [[1e-9]], atol: 0, canonical_solution: "    return x / 2\n" },
  {
    task_id: "HumanEval/32", entry_point: "find_zero", atol: 1e-6,
    prompt: "import math\n\n\ndef poly(xs: list, x: float):\n    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])\n\n\ndef find_zero(xs: list):\n",
    canonical_solution: "    begin, end = -1., 1.\n    while poly(xs, begin) * poly(xs, end) > 0:\n        begin *= 2.0\n        end *= 2.0\n    while end - begin > 1e-10:\n        center = (begin + end) / 2.0\n        if poly(xs, center) * poly(xs, begin) > 0:\n            begin = center\n        else:\n            end = center\n    return begin\n",
    base_input: [[[1, 2]], [[-6, 11, -6, 1]]], plus_input: [[[2, -3]]],
  },
];
const MBPP = [
  {
    task_id: "Mbpp/2", entry_point: "similar_elements", atol: 0, prompt: '"""\nWrite a function to find the shared elements from the given two lists.\n"""\n',
    canonical_solution: "\ndef similar_elements(test_tup1, test_tup2):\n  return tuple(set(test_tup1) & set(test_tup2))\n",
    base_input: [[[3, 4, 5, 6], [5, 7, 4, 10]], [[1, 2, 3, 4], [5, 4, 3, 7]]], plus_input: [[[11, 12, 14, 13], [17, 15, 14, 13]]],
  },
  { task_id: "Mbpp/164", entry_point: "are_equivalent", atol: 0, prompt: '"""\nWrite a function to determine if the sum of the divisors of two integers are the same.\n"""\n', canonical_solution: "\ndef are_equivalent(a, b):\n    return a == b\n", base_input: [[36, 57]], plus_input: [[2, 4]] },
];

let stack: Stack;
let dir: Awaited<ReturnType<typeof tempDir>>;

async function prepare(root: string, dataset: EvalplusDataset, rows: Record<string, unknown>[]): Promise<void> {
  const text = rows.map((r) => JSON.stringify(r)).join("\n") + "\n";
  const runner = new CodeRunner({ maxConcurrent: 2 }, readEnv().path);
  try {
    const tasks = await computeGroundTruth(runner, dataset, parseRelease(text, "release"));
    writeFileSync(join(root, `${releaseStem(dataset)}.jsonl`), text);
    writeFileSync(join(root, `${releaseStem(dataset)}.expected.json`), JSON.stringify({ format: EXPECTED_FORMAT, source_sha256: createHash("sha256").update(text).digest("hex"), tasks }));
  } finally {
    runner.close();
  }
}

beforeAll(async () => {
  dir = await tempDir();
  const data = join(dir.path, "evalplus");
  mkdirSync(data);
  await prepare(data, "humaneval", HUMANEVAL);
  await prepare(data, "mbpp", MBPP);
  const leaf = (dataset: string, dataDir: string) => ({ dataset, num_processes: 4, min_time_limit: 1.0, gt_time_limit_factor: 4.0, evalplus_version: "default", evalplus_data_dir: dataDir });
  stack = await startStack([
    { name: "he", serverType: "resources_servers", impl: "evalplus", leaf: leaf("humaneval", data) },
    { name: "mb", serverType: "resources_servers", impl: "evalplus", leaf: leaf("mbpp", data) },
    { name: "unprepared", serverType: "resources_servers", impl: "evalplus", leaf: leaf("humaneval", join(dir.path, "nothing-here")) },
  ]);
}, 60_000);
afterAll(async () => {
  await stack.stop();
  await dir[Symbol.asyncDispose]();
});

const body = (text: string, verifier_metadata: Record<string, unknown>) => ({
  responses_create_params: { input: [{ role: "user", content: "complete f" }] },
  response: { id: "resp", created_at: 0, model: "dummy", object: "response", parallel_tool_calls: false, tool_choice: "auto", tools: [], output: [{ id: "msg", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }] },
  verifier_metadata,
});
const py = (code: string) => "```python\n" + code + "\n```";

describe("extract_code_strict (upstream TestExtractCode as data)", () => {
  const CASES: [string, string, string][] = [
    ["last python fence", "scratch ```python\nx=1\n``` then ```python\ny=2\n```", "y=2"],
    ["a lone generic pair ends at its own closing fence (strict, as Skills)", "no language tag ```\nz=3\n```", ""],
    ["no closing fence", "```python\nincomplete", ""],
    ["no fence", "plain text no fences", ""],
    ["carriage returns removed", "```python\r\nprint(1)\r\n```", "print(1)"],
    ["the last of several blocks", "Step 1: ```python\nx=1\n```\nStep 2: ```python\nfinal_answer=42\n```", "final_answer=42"],
  ];
  test.each(CASES)("%s", (_n, text, want) => expect(extractCodeStrict(text)).toBe(want));

  test("the prompt is prepended unless the code starts with it (upstream's prepend / no double prepend)", () => {
    expect(evalplusSolution("def f(x):\n", "return x")).toBe("def f(x):\nreturn x");
    expect(evalplusSolution("def f(x):\n", "def f(x):\n    return x")).toBe("def f(x):\n    return x");
  });
});

// [name, server, task_id, model text, expected response fields]
const VERIFY: [string, string, string, string, Record<string, unknown>][] = [
  // upstream test_app (its Ray results were mocked; here the harness decides them)
  ["pass base and plus", "he", "HumanEval/0", py("def f(x):\n    return x"), { reward: 1, base_status: "pass", plus_status: "pass", is_correct: true, is_correct_plus: true, metadata: { base_details: [1], plus_details: [1] } }],
  ["passes base, fails plus", "he", "HumanEval/0", py("def f(x):\n    return x if x < 2 else 0"), { reward: 0, base_status: "pass", plus_status: "fail", is_correct: true, is_correct_plus: false, metadata: { base_details: [1], plus_details: [0] } }],
  ["fails base", "he", "HumanEval/0", py("def f(x):\n    return -x"), { reward: 0, base_status: "fail", plus_status: "fail", is_correct: false, is_correct_plus: false }],
  ["no code block", "he", "HumanEval/0", "I will solve this by returning x.", { reward: 0, extracted_model_output: "I will solve this by returning x.", extracted_model_code: null }],
  ["empty output", "he", "HumanEval/0", "", { reward: 0, extracted_model_output: null, extracted_model_code: null }],
  ["unknown task_id", "he", "HumanEval/9999", py("x=1"), { reward: 0, metadata: { error: "unknown task_id 'HumanEval/9999' for dataset 'humaneval'" } }],
  ["a body-only completion is stripped, prepended, and does not compile (as upstream)", "he", "HumanEval/0", py("    return x"), { reward: 0, extracted_model_code: "return x", base_status: "fail", metadata: { base_details: [] } }],
  // ours: evalplus 0.3.1's harness
  ["a float output is compared with atol 1e-6", "he", "HumanEval/1", py("def half(x):\n    return x * 0.5 + 1e-8"), { reward: 1, base_status: "pass", plus_status: "pass" }],
  ["beyond the tolerance fails", "he", "HumanEval/1", py("def half(x):\n    return x * 0.5 + 1e-3"), { reward: 0, base_status: "fail", metadata: { base_details: [0, 0] } }],
  ["an int where a float is expected fails allclose's type check", "he", "HumanEval/1", py("def half(x):\n    return int(x) // 2"), { reward: 0, base_status: "fail" }],
  ["find_zero never passes under evalplus 0.3.1 (its special oracle skips recording)", "he", "HumanEval/32", py("def find_zero(xs):\n    return -xs[0] / xs[1] if len(xs) == 2 else 1.0"), { reward: 0, base_status: "fail", metadata: { base_details: [] } }],
  ["a loop is stopped by the per-input limit: fail", "he", "HumanEval/0", py("def f(x):\n    while True:\n        pass"), { reward: 0, base_status: "fail", metadata: { base_details: [0] } }],
  ["a loop that swallows the limit is killed at the global budget: timeout", "he", "HumanEval/0", py("def f(x):\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass"), { reward: 0, base_status: "timeout", plus_status: "timeout", metadata: { base_details: [], plus_details: [] } }],
  ["a process that exits early is a timeout (evalplus' unknown status)", "he", "HumanEval/0", py("def f(x):\n    import os\n    os._exit(0)"), { reward: 0, base_status: "timeout" }],
  ["printing is swallowed", "he", "HumanEval/0", py("def f(x):\n    print('noise', x)\n    return x"), { reward: 1 }],
  ["stdin cannot be read", "he", "HumanEval/0", py("def f(x):\n    return x + len(input())"), { reward: 0, base_status: "fail" }],
  ["open() is removed by the guard", "he", "HumanEval/0", py("def f(x):\n    open('out.txt', 'w')\n    return x"), { reward: 0, base_status: "fail" }],
  ["MBPP+: similar_elements compares as sets, inputs arrive as tuples", "mb", "Mbpp/2", py("def similar_elements(a, b):\n    assert isinstance(a, tuple) and isinstance(b, tuple)\n    return sorted(set(a) & set(b), reverse=True)"), { reward: 1, base_status: "pass", plus_status: "pass" }],
  ["MBPP+: are_equivalent's oracle accepts any answer", "mb", "Mbpp/164", py("def are_equivalent(a, b):\n    return 'whatever'"), { reward: 1 }],
];

describe("evalplus verify", () => {
  test.each(VERIFY)("%s", async (_n, server, taskId, text, want) => {
    const r = await postJson(`${stack.url[server]}/verify`, body(text, { task_id: taskId }));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject(want);
    expect(r.json.verifier_metadata).toEqual({ task_id: taskId });
  }, 30_000);

  test("missing task_id (upstream)", async () => {
    const r = await postJson(`${stack.url.he}/verify`, body(py("x=1"), {}));
    expect(r.json).toMatchObject({ reward: 0, metadata: { error: "missing task_id in verifier_metadata" } });
  });

  test("no prepared data: a verifier failure (500 naming the server) that says how to prepare, never reward 0", async () => {
    const r = await postJson(`${stack.url.unprepared}/verify`, body(py("def f(x):\n    return x"), { task_id: "HumanEval/0" }));
    expect(r.status).toBe(500);
    expect(r.text).toContain("evalplus data for 'humaneval' is not prepared");
    expect(r.text).toContain("unprepared");
  });
});

describe("evalplus metrics (upstream TestComputeMetrics as data)", () => {
  test("pass@k, majority and pass@1[avg] for both scores; plus never above base", () => {
    const m = evalplusComputeMetrics([
      [{ reward: 1.0, is_correct: true, is_correct_plus: true, extracted_model_code: "x" }, { reward: 0.0, is_correct: true, is_correct_plus: false, extracted_model_code: "x" }],
      [{ reward: 1.0, is_correct: true, is_correct_plus: true, extracted_model_code: "y" }, { reward: 1.0, is_correct: true, is_correct_plus: true, extracted_model_code: "y" }],
    ]);
    for (const k of ["pass@1/passing_base_tests", "pass@1/passing_plus_tests", "pass@2/passing_base_tests", "pass@2/passing_plus_tests", "majority@2/passing_base_tests", "pass@1[avg-of-2]/passing_base_tests"]) expect(m).toHaveProperty([k]);
    expect(m["pass@1[avg-of-2]/passing_plus_tests"] as number).toBeLessThanOrEqual(m["pass@1[avg-of-2]/passing_base_tests"] as number);
  });

  test("no_answer is tracked", () => {
    const m = evalplusComputeMetrics([[{ reward: 1.0, is_correct: true, is_correct_plus: true, extracted_model_code: "x" }, { reward: 0.0, is_correct: false, is_correct_plus: false, extracted_model_code: null }]]);
    expect(m["pass@1[avg-of-2]/no_answer"]).toBeCloseTo(50.0);
  });

  test("headline metrics name both scores", () => {
    const rows = [];
    for (let t = 0; t < 3; t++) for (let r = 0; r < 2; r++) rows.push({ _ng_task_index: t, _ng_rollout_index: r, reward: (t + r) % 2, is_correct: true, is_correct_plus: (t + r) % 2 === 1, extracted_model_code: `c${t}` });
    const km = computeAggregateMetrics(rows, { computeMetrics: evalplusComputeMetrics, keyMetrics: evalplusKeyMetrics }).key_metrics;
    for (const k of ["pass@1[avg-of-2]/passing_base_tests", "pass@1[avg-of-2]/passing_plus_tests", "pass@2/passing_plus_tests", "majority@2/passing_base_tests"]) expect(km).toHaveProperty([k]);
  });
});
