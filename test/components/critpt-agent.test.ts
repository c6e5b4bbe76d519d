/** critpt_agent: two turns (solve, fill the template) against a scripted loopback model and a loopback CritPt-protocol resources server. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findBuiltin } from "../../src/components/registry.ts";
import { outputText } from "../../src/components/agents/_agent-calls.ts";
import { stripThinkingBlocks, turn2Params } from "../../src/verify/agents/critpt.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";
import { fakeRefs, fakeServer, message, REFS, responseWith, scriptedModel, type Answer } from "./_loop-fakes.ts";

type Obj = Record<string, any>;
let turn1Text = "The answer is 1.23";
let modelFailAt = 0;
const model = scriptedModel((n, body): Answer => {
  if (modelFailAt && n >= modelFailAt) return { status: 400, body: { error: "model exploded" } };
  const isTurn2 = body.input.length > 2;
  return responseWith([message(isTurn2 ? "```python\ndef solve():\n    return 1.23\n```" : turn1Text)]);
});
let verifyStatus = 200;
const res = fakeServer((path, body): Answer => {
  if (path === "/seed_session") return {};
  if (path === "/verify") return verifyStatus === 200 ? { ...body, reward: body.response.output[0].content[0].text.includes("1.23") ? 1.0 : 0.0 } : { status: verifyStatus, body: { detail: "verify failed" } };
  return { status: 404, body: { detail: "Not Found" } };
});

let stack: Stack;
beforeAll(async () => {
  stack = await startStack([{ name: "agent", serverType: "responses_api_agents", impl: "critpt_agent", leaf: { ...REFS, turn2_prompt_fpath: "benchmarks/critpt/prompts/turn2.yaml" } }], fakeRefs(model, res));
});
afterAll(async () => {
  await stack.stop();
  model.stop();
  res.stop();
});

const row = (extra: Obj = {}) => ({ responses_create_params: { input: [{ role: "system", content: "You are a physicist." }, { role: "user", content: "Compute x." }] }, problem_id: "5", code_template: "def solve():\n    return ???", ...extra });
function reset() {
  model.seen.length = 0;
  res.seen.length = 0;
  turn1Text = "The answer is 1.23";
  modelFailAt = 0;
  verifyStatus = 200;
}

describe("critpt_agent helpers (upstream tests as data)", () => {
  const strip: [string, string, string][] = [
    ["a think block", "<think>reasoning here</think>Final Answer: 42", "Final Answer: 42"],
    ["the <thinking> variant", "<thinking>blah</thinking>answer", "answer"],
    ["a multi-line block", "<think>\nline one\nline two\n</think>\nFinal Answer: 42", "Final Answer: 42"],
    ["several blocks", "<think>a</think>middle\n<thinking>b</thinking>conclusion", "middle\nconclusion"],
    ["no tags: unchanged", "Final Answer: 42", "Final Answer: 42"],
    ["an unclosed tag is left intact", "<think>partial reasoning", "<think>partial reasoning"],
  ];
  for (const [name, input, want] of strip) test(`strip: ${name}`, () => expect(stripThinkingBlocks(input)).toBe(want));

  const texts: [string, Obj, string][] = [
    ["one message, parts joined", { output: [{ type: "message", content: [{ type: "output_text", text: "Hello " }, { type: "output_text", text: "world" }] }] }, "Hello world"],
    ["non-message items skipped", { output: [{ type: "function_call", content: [] }, { type: "message", content: [{ type: "output_text", text: "Answer" }] }] }, "Answer"],
    ["empty output", { output: [] }, ""],
  ];
  for (const [name, resp, want] of texts) test(`output text: ${name}`, () => expect(outputText(resp)).toBe(want));

  test("turn-2 params extend the conversation and keep the other keys", () => {
    expect(turn2Params({ input: "q", temperature: 0.5 }, "a1", "fill")).toEqual({ input: [{ role: "user", content: "q" }, { role: "assistant", content: "a1" }, { role: "user", content: "fill" }], temperature: 0.5 });
  });
});

describe("critpt_agent over loopback servers", () => {
  test("run: seed → turn 1 → turn 2 → verify; reward from verify (upstream test_run_correct)", async () => {
    reset();
    const r = await postJson(`${stack.url.agent}/run`, row());
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(1.0);
    expect(model.seen).toHaveLength(2);
    expect(res.seen.map((s) => s.path)).toEqual(["/seed_session", "/verify"]);
  });

  test("turn 2 sees [system, user, assistant(turn 1), user(filled template)] (upstream test_run_turn2_messages_include_turn1_response)", async () => {
    reset();
    await postJson(`${stack.url.agent}/run`, row());
    const msgs = model.bodies()[1]!.input as Obj[];
    expect(msgs).toHaveLength(4);
    expect(msgs[2]).toEqual({ role: "assistant", content: "The answer is 1.23" });
    expect(msgs[3]!.role).toBe("user");
    // The shipped turn-2 template, filled with the row's code_template.
    expect(msgs[3]!.content).toContain("def solve():\n    return ???");
    expect(msgs[3]!.content).toContain("Populate your final answer");
    expect(msgs[3]!.content).toContain("No additional reasoning");
    expect(msgs[3]!.content).toContain("```python");
  });

  test("turn 1's reasoning is stripped before turn 2 (upstream test_run_strips_thinking_from_turn1_before_turn2)", async () => {
    reset();
    turn1Text = "<think>I need to compute this...</think>Final Answer: 1.23";
    await postJson(`${stack.url.agent}/run`, row());
    expect(model.bodies()[1]!.input[2].content).toBe("Final Answer: 1.23");
  });

  test("verify gets the row (problem_id) and turn 2's answer (upstream test_run_verify_called_with_problem_id)", async () => {
    reset();
    await postJson(`${stack.url.agent}/run`, row({ problem_id: "42" }));
    const v = res.seen.find((s) => s.path === "/verify")!.body;
    expect(v.problem_id).toBe("42");
    expect(v.response.output[0].content[0].text).toContain("```python");
  });

  test("/v1/responses forwards to the model as is", async () => {
    reset();
    const r = await postJson(`${stack.url.agent}/v1/responses`, { input: "hi" });
    expect(r.status).toBe(200);
    expect(model.bodies()[0]!.input).toBe("hi");
  });

  const bad: [string, Obj][] = [
    ["no code_template", { responses_create_params: { input: [] }, problem_id: "1" }],
    ["no problem_id", { responses_create_params: { input: [] }, code_template: "x" }],
    ["code_template not a string", { responses_create_params: { input: [] }, problem_id: "1", code_template: 3 }],
  ];
  for (const [name, body] of bad) {
    test(`bad row: ${name} → 422, nothing called`, async () => {
      reset();
      const r = await postJson(`${stack.url.agent}/run`, body);
      expect(r.status).toBe(422);
      expect(model.seen).toHaveLength(0);
      expect(res.seen).toHaveLength(0);
    });
  }

  test("a model failing (400) on turn 2 → a 500 naming the inner failure; no verify", async () => {
    reset();
    modelFailAt = 2;
    const r = await postJson(`${stack.url.agent}/run`, row());
    expect(r.status).toBe(500);
    expect(r.text).toContain("model exploded");
    expect(res.seen.map((s) => s.path)).toEqual(["/seed_session"]);
  });

  test("a resources server failing verify (400) → a 500 naming it", async () => {
    reset();
    verifyStatus = 400;
    const r = await postJson(`${stack.url.agent}/run`, row());
    expect(r.status).toBe(500);
    expect(r.text).toContain("verify failed");
  });

  test("config: turn2_prompt_fpath missing or unreadable is a config error naming the key", async () => {
    const comp = (await findBuiltin("responses_api_agents", "critpt_agent"))!;
    expect(() => comp.checkConfig!({ instanceName: "a", config: { ...REFS } })).toThrow(/turn2_prompt_fpath/);
    await expect(comp.create({ instanceName: "a", config: { ...REFS, turn2_prompt_fpath: "nope/turn2.yaml", name: "a" }, globalConfig: {} })).rejects.toThrow(/turn2_prompt_fpath/);
  });
});

describe("upstream's critpt example rows (resources_servers/critpt/data/example.jsonl, kept as a fixture)", () => {
  const rows = readFileSync(join(import.meta.dir, "../fixtures/loop-agents/critpt_example.jsonl"), "utf8").trim().split("\n").map((l: string) => JSON.parse(l)) as Obj[];
  for (const row of rows) {
    test(`${row.problem_id}: turn 2 carries the row's code template; verify gets the row`, async () => {
      reset();
      const r = await postJson(`${stack.url.agent}/run`, row);
      expect(r.status).toBe(200);
      const turn2 = model.bodies()[1]!.input as Obj[];
      expect(turn2.length).toBe(row.responses_create_params.input.length + 2);
      expect(turn2.at(-1)!.content).toContain(row.code_template);
      expect(res.seen.find((s) => s.path === "/verify")!.body.problem_id).toBe(row.problem_id);
    });
  }
});
