/** scicode_agent: per-sub-step generation with accumulated code, against a scripted loopback model and a loopback SciCode-protocol resources server. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findBuiltin } from "../../src/components/registry.ts";
import { scicodeKeyMetrics, scicodeMetrics } from "../../src/verify/agents/scicode-metrics.ts";
import { PREFILLED_STEPS_CODE } from "../../src/verify/agents/scicode-prefilled.ts";
import { extractPythonScript, isContextWindowError, processProblemSteps } from "../../src/verify/agents/scicode-steps.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";
import { fakeRefs, fakeServer, message, REFS, responseWith, scriptedModel, type Answer } from "./_loop-fakes.ts";

type Obj = Record<string, any>;
/** n-th model call → its answer; default: code `x{n} = {n}` with an import line the agent must drop. */
let modelScript: (n: number) => Answer = (n) => responseWith([message(`Here:\n\`\`\`python\nimport numpy as np\nx${n} = ${n}\n\`\`\``)]);
const model = scriptedModel((n) => modelScript(n));
let verifyAnswer: (body: Obj) => Answer = (body) => ({ ...body, reward: 1.0 });
const res = fakeServer((path, body): Answer => (path === "/verify" ? verifyAnswer(body) : { status: 404, body: { detail: "Not Found" } }));

let stack: Stack;
beforeAll(async () => {
  stack = await startStack(
    [
      { name: "agent", serverType: "responses_api_agents", impl: "scicode_agent", leaf: { ...REFS, prompt_fpath: "benchmarks/scicode/prompts/background.yaml", with_background: true } },
      { name: "agent_nobg", serverType: "responses_api_agents", impl: "scicode_agent", leaf: { ...REFS, prompt_fpath: "benchmarks/scicode/prompts/background.yaml", with_background: false } },
    ],
    fakeRefs(model, res),
  );
});
afterAll(async () => {
  await stack.stop();
  model.stop();
  res.stop();
});

function reset() {
  model.seen.length = 0;
  res.seen.length = 0;
  modelScript = (n) => responseWith([message(`Here:\n\`\`\`python\nimport numpy as np\nx${n} = ${n}\n\`\`\``)]);
  verifyAnswer = (body) => ({ ...body, reward: 1.0 });
}
const runRow = (problemId = "1", n = 2, extra: Obj = {}) => ({
  responses_create_params: { input: [] },
  problem_id: problemId,
  sub_steps: [...Array(n).keys()].map((i) => ({ step_number: `${problemId}.${i + 1}`, step_description_prompt: `desc ${i}`, step_background: `bg ${i}`, function_header: `def f${i}():`, return_line: "return None", test_cases: ["assert True"] })),
  required_dependencies: "import numpy as np",
  uuid: problemId,
  ...extra,
});
const verifyBody = () => res.seen.find((s) => s.path === "/verify")!.body;

describe("scicode step helpers (upstream tests as data)", () => {
  const extract: [string, string, string][] = [
    ["```python fence, import lines stripped", "pre\n```python\nimport numpy as np\nx = 1\n```\npost", "\nx = 1\n"],
    ["a generic fence", "```\ny = 2\n```", "\ny = 2\n"],
    ["no fence: the whole answer", "z = 3", "z = 3"],
    ["`from … import …` lines stripped too", "```python\nfrom math import pi\nw = pi\n```", "\nw = pi\n"],
  ];
  for (const [name, input, want] of extract) test(`extract: ${name}`, () => expect(extractPythonScript(input)).toBe(want));

  test("process_problem_steps with and without background", () => {
    const steps = [
      { step_description_prompt: "D0", step_background: "B0", function_header: "def f0():", return_line: "r0" },
      { step_description_prompt: "D1", step_background: "B1", function_header: "def f1():", return_line: "r1" },
    ];
    const bg = processProblemSteps(steps, 1, ["code0", null], true);
    expect(bg).toEqual({ problemSteps: "D0\nB0\n\ncode0", nextStep: "D1\nB1\n\ndef f1():\n\nr1", previousCode: "code0" });
    const plain = processProblemSteps(steps, 1, ["code0", null], false);
    expect(plain.problemSteps).not.toContain("B0");
    expect(plain.nextStep).not.toContain("B1");
  });

  const ctxErrors: [string, boolean][] = [
    ["... exceeds maximum input length ...", true],
    ["Requested token count exceeds the model's maximum", true],
    ["max_tokens must be at least 1, got -12", true],
    ["some other error", false],
  ];
  for (const [msg, want] of ctxErrors) test(`context-window error? ${JSON.stringify(msg)} → ${want}`, () => expect(isContextWindowError(msg)).toBe(want));

  test("the prefilled steps are upstream's three", () => expect(Object.keys(PREFILLED_STEPS_CODE).sort()).toEqual(["13:5", "62:0", "76:2"]));
});

describe("scicode metrics (upstream tests as data)", () => {
  const rep = (idx: number, passed: number, total: number) => ({ _ng_rollout_index: idx, num_steps_passed: passed, num_steps_total: total, problem_accuracy: passed === total });
  const stdev = (xs: number[]) => {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
  };
  test("subtask_accuracy is sub-step weighted (4/6, not the mean of 0.5 and 0.75)", () => {
    expect(scicodeMetrics([[{ num_steps_passed: 1, num_steps_total: 2 }], [{ num_steps_passed: 3, num_steps_total: 4 }]])).toEqual({ subtask_accuracy: 4 / 6 });
  });
  test("no steps → 0.0", () => expect(scicodeMetrics([])).toEqual({ subtask_accuracy: 0.0 }));
  test("three runs, hand computed", () => {
    const m = scicodeMetrics([[rep(0, 2, 2), rep(1, 1, 2), rep(2, 0, 2)], [rep(0, 3, 4), rep(1, 4, 4), rep(2, 3, 4)]]);
    expect(m.subtask_accuracy).toBeCloseTo(13 / 18, 12);
    expect(m["mean/problem_accuracy/std_dev_across_runs"]).toBeCloseTo(stdev([0.5, 0.5, 0.0]), 12);
    expect(m["subtask_accuracy/std_dev_across_runs"]).toBeCloseTo(stdev([5 / 6, 5 / 6, 3 / 6]), 12);
    expect(Object.keys(m).some((k) => k.endsWith("std_err_across_runs"))).toBe(false);
  });
  test("single repeat: only the pooled metric", () => expect(scicodeMetrics([[rep(0, 1, 2)], [rep(0, 3, 4)]])).toEqual({ subtask_accuracy: 4 / 6 }));
  test("aligned by rollout index, not arrival order", () => {
    const ordered = [[rep(0, 2, 2), rep(1, 0, 2)], [rep(0, 4, 4), rep(1, 1, 4)]];
    expect(scicodeMetrics(ordered.map((t) => [...t].reverse()))).toEqual(scicodeMetrics(ordered));
  });
  test("uneven repeat counts use the fewest", () => {
    const m = scicodeMetrics([[rep(0, 2, 2), rep(1, 0, 2), rep(2, 1, 2)], [rep(0, 4, 4), rep(1, 0, 4)]]);
    expect(m["subtask_accuracy/std_dev_across_runs"]).toBeCloseTo(stdev([1.0, 0.0]), 12);
  });
  test("identical runs → zero spread", () => {
    const m = scicodeMetrics([[rep(0, 1, 2), rep(1, 1, 2)], [rep(0, 4, 4), rep(1, 4, 4)]]);
    expect(m["mean/problem_accuracy/std_dev_across_runs"]).toBe(0.0);
    expect(m["subtask_accuracy/std_dev_across_runs"]).toBe(0.0);
  });
  test("key metrics: mean/* and subtask_accuracy*, nothing else", () => {
    expect(scicodeKeyMetrics({ "mean/reward": 0.1875, "max/reward": 1.0, subtask_accuracy: 0.414, "subtask_accuracy/std_dev_across_runs": 0.015, "std/reward": 0.4 })).toEqual({ "mean/reward": 0.1875, subtask_accuracy: 0.414, "subtask_accuracy/std_dev_across_runs": 0.015 });
  });
});

describe("scicode_agent over loopback servers", () => {
  test("builds per-step solutions (earlier code accumulated) and calls verify (upstream test_run_builds_solutions_and_calls_verify)", async () => {
    reset();
    const r = await postJson(`${stack.url.agent}/run`, runRow("1", 3));
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(1.0);
    const v = verifyBody();
    expect(v.response).toBeDefined();
    expect(v.uuid).toBe("1");
    expect(v.solutions).toEqual({
      "1.1": "import numpy as np\n\n\nx1 = 1\n",
      "1.2": "import numpy as np\n\nx1 = 1\n\n\n\nx2 = 2\n",
      "1.3": "import numpy as np\n\nx1 = 1\n\n\nx2 = 2\n\n\n\nx3 = 3\n",
    });
    // Each step's prompt shows the earlier steps with the model's own code and the next header.
    const p3 = model.bodies()[2]!.input[0].content as string;
    expect(p3).toContain("desc 0\nbg 0\n\n\nx1 = 1\n\n\n------\n\ndesc 1\nbg 1\n\n\nx2 = 2\n");
    expect(p3).toContain("desc 2\nbg 2\n\ndef f2():\n\nreturn None");
    expect(model.bodies()[0]!).toEqual({ input: [{ role: "user", content: expect.any(String) }] });
  });

  test("with_background false leaves the backgrounds out", async () => {
    reset();
    await postJson(`${stack.url.agent_nobg}/run`, runRow("1", 2));
    expect(model.bodies()[1]!.input[0].content).not.toContain("bg 0");
  });

  test("a prefilled step (problem 62, step 0) is not generated nor scored, but given as context (upstream test_run_skips_prefilled_step)", async () => {
    reset();
    await postJson(`${stack.url.agent}/run`, runRow("62", 2));
    expect(model.seen).toHaveLength(1);
    expect(Object.keys(verifyBody().solutions)).toEqual(["62.2"]);
    expect(model.bodies()[0]!.input[0].content).toContain("self.operator_dict = operator_dict");
  });

  test("context window exceeded → the remaining steps get the sentinel, run completes (upstream test_run_context_window_sentinels_remaining_steps)", async () => {
    reset();
    modelScript = (n) => (n === 1 ? responseWith([message("```python\na = 1\n```")]) : { status: 400, body: { error: { message: "This model's prompt exceeds maximum input length of 10 tokens" } } });
    const r = await postJson(`${stack.url.agent}/run`, runRow("1", 3));
    expect(r.status).toBe(200);
    expect(model.seen).toHaveLength(2);
    const s = verifyBody().solutions;
    expect(s["1.2"]).toBe("_ran_out_of_context_");
    expect(s["1.3"]).toBe("_ran_out_of_context_");
    expect(s["1.1"]).toContain("a = 1");
  });

  test("context window exceeded on the first step → every step failed, an empty response sent", async () => {
    reset();
    modelScript = () => ({ status: 400, body: { error: { message: "Requested token count exceeds the model's maximum context length" } } });
    await postJson(`${stack.url.agent}/run`, runRow("1", 2));
    expect(verifyBody().solutions).toEqual({ "1.1": "_ran_out_of_context_", "1.2": "_ran_out_of_context_" });
    expect(verifyBody().response).toMatchObject({ id: "scicode", output: [] });
  });

  test("any other model failure fails the run with a 500 naming it (upstream test_run_reraises_non_context_error)", async () => {
    reset();
    modelScript = () => ({ status: 400, body: { error: { message: "boom" } } });
    const r = await postJson(`${stack.url.agent}/run`, runRow("1", 1));
    expect(r.status).toBe(500);
    expect(r.text).toContain("boom");
    expect(res.seen).toHaveLength(0);
  });

  test("/v1/responses wraps a string input and forwards (upstream test_responses_forwards_to_model)", async () => {
    reset();
    const r = await postJson(`${stack.url.agent}/v1/responses`, { input: "hi" });
    expect(r.status).toBe(200);
    expect(model.bodies()[0]!.input).toEqual([{ role: "user", content: "hi" }]);
    expect(r.json.output[0].content[0].text).toContain("```python");
  });

  test("/aggregate_metrics reports subtask_accuracy as a key metric", async () => {
    const vr = (t: number, p: number, n: number) => ({ _ng_task_index: t, _ng_rollout_index: 0, reward: p === n ? 1 : 0, num_steps_passed: p, num_steps_total: n, responses_create_params: {}, response: {} });
    const r = await postJson(`${stack.url.agent}/aggregate_metrics`, { verify_responses: [vr(0, 1, 2), vr(1, 3, 4)] });
    expect(r.status).toBe(200);
    expect(r.json.agent_metrics.subtask_accuracy).toBeCloseTo(4 / 6, 12);
    expect(r.json.key_metrics.subtask_accuracy).toBeCloseTo(4 / 6, 12);
    expect(r.json.key_metrics["max/reward"]).toBeUndefined();
  });

  const bad: [string, Obj][] = [
    ["no sub_steps", { responses_create_params: { input: [] }, problem_id: "1", required_dependencies: "" }],
    ["a sub-step without function_header", runRow("1", 1, { sub_steps: [{ step_description_prompt: "d", step_background: "b", return_line: "r" }] })],
    ["problem_id not a string", runRow("1", 1, { problem_id: 1 })],
  ];
  for (const [name, body] of bad) {
    test(`bad row: ${name} → 422, nothing called`, async () => {
      reset();
      const r = await postJson(`${stack.url.agent}/run`, body);
      expect(r.status).toBe(422);
      expect(model.seen).toHaveLength(0);
    });
  }

  test("config: with_background defaults to true; prompt_fpath is required", async () => {
    const comp = (await findBuiltin("responses_api_agents", "scicode_agent"))!;
    expect(() => comp.checkConfig!({ instanceName: "a", config: { ...REFS } })).toThrow(/prompt_fpath/);
    const { scicodeConfig } = await import("../../src/components/agents/scicode-agent.ts");
    expect(scicodeConfig({ instanceName: "a", config: { ...REFS, prompt_fpath: "p.yaml" } }).withBackground).toBe(true);
  });
});

describe("upstream's scicode example rows (resources_servers/scicode/data/example.jsonl, kept as a fixture)", () => {
  const rows = readFileSync(join(import.meta.dir, "../fixtures/loop-agents/scicode_example.jsonl"), "utf8").trim().split("\n").map((l: string) => JSON.parse(l)) as Obj[];
  for (const row of rows) {
    test(`problem ${row.problem_id}: one model call per sub-step, one solution per step, each holding the dependencies`, async () => {
      reset();
      const r = await postJson(`${stack.url.agent}/run`, row);
      expect(r.status).toBe(200);
      const n = row.sub_steps.length;
      expect(model.seen).toHaveLength(n);
      const v = verifyBody();
      expect(Object.keys(v.solutions)).toEqual([...Array(n).keys()].map((i) => `${row.problem_id}.${i + 1}`));
      for (const sol of Object.values(v.solutions) as string[]) expect(sol.startsWith(`${row.required_dependencies}\n`)).toBe(true);
      // The last step's prompt names its own function header and every earlier step's description.
      const last = model.bodies()[n - 1]!.input[0].content as string;
      expect(last).toContain(row.sub_steps[n - 1].function_header);
      for (const s of row.sub_steps.slice(0, -1)) expect(last).toContain(s.step_description_prompt);
      expect(v.uuid).toBe(row.uuid);
    });
  }
});
