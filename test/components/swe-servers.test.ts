/**
 * swerl_llm_judge, swe_pivot and terminal_multi_harness over HTTP: verify fields and echoes as upstream's
 * response models give them, upstream's tests/test_app.py cases, bad bodies as 422s, bad configs as errors.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findBuiltin } from "../../src/components/registry.ts";
import { ConfigError } from "../../src/errors.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

type Any = any;
const TMH: { tool_sets: unknown[][]; verify: Any[] } = JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "swe", "terminal-multi-harness-cases.json"), "utf8"));

let stack: Stack;
beforeAll(async () => {
  stack = await startStack([
    { name: "swerl", serverType: "resources_servers", impl: "swerl_llm_judge" },
    { name: "pivot", serverType: "resources_servers", impl: "swe_pivot" },
    { name: "pivot_cont", serverType: "resources_servers", impl: "swe_pivot", leaf: { reward_mode: "continuous", enable_target_match: false } },
    { name: "tmh", serverType: "resources_servers", impl: "terminal_multi_harness", leaf: { tool_call_comparator_config: { string_similarity_threshold: 0.9, query_string_similarity_threshold: 0.8 } } },
  ]);
});
afterAll(async () => stack.stop());

const msg = (text: string) => ({ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const fc = (name: string, args: unknown) => ({ id: "f", type: "function_call", call_id: "c", name, arguments: typeof args === "string" ? args : JSON.stringify(args), status: "completed" });
const body = (output: unknown[], extra: Record<string, unknown> = {}, rcp: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: "Q?" }], ...rcp },
  response: { id: "r", created_at: 0, model: "m", object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools: [] },
  ...extra,
});
const OPTIONS = [{ A: "optA" }, { B: "optB" }, { C: "optC" }, { D: "optD" }];

describe("swerl_llm_judge", () => {
  test("verify answers reward, expected_answer and extracted_answer only (upstream's response model)", async () => {
    const r = await postJson(`${stack.url.swerl}/verify`, body([msg("<solution>Answer: C</solution>")], { options: OPTIONS, expected_answer: "C", instance_id: "i", metadata: { k: 1 } }));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ reward: 1, expected_answer: "C", extracted_answer: "C" });
    expect(r.json.instance_id).toBeUndefined();
    expect(r.json.options).toBeUndefined();
    const strict = await postJson(`${stack.url.swerl}/verify`, body([msg("<solution>Answer: C</solution>")], { options: OPTIONS, expected_answer: "C", grading_mode: "strict" }));
    expect(strict.json).toMatchObject({ reward: 0, extracted_answer: null });
  });
  test.each([
    ["an unknown grading mode", { grading_mode: "medium" }],
    ["options that are not a list of string maps", { options: [{ A: 1 }] }],
    ["a numeric expected answer", { expected_answer: 3 }],
    ["a list expected answer with a number", { expected_answer: ["A", 2] }],
  ])("422 on %s", async (_n, extra) => {
    const r = await postJson(`${stack.url.swerl}/verify`, body([msg("<solution>A</solution>")], { options: OPTIONS, expected_answer: "A", ...extra }));
    expect(r.status).toBe(422);
  });
  test("422 when the response is missing", async () => {
    expect((await postJson(`${stack.url.swerl}/verify`, { responses_create_params: { input: [] } })).status).toBe(422);
  });
});

describe("swe_pivot", () => {
  const expected = { type: "function_call", name: "str_replace_editor", arguments: JSON.stringify({ command: "str_replace", path: "/a/foo.py", old_str: "x", new_str: "y" }) };
  test("verify echoes uuid and metadata and names every level's outcome", async () => {
    const r = await postJson(`${stack.url.pivot}/verify`, body([fc("code_editor", { command: "str_replace", path: "/ws/a/foo.py", old_str: "x", new_str: "y" })], { uuid: 7, expected_action: expected, metadata: { category: "edit" }, pivot_tags: ["P1"] }));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ reward: 1, uuid: 7, expected_answer: "", tool_name_match: true, target_match: true, similarity_score: 1, diff_size_penalty: null, failure_reason: "none", metadata: { category: "edit" } });
    expect(r.json.model_output).toBe('code_editor({"command": "str_replace", "path": "/ws/a/foo.py", "old_str": "x", "new_str": "y"})');
    expect(r.json.pivot_tags).toBeUndefined();
  });
  test("continuous mode with target matching off: partial credit and the diff-size penalty", async () => {
    const r = await postJson(`${stack.url.pivot_cont}/verify`, body([fc("str_replace_editor", { command: "str_replace", path: "/elsewhere.py", old_str: "x", new_str: "y" })], { expected_action: expected }));
    expect(r.json).toMatchObject({ target_match: null, similarity_score: 1, failure_reason: "none" });
    expect(r.json.reward).toBeCloseTo(1 - 0.1 * (3 / 500), 12);
    expect(r.json.diff_size_penalty).toBeCloseTo(0.1 * (3 / 500), 12);
  });
  test("no expected action anywhere → expected_action_invalid; a message instead of a call → model_output_invalid", async () => {
    expect((await postJson(`${stack.url.pivot}/verify`, body([fc("bash", "{}")], {}))).json).toMatchObject({ reward: 0, failure_reason: "expected_action_invalid" });
    expect((await postJson(`${stack.url.pivot}/verify`, body([msg("hi")], { expected_action: expected }))).json).toMatchObject({ reward: 0, failure_reason: "model_output_invalid", model_output: "(no function_call in response)" });
  });
  test.each([
    ["expected_action not an object", { expected_action: "str_replace_editor" }],
    ["expected_answer not a string", { expected_answer: { type: "function_call" } }],
    ["a fractional uuid", { uuid: 1.5 }],
    ["metadata not an object", { metadata: [1] }],
  ])("422 on %s", async (_n, extra) => {
    expect((await postJson(`${stack.url.pivot}/verify`, body([fc("bash", "{}")], extra))).status).toBe(422);
  });
  test("a config value of the wrong type is a ConfigError naming the key", async () => {
    const comp = (await findBuiltin("resources_servers", "swe_pivot"))!;
    const err = await comp.create({ instanceName: "p", config: { similarity_threshold: "0.4" }, globalConfig: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err.message)).toContain("similarity_threshold");
  });
});

describe("terminal_multi_harness", () => {
  const restore = (req: Any) => ({
    ...req,
    declared_tools: req.declared_tools === null ? null : TMH.tool_sets[req.declared_tools],
    responses_create_params: { ...req.responses_create_params, tools: req.responses_create_params.tools ? TMH.tool_sets[req.responses_create_params.tools.tool_set] : undefined },
  });
  test.each(TMH.verify.map((c, i) => [i, c] as const))("upstream tests/test_app.py verify #%d", async (_i, c) => {
    const r = await postJson(`${stack.url.tmh}/verify`, restore(c.request));
    expect(r.status).toBe(200);
    const want = restore(c.response);
    for (const k of ["reward", "harness", "expected_action", "category", "declared_tools", "threshold", "similarity_score"]) expect([k, r.json[k]]).toEqual([k, want[k]]);
  });
  test("no action → NO_ACTION_FOUND with the row echoed; a batch's ordered defaults to true", async () => {
    const exp = { type: "function_call_batch", calls: [{ type: "function_call", name: "a", arguments: "{}" }] };
    const r = await postJson(`${stack.url.tmh}/verify`, body([{ type: "reasoning", id: "x", summary: [] }], { expected_action: exp }));
    expect(r.json).toMatchObject({ reward: 0, harness: "generic", category: "No tool call or chat message was found in the response", declared_tools: null, threshold: null, similarity_score: null });
    expect(r.json.expected_action).toEqual({ ...exp, ordered: true });
  });
  test("undecodable arguments score 0 (upstream answers 500 here)", async () => {
    const tools = [{ type: "function", name: "t", parameters: { type: "object", properties: {} } }];
    const r = await postJson(`${stack.url.tmh}/verify`, body([fc("t", "{oops")], { expected_action: { type: "function_call", name: "t", arguments: "{}" } }, { tools }));
    expect(r.json).toMatchObject({ reward: 0, category: "An error occurred when decoding the arguments string in a tool call as JSON" });
  });
  test.each([
    ["a missing expected_action", {}],
    ["an unknown action type", { expected_action: { type: "click", x: 1 } }],
    ["a call without arguments", { expected_action: { type: "function_call", name: "t" } }],
    ["a non-numeric threshold", { expected_action: { type: "message", content: "x" }, threshold: "high" }],
    ["declared_tools not a list", { expected_action: { type: "message", content: "x" }, declared_tools: { t: 1 } }],
  ])("422 on %s", async (_n, extra) => {
    expect((await postJson(`${stack.url.tmh}/verify`, body([msg("hi")], extra))).status).toBe(422);
  });
  test("tool_call_comparator_config is required and typed", async () => {
    const comp = (await findBuiltin("resources_servers", "terminal_multi_harness"))!;
    for (const config of [{}, { tool_call_comparator_config: { string_similarity_threshold: "0.9" } }, { tool_call_comparator_config: { string_similarity_threshold: 0.9, ignored_argument_keys_by_tool: { t: "x" } } }]) {
      const err = await comp.create({ instanceName: "t", config, globalConfig: {} }).catch((e) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect(String(err.message)).toContain("tool_call_comparator_config");
    }
  });
});
