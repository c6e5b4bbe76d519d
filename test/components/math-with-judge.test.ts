/**
 * math_with_judge over real loopback sockets with a local judge endpoint speaking the Responses API.
 * Upstream's tests (resources_servers/math_with_judge/tests/test_app.py) as data, then our own cases:
 * judge faults, an overrunning check as a typed failure, metrics, numbers in rows, bad input.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { postJson, startStack } from "../servers/_stack.ts";

const queue: (string | { status: number })[] = [];
const seen: { input: { role: string; content: string }[] }[] = [];
const judge = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    seen.push((await req.json()) as never);
    const a = queue.shift() ?? "[[A!=B]]";
    if (typeof a === "object") return new Response("judge exploded", { status: a.status });
    return Response.json({
      id: "r", created_at: 1, model: "judge", object: "response", parallel_tool_calls: false, tool_choice: "none", tools: [],
      output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: a, annotations: [] }] }],
    });
  },
});
afterAll(() => judge.stop(true));

async function server(leaf: Record<string, unknown> = {}) {
  return startStack(
    [{ name: "math", serverType: "resources_servers", impl: "math_with_judge", leaf: { judge_model_server: { type: "responses_api_models", name: "judge" }, judge_responses_create_params: { input: [] }, ...leaf } }],
    { request_timeout_seconds: 5, request_retry_budget_seconds: 0, judge: { responses_api_models: { openai_model: { host: "127.0.0.1", port: judge.port } } } },
  );
}

const msg = (text: string) => ({ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
function row(question: string, expected: unknown, parts: string[], extraOutput: unknown[] = []) {
  return {
    responses_create_params: { input: [{ role: "user", content: question }] },
    response: { id: "resp", created_at: 0, model: "m", object: "response", output: [...parts.map(msg), ...extraOutput], parallel_tool_calls: false, tool_choice: "none", tools: [] },
    question,
    expected_answer: expected,
  };
}

// upstream test_verify_answer_with_library_async / test_verify_answer: [expected, generated, reward, extracted]
const LIBRARY: [string, string, number, string | null][] = [
  ["4", "2 + 2 = \\boxed{4}", 1, "4"],
  ["\\boxed{12}", "3 * 4 = \\boxed{12}", 1, "12"],
  ["\\boxed{5}", "10 - 5 = \\boxed{5}", 1, "5"],
  ["4.0", "2 + 2 = \\boxed{\\frac{8}{2}}", 1, "4"],
  ["\\boxed{12}", "3 * 4 = 13", 0, "13"],
  ["17.001", "17", 0, "17"],
  ["", "", 0, null],
  ["3", "3", 1, "3"],
  ["8", "3 + 5 = \\boxed{8}", 1, "8"],
];

describe("math_with_judge: upstream's library cases (judge off, as the shipped YAML)", () => {
  test.each(LIBRARY)("%p vs %p", async (expected, generated, reward, extracted) => {
    await using s = await server({ should_use_judge: false });
    const r = await postJson(`${s.url.math}/verify`, row("Q", expected, [generated]));
    expect(r.status).toBe(200);
    expect([r.json.reward, r.json.library_reward, r.json.extracted_answer, r.json.judge_evaluations]).toEqual([reward, reward, extracted, null]);
  });
});

describe("math_with_judge: judge fallback (upstream test_verify, test_verify_answer)", () => {
  test("library miss, judge says not equal: reward 0 after one call; fields as upstream", async () => {
    await using s = await server();
    queue.length = 0;
    queue.push("[[A!=B]] done");
    const before = seen.length;
    const r = await postJson(`${s.url.math}/verify`, row("Simplify the expression x + 7 - 6", "x + 1", ["$1"]));
    expect(r.json.reward).toBe(0);
    expect(r.json.library_reward).toBe(0);
    expect(r.json.extracted_answer).toBe("1");
    expect(r.json.judge_evaluations).toHaveLength(1);
    expect(seen.length - before).toBe(1);
    expect(Object.keys(r.json).sort()).toEqual(["expected_answer", "extracted_answer", "judge_evaluations", "library_reward", "response", "responses_create_params", "reward"]);
    const sent = seen[before]!.input;
    expect(sent[0]!.role).toBe("system");
    expect(sent[1]!.content).toBe("<|Problem|>\nSimplify the expression x + 7 - 6\n\n<|Start of Assistant A's Answer|>\nx + 1\n<|End of Assistant A's Answer|>\n\n<|Start of Assistant B's Answer|>\n1\n<|End of Assistant B's Answer|>");
  });

  test("output_text parts are joined, reasoning and refusals skipped: library equal, no judge call", async () => {
    await using s = await server();
    const before = seen.length;
    const r = await postJson(`${s.url.math}/verify`, row("Simplify the expression x + 7 - 6", "x + 1", ["$1", " + x$"], [{ id: "x", type: "reasoning", summary: [] }]));
    expect([r.json.reward, r.json.library_reward, r.json.extracted_answer, r.json.judge_evaluations]).toEqual([1, 1, "x + 1", null]);
    expect(seen.length).toBe(before);
  });

  test("library 0, judge equal both ways: reward 1 with two evaluations, answers swapped in pass 2", async () => {
    await using s = await server();
    queue.length = 0;
    queue.push("[[A=B]]", "verdict [[A=B]] not [[A!=B]]");
    const before = seen.length;
    const r = await postJson(`${s.url.math}/verify`, row("Q", "1.4", ["Final answer: {7 / 5}"]));
    expect([r.json.reward, r.json.library_reward, r.json.extracted_answer]).toEqual([1, 0, "5"]);
    expect(r.json.judge_evaluations).toHaveLength(2);
    const [a, b] = seen.slice(before).map((x) => x.input[1]!.content);
    expect(a).toContain("Assistant A's Answer|>\n1.4\n");
    expect(b).toContain("Assistant A's Answer|>\n5\n");
  });

  test("second pass not equal → 0; a label-free or non-message judge answer counts as not equal", async () => {
    await using s = await server();
    queue.length = 0;
    queue.push("[[A=B]]", "[[A!=B]] first [[A=B]]");
    let r = await postJson(`${s.url.math}/verify`, row("Q", "2", ["3"]));
    expect([r.json.reward, r.json.judge_evaluations.length]).toEqual([0, 2]);
    queue.push("no verdict at all");
    r = await postJson(`${s.url.math}/verify`, row("Q", "2", ["3"]));
    expect([r.json.reward, r.json.judge_evaluations.length]).toEqual([0, 1]);
  });

  test("a failing judge is a judge_failed row, not a wrong answer", async () => {
    await using s = await server();
    queue.length = 0;
    queue.push({ status: 500 });
    const r = await postJson(`${s.url.math}/verify`, row("Q", "2", ["3"]));
    expect(r.status).toBe(200);
    expect(r.json._ng_failure_class).toBe("judge_failed");
  });
});

describe("math_with_judge: failures, metrics and bad input", () => {
  test("a check that overruns library_verifier_timeout_seconds is a 500 naming the server (typed verifier), and the pool recovers", async () => {
    await using s = await server({ should_use_judge: false, library_verifier_timeout_seconds: 0.000001 });
    const r = await postJson(`${s.url.math}/verify`, row("Q", "2", ["\\boxed{2}"]));
    expect(r.status).toBe(500);
    expect(r.text).toContain("LibraryJudgeMathResourcesServer___math");
    expect(r.text).toContain("overran");
  });

  test("numbers in expected_answer are read as Python's str() would", async () => {
    await using s = await server({ should_use_judge: false });
    const r = await postJson(`${s.url.math}/verify`, row("Q", 18, ["so \\boxed{18}"]));
    expect([r.json.reward, r.json.expected_answer]).toEqual([1, "18"]);
    const bad = await postJson(`${s.url.math}/verify`, row("Q", { not: "a string" }, ["1"]));
    expect(bad.status).toBe(422);
  });

  test("a 1 MB answer and an unclosed \\boxed{ are decided, and concurrent requests all answer", async () => {
    await using s = await server({ should_use_judge: false });
    const big = `${"lorem ipsum 12 ".repeat(70_000)} so \\boxed{7}`;
    const rs = await Promise.all([
      postJson(`${s.url.math}/verify`, row("Q", "7", [big])),
      postJson(`${s.url.math}/verify`, row("Q", "7", ["\\boxed{7"])),
      ...Array.from({ length: 8 }, (_, i) => postJson(`${s.url.math}/verify`, row("Q", String(i), [`\\boxed{${i}}`]))),
    ]);
    expect(rs.map((r) => r.status)).toEqual(rs.map(() => 200));
    expect(rs[0]!.json.reward).toBe(1);
    expect(rs.slice(2).map((r) => r.json.reward)).toEqual(Array(8).fill(1));
  });

  test("/aggregate_metrics: symbolic_accuracy pass@k / majority@k with extracted_answer as the vote", async () => {
    await using s = await server({ should_use_judge: false });
    const rows = [
      { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, library_reward: 1, extracted_answer: "4", judge_evaluations: null },
      { _ng_task_index: 0, _ng_rollout_index: 1, reward: 0, library_reward: 0, extracted_answer: "5", judge_evaluations: null },
      { _ng_task_index: 1, _ng_rollout_index: 0, reward: 0, library_reward: 0, extracted_answer: null, judge_evaluations: null },
      { _ng_task_index: 1, _ng_rollout_index: 1, reward: 0, library_reward: 0, extracted_answer: "2", judge_evaluations: null },
    ];
    const r = await postJson(`${s.url.math}/aggregate_metrics`, { verify_responses: rows });
    const am = r.json.agent_metrics;
    expect(am["pass@2/symbolic_accuracy"]).toBe(50);
    expect(am["pass@1[avg-of-2]/symbolic_accuracy"]).toBe(25);
    expect(am["pass@1[avg-of-2]/no_answer"]).toBe(25);
    expect(am["judge_accuracy"]).toBeUndefined();
    expect(Object.keys(r.json.key_metrics).sort()).toEqual(["majority@2/symbolic_accuracy", "pass@1[avg-of-2]/no_answer", "pass@1[avg-of-2]/symbolic_accuracy", "pass@2/symbolic_accuracy"]);
  });
});
