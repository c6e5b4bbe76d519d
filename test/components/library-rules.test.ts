/** The rule-based library servers over HTTP: tools, verify fields, bad input as 422s, config errors. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { findBuiltin } from "../../src/components/registry.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

let stack: Stack;
const SERVERS = ["example_tool_call_multireward", "xlam_fc", "calendar", "math_advanced_calculations", "arc_agi", "circle_click", "circle_count"];
beforeAll(async () => {
  stack = await startStack([
    ...SERVERS.map((s) => ({ name: s, serverType: "resources_servers" as const, impl: s })),
    { name: "eq_exact", serverType: "resources_servers", impl: "equivalence_rule" },
    { name: "eq_seq", serverType: "resources_servers", impl: "equivalence_rule", leaf: { grading_rule: "seq_match" } },
  ]);
});
afterAll(async () => stack.stop());

const msg = (text: string) => ({ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const body = (output: unknown[], extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: "Q?" }] },
  response: { id: "r", created_at: 0, model: "m", object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools: [] },
  ...extra,
});

describe("tools", () => {
  test("get_weather answers sunny; click echoes any x / y and needs both", async () => {
    expect((await postJson(`${stack.url.example_tool_call_multireward}/get_weather`, { city: "Oslo" })).json).toEqual({ city: "Oslo", weather_description: "The weather in Oslo is sunny." });
    expect((await postJson(`${stack.url.circle_click}/click`, { x: "12", y: [1] })).json).toEqual({ x: "12", y: [1] });
    expect((await postJson(`${stack.url.circle_click}/click`, { x: 1 })).status).toBe(422);
  });

  test("math tools: altered arithmetic, Python's errors as 500s with the message, unknown tools 404", async () => {
    expect((await postJson(`${stack.url.math_advanced_calculations}/add`, { a: 1, b: 2 })).json).toEqual({ solution: 4.2 });
    expect((await postJson(`${stack.url.math_advanced_calculations}/pi`, {})).json.solution).toBeCloseTo(Math.E, 15);
    expect((await postJson(`${stack.url.math_advanced_calculations}/add`, { a: 1, b: null })).status).toBe(500);
    const div = await postJson(`${stack.url.math_advanced_calculations}/divide`, { a: 1, b: 0 });
    expect([div.status, div.text]).toEqual([500, expect.stringContaining("float division by zero")]);
    expect((await postJson(`${stack.url.math_advanced_calculations}/add`, { a: "x", b: 1 })).status).toBe(422);
    expect((await postJson(`${stack.url.math_advanced_calculations}/sqrt`, { a: 4 })).status).toBe(404);
  });
});

describe("verify", () => {
  test("fields each server adds to the verify response", async () => {
    const fc = (name: string, args: unknown) => ({ id: "f", type: "function_call", call_id: "c", name, arguments: JSON.stringify(args), status: "completed" });
    const x = (await postJson(`${stack.url.xlam_fc}/verify`, body([fc("f", { a: 1 })], { expected_answers: [{ name: "f", arguments: { a: 1 } }] }))).json;
    expect(x).toMatchObject({ reward: 1, num_expected: 1, num_predicted: 1, num_correct: 1, predicted_calls: [{ name: "f", arguments: { a: 1 } }] });
    const m = (await postJson(`${stack.url.example_tool_call_multireward}/verify`, body([fc("get_weather", { city: "SF" })], { expected_call: { name: "get_weather", arguments: { city: "SF" } } }))).json;
    expect(m).toMatchObject({ reward: 3, reward_components: { correctness: 1, schema_valid: 1, format: 1 } });
    const a = (await postJson(`${stack.url.arc_agi}/verify`, body([msg("\\boxed{[[1]]}")], { expected_output: [[1]] }))).json;
    expect(a).toMatchObject({ reward: 1, predicted_output: [[1]], extraction_successful: true, expected_output: [[1]] });
    const c = (await postJson(`${stack.url.circle_count}/verify`, body([msg("\\boxed{1}")], { circles: [{ x: 1, y: 1, radius: 1, color: "red" }], target_color: "red" }))).json;
    expect(c).toMatchObject({ reward: 1, predicted_count: 1, expected_count: 1, correct: true });
  });

  test("calendar reads the last output item only; a reasoning-only end is 0", async () => {
    const exp = { 0: { event_id: 0, duration: 60, constraint: null, min_time: "10:00", max_time: "16:00" } };
    const good = '[{"event_id": 0, "start_time": "2pm", "duration": 60}]';
    expect((await postJson(`${stack.url.calendar}/verify`, body([msg(good)], { exp_cal_state: exp }))).json.reward).toBe(1);
    expect((await postJson(`${stack.url.calendar}/verify`, body([msg(good), { type: "reasoning", id: "r", summary: [] }], { exp_cal_state: exp }))).json.reward).toBe(0);
  });

  test("equivalence_rule: the configured rule, the row echoed", async () => {
    const r = (await postJson(`${stack.url.eq_seq}/verify`, body([msg("hello world")], { expected_answer: "hello", question: "q1" }))).json;
    expect(r).toMatchObject({ reward: 0.625, equivalence_score: 0.625, question: "q1", expected_answer: "hello" });
    expect((await postJson(`${stack.url.eq_exact}/verify`, body([msg(" HELLO ")], { expected_answer: "hello" }))).json.reward).toBe(1);
  });

  test.each([
    ["calendar", { exp_cal_state: "x" }],
    ["calendar", {}],
    ["eq_exact", {}],
    ["eq_exact", { expected_answer: 3 }],
    ["arc_agi", { expected_output: [[1.5]] }],
    ["math_advanced_calculations", { ground_truth: "[1]", id: 0, depth: 1 }],
    ["math_advanced_calculations", { ground_truth: "not json", id: 0, depth: 1, breadth: 1 }],
    ["xlam_fc", { expected_answers: "f" }],
    ["circle_click", { circles: [1] }],
    ["circle_count", { target_color: 3 }],
  ])("%s with %p is a 422 and the server keeps serving", async (server, extra) => {
    const r = await postJson(`${stack.url[server]}/verify`, body([msg("x")], extra));
    expect(r.status).toBe(422);
    expect((await postJson(`${stack.url.eq_exact}/verify`, body([msg("a")], { expected_answer: "a" }))).json.reward).toBe(1);
  });

  test("a grading_rule that does not exist is a config error naming the key", async () => {
    const comp = (await findBuiltin("resources_servers", "equivalence_rule"))!;
    expect(() => comp.checkConfig!({ instanceName: "lc_equivalence_rule", config: { grading_rule: "fuzzy" } })).toThrow(/grading_rule "fuzzy" is not one of seq_match, weighted_seq_match, exact/);
  });
});
