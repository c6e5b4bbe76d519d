/** code_gen as a server: upstream's test cases as data, metrics and key metrics, bad input, responsiveness. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { codeGenComputeMetrics, codeGenKeyMetrics, reasoningFormatViolation } from "../../src/components/resources/code-gen.ts";
import { computeAggregateMetrics } from "../../src/verify/aggregate-metrics.ts";
import { extractLcbCode } from "../../src/verify/code/extract.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack([{ name: "code_gen", serverType: "resources_servers", impl: "code_gen", leaf: { num_processes: 8, unit_test_timeout_secs: 2, debug: false, reasoning_format_penalty: -1 } }]);
});
afterAll(async () => stack.stop());

const response = (text: string, reasoning?: string) => ({
  id: "r", created_at: 0, model: "m", object: "response", parallel_tool_calls: false, tool_choice: "auto", tools: [],
  output: [
    ...(reasoning === undefined ? [] : [{ id: "rs", type: "reasoning", summary: [{ type: "summary_text", text: reasoning }] }]),
    { id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] },
  ],
});
const body = (text: string, unit_tests: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: "solve" }] },
  response: response(text),
  verifier_metadata: { unit_tests },
  ...extra,
});

// [name, model text, unit tests, reward, metadata.error_message (undefined: not checked), extracted code present]
// The first five are upstream's resources_servers/code_gen/tests/test_app.py cases.
const CASES: [string, string, Record<string, unknown>, number, string | undefined, boolean][] = [
  ["pass via response", "```python\nn=int(input())\nprint(n*n)\n```", { inputs: ["2\n", "5\n"], outputs: ["4", "25"] }, 1, undefined, true],
  ["wrong answer", "```python\nn=int(input())\nprint(n+1)\n```", { inputs: ["3\n"], outputs: ["9"] }, 0, "Wrong answer at output_line_idx=0: 4 != 9", true],
  ["no code block", "n=int(input())\nprint(n*n)", { inputs: ["2\n"], outputs: ["4"] }, 0, undefined, false],
  ["syntax error", "```python\nprint('hello'  # Missing closing parenthesis\n```", { inputs: ["\n"], outputs: ["hello"] }, 0, "Error during testing: '(' was never closed (<string>, line 1)", true],
  ["runtime error", "```python\nn=int(input())\nprint(n/0)\n```", { inputs: ["5\n"], outputs: ["error"] }, 0, "Runtime Error", true],
  // Ours: the comparison and harness details that decide verdicts (components.md §3.6).
  ["decimal tokens compare as numbers", "```python\nprint('1.50 2')\n```", { inputs: [""], outputs: ["1.5 2.0"] }, 1, undefined, true],
  ["line count must match", "```python\nprint(1)\nprint(2)\n```", { inputs: [""], outputs: ["1"] }, 0, "Wrong answer: mismatched output length", true],
  ["sys.exit ends a run normally", "```python\nimport sys\nprint(7)\nsys.exit(3)\n```", { inputs: [""], outputs: ["7"] }, 1, undefined, true],
  ["main guard is unwrapped", "```python\ndef main():\n    print(input()[::-1])\nif __name__ == '__main__':\n    main()\n```", { inputs: ["abc\n"], outputs: ["cba"] }, 1, undefined, true],
  ["call-based with class Solution and tuple → list", "```python\nclass Solution:\n    def f(self, a, b):\n        return (a + b, a * b)\n```", { inputs: ["2\n3"], outputs: ["[5, 6]"], fn_name: "f" }, 1, undefined, true],
  ["call-based float closeness", "```python\ndef g(x):\n    return x / 3\n```", { inputs: ["1"], outputs: ["0.333333"], fn_name: "g" }, 1, undefined, true],
  ["call-based wrong answer", "```python\ndef g(x):\n    return x\n```", { inputs: ["1", "2"], outputs: ["1", "3"], fn_name: "g" }, 0, "Wrong Answer", true],
  ["missing function", "```python\ndef other(x):\n    return x\n```", { inputs: ["1"], outputs: ["1"], fn_name: "g" }, 0, "Error during testing: cannot unpack non-iterable NoneType object", true],
  ["per-test time limit", "```python\nwhile True:\n    pass\n```", { inputs: [""], outputs: ["1"] }, 0, "Time Limit Exceeded", true],
  ["huge integers parse (50,000 digits)", "```python\nprint(10**40000)\n```", { inputs: [""], outputs: [`1${"0".repeat(40000)}`] }, 1, undefined, true],
];

describe("code_gen verify", () => {
  test.each(CASES)("%s", async (_name, text, tests, reward, message, hasCode) => {
    const r = await postJson(`${stack.url.code_gen}/verify`, body(text, tests));
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(reward);
    if (message !== undefined) expect(r.json.metadata.error_message).toBe(message);
    expect(Boolean(r.json.extracted_model_code)).toBe(hasCode);
    expect(r.json.extracted_model_output).toBe(text);
  }, 30_000);

  test("empty output scores 0 with every response field present", async () => {
    const r = await postJson(`${stack.url.code_gen}/verify`, body("   ", { inputs: ["1"], outputs: ["1"] }, { verifier_metadata: { unit_tests: { inputs: ["1"], outputs: ["1"] }, difficulty: "easy" } }));
    expect(r.json).toMatchObject({ reward: 0, extracted_model_output: null, extracted_model_code: null, result: null, metadata: null, unit_tests_time_taken: null, reasoning_format_violation_rate: 0, difficulty: "easy" });
  });

  test("a leaked <think> tag gives reasoning_format_penalty", async () => {
    const b = { ...body("<think>x</think>\n```python\nprint(1)\n```", { inputs: [""], outputs: ["1"] }) };
    const r = await postJson(`${stack.url.code_gen}/verify`, b);
    expect(r.json.reward).toBe(-1);
    expect(r.json.reasoning_format_violation_rate).toBe(1);
    expect(reasoningFormatViolation(response("ok", "<think>a<think>b"))).toBe(true);
    expect(reasoningFormatViolation(response("ok", "<think>a</think>"))).toBe(false);
  });

  test("bad unit tests are a 422 naming the field; the server keeps answering", async () => {
    const r = await postJson(`${stack.url.code_gen}/verify`, body("```python\nprint(1)\n```", { inputs: "1", outputs: ["1"] }));
    expect(r.status).toBe(422);
    expect(r.text).toContain("verifier_metadata.unit_tests");
    const ok = await postJson(`${stack.url.code_gen}/verify`, body("```python\nprint(1)\n```", { inputs: [""], outputs: ["1"] }));
    expect(ok.json.reward).toBe(1);
  });

  test("the server answers other requests while 8 programs run", async () => {
    const slow = Array.from({ length: 8 }, () => postJson(`${stack.url.code_gen}/verify`, body("```python\nimport time\ntime.sleep(1.5)\nprint(1)\n```", { inputs: [""], outputs: ["1"] })));
    const t0 = performance.now();
    const quick = await fetch(`${stack.url.code_gen}/reverify_mode`);
    const quickMs = performance.now() - t0;
    expect(await quick.text()).toContain("stateless");
    const done = await Promise.all(slow);
    expect(done.every((d) => d.json.reward === 1)).toBe(true);
    expect(quickMs).toBeLessThan(1500); // answered while the programs were still sleeping
  }, 60_000);
});

describe("code_gen metrics (upstream TestComputeMetrics / TestGetKeyMetrics as data)", () => {
  test("pass@k, majority, sample spread and per-difficulty subsets", () => {
    const m = codeGenComputeMetrics([
      [{ reward: 1.0, extracted_model_code: "print(1)", difficulty: "easy" }, { reward: 1.0, extracted_model_code: "print(1)", difficulty: "easy" }],
      [{ reward: 0.0, extracted_model_code: "print(2)", difficulty: "hard" }, { reward: 1.0, extracted_model_code: "print(2b)", difficulty: "hard" }],
      [{ reward: 1.0, extracted_model_code: "print(3)", difficulty: "easy" }, { reward: 0.0, extracted_model_code: null, difficulty: "easy" }],
    ]);
    for (const k of ["pass@1/accuracy", "pass@2/accuracy", "majority@2/accuracy", "pass@1[avg-of-2]/accuracy", "pass@1[avg-of-2]/accuracy/avg_sample_std_dev", "easy/pass@1/accuracy", "hard/pass@1/accuracy"]) expect(m).toHaveProperty([k]);
    expect(m["easy/pass@1/accuracy"] as number).toBeGreaterThan(m["hard/pass@1/accuracy"] as number);
  });

  test("no_answer is tracked", () => {
    const m = codeGenComputeMetrics([[{ reward: 1.0, extracted_model_code: "x" }, { reward: 0.0, extracted_model_code: null }]]);
    expect(m["pass@1[avg-of-2]/no_answer"]).toBeCloseTo(50.0);
  });

  test("headline metrics", () => {
    const rows = [];
    for (let t = 0; t < 4; t++) for (let r = 0; r < 3; r++) rows.push({ _ng_task_index: t, _ng_rollout_index: r, reward: (t + r) % 2, extracted_model_code: r < 2 ? `print(${t})` : null, difficulty: ["easy", "easy", "hard", "hard"][t] });
    const km = computeAggregateMetrics(rows, { computeMetrics: codeGenComputeMetrics, keyMetrics: codeGenKeyMetrics }).key_metrics;
    for (const k of ["pass@3/accuracy", "majority@3/accuracy", "pass@1[avg-of-3]/accuracy"]) expect(km).toHaveProperty([k]);
    expect(Object.keys(km).some((k) => k.startsWith("easy/"))).toBe(true);
    expect(Object.keys(km).some((k) => k.startsWith("hard/"))).toBe(true);
    expect(Object.keys(km).some((k) => k.includes("std_dev") || k.includes("no_answer"))).toBe(false);
  });

  test("code extraction takes the text between the last two fence lines", () => {
    expect(extractLcbCode("a\n```python\nx=1\n```\nb\n```\ny=2\n```")).toBe("y=2");
    expect(extractLcbCode("```python\nonly one fence")).toBe("");
  });
});
