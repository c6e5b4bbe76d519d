import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { finalResponseText, gradeInstructionFollowing } from "../../src/components/resources/instruction-following.ts";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

const ASSET = join(import.meta.dir, "..", "..", "assets", "resources_servers", "instruction_following");

function response(text: string, extraOutput: unknown[] = []) {
  return {
    id: "resp_test",
    created_at: 0,
    model: "dummy",
    object: "response",
    output: [...extraOutput, { id: "msg_test", content: [{ annotations: [], text, type: "output_text" }], role: "assistant", status: "completed", type: "message" }],
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
  };
}

function body(ids: string[], kwargs: unknown[], text: string, grading_mode?: string) {
  return {
    id: 1,
    responses_create_params: { input: [{ role: "user", content: "prompt" }] },
    response: response(text),
    verifier_metadata: { instruction_id_list: ids, prompt: "prompt", kwargs, ...(grading_mode ? { grading_mode } : {}) },
  };
}

// Upstream's tests/test_app.py cases: (ids, kwargs, text, mode) → (follow_all, reward, list).
const UPSTREAM_CASES: [string[], unknown[], string, string | undefined, boolean, number, boolean[]][] = [
  [["detectable_format:title"], [{}], "<<My Title>>\n\nThis is the content of my response.", undefined, true, 1, [true]],
  [["detectable_format:title"], [{}], "This response has no title.", undefined, false, 0, [false]],
  [["punctuation:no_comma"], [{}], "Hello world without commas at all", undefined, true, 1, [true]],
  [["punctuation:no_comma"], [{}], "Hello, world with commas", undefined, false, 0, [false]],
  [["length_constraints:number_words"], [{ num_words: 6, relation: "at least" }], "This response has exactly six words.", undefined, true, 1, [true]],
  [["length_constraints:number_words"], [{ num_words: 10, relation: "at least" }], "Too short.", undefined, false, 0, [false]],
  [["detectable_format:title", "punctuation:no_comma"], [{}, {}], "<<My Great Title>>\n\nThis is a response without any commas at all.", undefined, true, 1, [true, true]],
  [["detectable_format:title", "punctuation:no_comma"], [{}, {}], "<<My Great Title>>\n\nThis response has commas, which should fail.", undefined, false, 0, [true, false]],
  [["detectable_format:title", "punctuation:no_comma"], [{}, {}], "<<My Great Title>>\n\n with a comma here, okay.", "fraction", false, 0.5, [true, false]],
];

describe("instruction_following grading (upstream test_app.py cases)", () => {
  test.each(UPSTREAM_CASES.map((c, i) => [i, ...c] as const))("#%d", (_i, ids, kwargs, text, mode, all, reward, list) => {
    expect(gradeInstructionFollowing(body(ids, kwargs, text, mode))).toMatchObject({ follow_all_instructions: all, reward, follow_instruction_list: list });
  });

  test("legacy rows with the verifier fields at the top level are migrated; explicit verifier_metadata wins", () => {
    const legacy = { id: 1, instruction_id_list: ["detectable_format:title", "punctuation:no_comma"], prompt: "p", kwargs: [{}, {}], grading_mode: "fraction", responses_create_params: {}, response: response("<<T>>\n\n with a comma here, okay.") };
    expect(gradeInstructionFollowing(legacy)).toMatchObject({ reward: 0.5, verifier_metadata: { instruction_id_list: ["detectable_format:title", "punctuation:no_comma"], grading_mode: "fraction" } });
    const both = { ...body(["detectable_format:title"], [{}], "<<My Title>>\n\nbody"), instruction_id_list: ["punctuation:no_comma"], kwargs: [{}] };
    expect(gradeInstructionFollowing(both)).toMatchObject({ reward: 1, follow_instruction_list: [true] });
  });

  test("text is the last output item's first content part only", () => {
    const r = response("final, answer", [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "<<Title>> earlier" }] }]);
    expect(finalResponseText(r)).toBe("final, answer");
    const two = { output: [{ type: "message", content: [{ type: "output_text", text: "first" }, { type: "output_text", text: "second" }] }] };
    expect(finalResponseText(two)).toBe("first");
  });

  test("no output, a function call last, or a refusal part: graded as empty text, no crash", () => {
    expect(finalResponseText({ output: [] })).toBe("");
    expect(finalResponseText({})).toBe("");
    expect(finalResponseText({ output: [{ type: "function_call", name: "f", arguments: "{}", call_id: "c" }] })).toBe("");
    expect(finalResponseText({ output: [{ type: "message", content: [{ type: "refusal", refusal: "no" }] }] })).toBe("");
    const b = { ...body(["punctuation:no_comma", "detectable_format:title"], [null, null], ""), response: { output: [] } };
    expect(gradeInstructionFollowing(b)).toMatchObject({ reward: 0, follow_instruction_list: [true, false] });
  });

  test("a 1 MB answer is graded by the heavy checks (Punkt, Treebank, langdetect) without error", () => {
    const para = "The quick brown fox jumps over the lazy dog. Mr. Smith paid $3.50, didn't he? ";
    const big = para.repeat(Math.ceil(1_000_000 / para.length));
    const ids = ["length_constraints:number_sentences", "length_constraints:number_words", "change_case:capital_word_frequency", "language:response_language", "count:count_unique", "keywords:start_end"];
    const kwargs = [{ num_sentences: 10, relation: "at least" }, { num_words: 100, relation: "at least" }, { capital_frequency: 1, capital_relation: "at least" }, { language: "en" }, null, null];
    const v = gradeInstructionFollowing(body(ids, kwargs, big, "fraction"));
    expect(v.follow_instruction_list).toEqual([true, true, false, true, false, false]);
  }, 120_000);
});

describe("instruction_following over HTTP", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ name: "if", serverType: "resources_servers", impl: "instruction_following", leaf: { domain: "instruction_following" } }]);
  });
  afterAll(async () => {
    await stack.stop();
  });

  test("verify echoes the request, adds reward and the two follow fields", async () => {
    const r = await postJson(`${stack.url.if}/verify`, body(["detectable_format:title"], [null], "<<T>> x"));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: 1, reward: 1, follow_all_instructions: true, follow_instruction_list: [true], verifier_metadata: { instruction_id_list: ["detectable_format:title"] } });
    expect(await (await fetch(`${stack.url.if}/reverify_mode`)).json()).toBe("stateless");
  });

  test("missing verifier fields: 422 naming them; a bad grading_mode: 500 naming the server", async () => {
    const missing = await postJson(`${stack.url.if}/verify`, { id: 1, responses_create_params: {}, response: response("x"), verifier_metadata: { prompt: "p" } });
    expect(missing.status).toBe(422);
    expect(JSON.stringify(missing.json)).toContain("verifier_metadata is missing required fields: ['instruction_id_list', 'kwargs']");
    const noId = await postJson(`${stack.url.if}/verify`, { ...body(["punctuation:no_comma"], [null], "x"), id: undefined });
    expect(noId.status).toBe(422);
    const mode = await postJson(`${stack.url.if}/verify`, body(["punctuation:no_comma"], [null], "x", "strict"));
    expect(mode.status).toBe(500);
    expect(JSON.stringify(mode.json)).toContain("InstructionFollowingResourcesServer___if: Invalid grading_mode");
  });

  test("unknown ids and wrong-typed kwargs fail that instruction only", async () => {
    const r = await postJson(`${stack.url.if}/verify`, body(["nope:nope", "length_constraints:number_words", "punctuation:no_comma"], [null, { num_words: "many" }, null], "no commas"));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ reward: 0, follow_instruction_list: [false, false, true] });
  });
});

describe("gym eval reverify of upstream's recorded example rollouts", () => {
  test("reproduces every recorded reward and follow list", async () => {
    await using dir = await tempDir();
    // The recording predates `id` and agent_ref: add them (id joined from example.jsonl by prompt).
    const examples = readJsonl(join(ASSET, "data", "example.jsonl"));
    const idByPrompt = new Map(examples.map((e) => [e.responses_create_params.input[0].content, e.id]));
    const recorded = readFileSync(join(ASSET, "data", "example_rollouts.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const rows = recorded.map((r, i) => ({ ...r, id: idByPrompt.get(r.responses_create_params.input[0].content), agent_ref: { type: "responses_api_agents", name: "instruction_following_simple_agent" }, _ng_task_index: i, _ng_rollout_index: 0 }));
    writeFileSync(join(dir.path, "rollouts.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const rv = await runGym(["eval", "reverify", "--resources-server", "instruction_following", "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", "rollouts.jsonl", "-o", "rv.jsonl"], { cwd: dir.path });
    expect(rv.code).toBe(0);
    const out = new Map(readJsonl(join(dir.path, "rv.jsonl")).map((r) => [r._ng_task_index, r]));
    expect(out.size).toBe(5);
    for (const r of rows) {
      expect(out.get(r._ng_task_index)!.reward).toBe(r.reward);
      expect(out.get(r._ng_task_index)!.follow_instruction_list).toEqual(r.follow_instruction_list);
    }
  }, 120_000);
});
