/**
 * browsecomp_agent: the search loop and its context management against a scripted loopback model,
 * a loopback BrowseComp-protocol resources server (tools wrapped in `{"results_string": …}`) and a
 * loopback vLLM `/tokenize`. Upstream's six test files are the cases below.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { browsecompConfig } from "../../src/components/agents/browsecomp-agent.ts";
import { findBuiltin } from "../../src/components/registry.ts";
import { compactOldToolMessages, extractLastRounds, HIDDEN_TOOL_RESULT, lastMessageText, milestoneNudge, PROGRESS_TOOL, recoverBoardAnswer, resetThreshold, unwrapResultsString, withoutThink } from "../../src/verify/agents/browsecomp-context.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";
import { fakeServer, functionCall, message, REFS, responseWith, scriptedModel, usage, type Answer } from "./_loop-fakes.ts";

type Obj = Record<string, any>;
const SYSTEM = { role: "system", content: "BASE SYSTEM PROMPT." };
const USER = { role: "user", content: "Q?" };
const snapRoot = mkdtempSync(join(tmpdir(), "gym-browsecomp-"));

/** The model answers from a queue; an exhausted queue is a 400 (a test asking for more than it scripted fails loudly). */
let queue: Answer[] = [];
const model = scriptedModel(() => queue.shift() ?? { status: 400, body: { error: "script exhausted" } });
let toolAnswer: (path: string, body: Obj) => Answer = () => ({ results_string: "tool result" });
let verifyStatus = 200;
let reward = 1.0;
const res = fakeServer((path, body): Answer => {
  if (path === "/seed_session") return {};
  if (path === "/verify") return verifyStatus === 200 ? { ...body, reward } : { status: verifyStatus, body: { detail: "Internal Server Error" } };
  if (path === "/aggregate_metrics") return { group_level_metrics: [], agent_metrics: {}, key_metrics: { "mean/reward": 1 } };
  return toolAnswer(path, body);
});
let tokenCounts: number[] = [];
const tokenizer = fakeServer((path) => (path === "/tokenize" ? { tokens: Array(tokenCounts.shift() ?? 0).fill(1) } : { status: 404, body: {} }));
// A resources server that is gone: bound while the stack starts (so no later server takes its port), then stopped.
const gone = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
const deadPort = gone.port;

const NO_NUDGE = { nudge_steps: false };
const agents: Record<string, Obj> = {
  base: { ...NO_NUDGE },
  max2: { ...NO_NUDGE, max_steps: 2 },
  nudges: { max_steps: 8 },
  keep1: { ...NO_NUDGE, keep_rounds: 1 },
  progress: { ...NO_NUDGE, progress: true },
  progress_max2: { ...NO_NUDGE, progress: true, max_steps: 2 },
  progress_reset: { ...NO_NUDGE, progress: true, context_reset_tokens: 1000, max_reset_count: 1 },
  progress_reset_k3: { ...NO_NUDGE, progress: true, context_reset_tokens: 1000, context_reset_keep_rounds: 3 },
  progress_plain_thr: { ...NO_NUDGE, progress: true, context_reset_tokens: 1000 },
  reset_plain: { ...NO_NUDGE, context_reset_tokens: 1000 },
  reset_capped: { ...NO_NUDGE, context_reset_tokens: 1000, max_reset_count: 1 },
  snap: { ...NO_NUDGE, snap_dir: snapRoot, context_reset_tokens: 1, context_reset_keep_rounds: 0 },
  tokenize: { ...NO_NUDGE, progress: true, context_reset_tokens: 1000, context_reset_keep_rounds: 3, save_model_call_using_vllm_tokenize_endpoint: true },
  retry2: { ...NO_NUDGE, max_run_retries: 2 },
  dead_tools: { ...NO_NUDGE, resources_server: { type: "resources_servers", name: "dead" } },
};

let stack: Stack;
beforeAll(async () => {
  stack = await startStack(
    Object.entries(agents).map(([name, leaf]) => ({ name, serverType: "responses_api_agents" as const, impl: "browsecomp_agent", leaf: { ...REFS, ...leaf } })),
    {
      policy: { responses_api_models: { fake: { host: "127.0.0.1", port: model.port, base_url: `http://127.0.0.1:${tokenizer.port}/v1`, api_key: "k" } } },
      res: { resources_servers: { fake: { host: "127.0.0.1", port: res.port } } },
      dead: { resources_servers: { fake: { host: "127.0.0.1", port: deadPort } } },
      request_retry_budget_seconds: 0.2,
    },
  );
  gone.stop(true);
});
afterAll(async () => {
  await stack.stop();
  model.stop();
  res.stop();
  tokenizer.stop();
  rmSync(snapRoot, { recursive: true, force: true });
});

function reset(answers: Answer[]) {
  model.seen.length = 0;
  res.seen.length = 0;
  tokenizer.seen.length = 0;
  queue = [...answers];
  toolAnswer = () => ({ results_string: "tool result" });
  verifyStatus = 200;
  reward = 1.0;
}
const turn = (output: Obj[], inputTokens = 0) => responseWith(output, { usage: usage(inputTokens, 0) });
const progressCall = (board: string, id: string) => functionCall("update_progress", { board }, id);
const ask = async (agent: string, input: Obj[] = [SYSTEM, USER], extra: Obj = {}) => {
  const r = await postJson(`${stack.url[agent]}/v1/responses`, { input, ...extra });
  expect(r.status).toBe(200);
  return r.json as Obj;
};
const toolOutputs = (r: Obj): string[] => r.output.filter((o: Obj) => o.type === "function_call_output").map((o: Obj) => o.output);
const toolPaths = () => res.seen.map((s) => s.path).filter((p) => !["/seed_session", "/verify"].includes(p));
const sys = (i: number) => model.bodies()[i === -1 ? model.bodies().length - 1 : i]!.input[0].content as string;

describe("context helpers (upstream test_app cases as data)", () => {
  test("config defaults", () => {
    expect(browsecompConfig({ instanceName: "a", config: { ...REFS } })).toMatchObject({ maxSteps: 400, keepRounds: 9999, nudgeSteps: true, maxContextTokens: 196608, contextResetPct: 0.3, contextResetTokens: 0, contextResetKeepRounds: 3, maxRunRetries: 1, progress: false, maxResetCount: null, snapDir: null });
  });
  const thresholds: [string, Obj, number][] = [
    ["pct fallback", { contextResetTokens: 0, maxContextTokens: 196608, contextResetPct: 0.3 }, 58982],
    ["absolute overrides pct", { contextResetTokens: 50000, maxContextTokens: 196608, contextResetPct: 0.3 }, 50000],
    ["disabled", { contextResetTokens: 0, maxContextTokens: 0, contextResetPct: 0.3 }, 0],
  ];
  for (const [name, c, want] of thresholds) test(`reset threshold: ${name}`, () => expect(resetThreshold(c as any)).toBe(want));

  const out = (id: string, text: string) => ({ type: "function_call_output", call_id: id, output: text });
  test("compaction: nothing to hide at keep_rounds = count", () => expect(compactOldToolMessages([out("c1", "result 1"), out("c2", "result 2")], 2).map((m) => m.output)).toEqual(["result 1", "result 2"]));
  test("compaction: all but the last keep_rounds hidden, inputs untouched", () => {
    const xs = [out("c1", "result 1"), out("c2", "result 2"), out("c3", "result 3")];
    expect(compactOldToolMessages(xs, 1).map((m) => m.output)).toEqual([HIDDEN_TOOL_RESULT, HIDDEN_TOOL_RESULT, "result 3"]);
    expect(xs[0]!.output).toBe("result 1");
  });
  test("compaction: other items unaffected", () => {
    const r = compactOldToolMessages([message("some text"), out("c1", "old result"), out("c2", "new result")], 1);
    expect((r[0] as Obj).content[0].text).toBe("some text");
    expect(r.slice(1).map((m) => m.output)).toEqual([HIDDEN_TOOL_RESULT, "new result"]);
  });
  const fc = (name: string, id: string) => functionCall(name, {}, id);
  test("last rounds: empty, zero, one, two", () => {
    expect(extractLastRounds([], 2)).toEqual([]);
    expect(extractLastRounds([fc("search", "c1"), out("c1", "r")], 0)).toEqual([]);
    const one = extractLastRounds([fc("search", "c1"), out("c1", "old"), fc("browse", "c2"), out("c2", "new")], 1);
    expect([one.length, one[0]!.name, one[1]!.output]).toEqual([2, "browse", "new"]);
    const two = extractLastRounds([fc("search", "c1"), out("c1", "r1"), fc("browse", "c2"), out("c2", "r2"), fc("search", "c3"), out("c3", "r3")], 2);
    expect([two.length, two[0]!.name, two[2]!.name]).toEqual([4, "browse", "search"]);
  });
  test("last message text: the last content-bearing message, past a trailing tool call", () => {
    expect(lastMessageText([message("Exact Answer: Paris")])).toBe("Exact Answer: Paris");
    const think = [message("Exact Answer: Paris", "m1"), fc("search", "c1"), message("<think>still reasoning</think>", "m2")];
    expect(lastMessageText(think)).toBe("<think>still reasoning</think>");
    expect(withoutThink(lastMessageText(think))).toBe("");
    expect(lastMessageText([message("Exact Answer: Paris", "m1"), fc("search", "c1")])).toBe("Exact Answer: Paris");
  });
  test("milestones at a quarter, half and 87.5 % of max_steps", () => {
    const notes = [1, 2, 3, 4, 5, 6, 7, 8].map((s) => milestoneNudge(s, 8));
    expect(notes.map((n) => n !== undefined)).toEqual([false, true, false, true, false, false, true, false]);
    expect(notes[1]).toStartWith("\n\n\n\n\n[SYSTEM NOTE: You have used 2 out of 8 turns.");
    expect(notes[3]).toContain("You have used 4 out of 8 turns — you are halfway");
    expect(notes[6]).toContain("[SYSTEM NOTE: URGENT — You have used 7 out of 8 turns.");
  });
  const unwraps: [string, string][] = [
    ['{"results_string": "a\\nb"}', "a\nb"],
    ['{"results_string": "a", "x": 1}', '{"results_string": "a", "x": 1}'],
    ['{"detail": "Not Found"}', '{"detail": "Not Found"}'],
    ["plain text", "plain text"],
  ];
  for (const [raw, want] of unwraps) test(`tool output shown as: ${raw}`, () => expect(unwrapResultsString(raw)).toBe(want));
  test("the progress tool frames a ledger, not the final answer", () => {
    expect(String(PROGRESS_TOOL.description).toLowerCase()).toContain("final answer");
    expect(String(PROGRESS_TOOL.description).toLowerCase()).toContain("ruled-out");
  });
  test("board answer recovery is inert when the last message commits", () => {
    const full = [message("Exact Answer: Bar")];
    expect(recoverBoardAnswer(full, "ANSWER: Foo")).toBe(full);
  });
  const badLeaves: [string, Obj][] = [
    ["max_steps not an integer", { max_steps: 2.5 }],
    ["keep_rounds negative", { keep_rounds: -1 }],
    ["max_run_retries 0", { max_run_retries: 0 }],
    ["context_reset_pct a word", { context_reset_pct: "lots" }],
  ];
  for (const [name, leaf] of badLeaves) {
    test(`bad leaf: ${name} → config error naming the key`, async () => {
      const comp = (await findBuiltin("responses_api_agents", "browsecomp_agent"))!;
      expect(() => comp.checkConfig!({ instanceName: "a", config: { ...REFS, ...leaf } })).toThrow(Object.keys(leaf)[0]);
    });
  }
  test("the /tokenize path on a model server without base_url is a config error naming the key", async () => {
    const comp = (await findBuiltin("responses_api_agents", "browsecomp_agent"))!;
    const globalConfig = { policy: { responses_api_models: { scripted_model: { entrypoint: "app.py" } } } };
    await expect(comp.create({ instanceName: "a", config: { ...REFS, name: "a", save_model_call_using_vllm_tokenize_endpoint: true }, globalConfig })).rejects.toThrow(/save_model_call_using_vllm_tokenize_endpoint needs the model server policy to have a base_url/);
  });

  test("the shipped config needs its resources_server named", async () => {
    const comp = (await findBuiltin("responses_api_agents", "browsecomp_agent"))!;
    expect(() => comp.checkConfig!({ instanceName: "browsecomp_agent", config: { resources_server: { type: "resources_servers", name: "???" }, model_server: REFS.model_server } })).toThrow(/resources_server\.name/);
  });
});

describe("the loop (upstream test_app, test_malformed_tool_arguments)", () => {
  test("an immediate answer: one model call", async () => {
    reset([turn([message("Final Answer: Paris")])]);
    const r = await ask("base", [{ role: "user", content: "What is the capital of France?" }]);
    expect(model.seen).toHaveLength(1);
    expect(r.output.at(-1).content[0].text).toBe("Final Answer: Paris");
  });

  test("one tool call then an answer: model + tool + model, the envelope unwrapped", async () => {
    reset([turn([functionCall("search", { queries: ["capital France"] }, "c1")]), turn([message("Final Answer: Paris")])]);
    toolAnswer = () => ({ results_string: "Paris is the capital" });
    const r = await ask("base");
    expect([model.seen.length, toolPaths()]).toEqual([2, ["/search"]]);
    expect(res.seen[0]!.body).toEqual({ queries: ["capital France"] });
    expect(toolOutputs(r)).toEqual(["Paris is the capital"]);
    expect(r.output.at(-1).content[0].text).toBe("Final Answer: Paris");
  });

  test("max_steps ends the loop: 2 model calls + 2 tool calls", async () => {
    reset([turn([functionCall("search", { queries: ["q"] }, "c1")]), turn([functionCall("search", { queries: ["q"] }, "c2")])]);
    toolAnswer = () => ({});
    await ask("max2");
    expect([model.seen.length, toolPaths().length]).toEqual([2, 2]);
  });

  test("nudge_steps: turns-remaining on every result, milestone notes at 2, 4 and 7 of 8", async () => {
    reset([...Array(8).keys()].map((i) => turn([functionCall("search", { q: i }, `c${i}`)])));
    const r = await ask("nudges");
    const outs = toolOutputs(r);
    expect(outs).toHaveLength(8);
    expect(outs[0]).toBe("tool result\n\n[7 turns remaining out of 8]");
    expect(outs[1]).toContain("[SYSTEM NOTE: You have used 2 out of 8 turns. Please consider");
    expect(outs[3]).toContain("halfway through your budget");
    expect(outs[6]).toContain("URGENT — You have used 7 out of 8 turns");
    expect(outs[2]).toBe("tool result\n\n[5 turns remaining out of 8]");
  });

  test("keep_rounds: older tool results are hidden from the model, the returned trajectory keeps them", async () => {
    reset([turn([functionCall("search", { q: 1 }, "c1")]), turn([functionCall("search", { q: 2 }, "c2")]), turn([message("Exact Answer: X")])]);
    toolAnswer = (_p, b) => ({ results_string: `result ${b.q}` });
    const r = await ask("keep1");
    const third = model.bodies()[2]!.input.filter((o: Obj) => o.type === "function_call_output").map((o: Obj) => o.output);
    expect(third).toEqual([HIDDEN_TOOL_RESULT, "result 2"]);
    expect(toolOutputs(r)).toEqual(["result 1", "result 2"]);
  });

  const MALFORMED = '{"queries": ["a", "b"';
  test("malformed arguments: reported to the model, never sent, the rollout continues", async () => {
    reset([turn([functionCall("search", MALFORMED, "c1")]), turn([functionCall("search", { queries: ["retry"] }, "c2")]), turn([message("Exact Answer: X")])]);
    const r = await ask("base");
    expect(toolPaths()).toEqual(["/search"]);
    const outs = toolOutputs(r);
    expect(outs).toHaveLength(2);
    expect(outs[0]).toStartWith("Invalid JSON in the arguments of your 'search' tool call: Expecting ");
    expect(outs[0]).toEndWith(". Re-issue the call with valid JSON arguments.");
    expect(r.output.at(-1).content[0].text).toBe("Exact Answer: X");
  });

  test("malformed update_progress arguments are reported too", async () => {
    reset([turn([functionCall("update_progress", MALFORMED, "c1")]), turn([message("Exact Answer: X")])]);
    const outs = toolOutputs(await ask("progress"));
    expect(outs).toHaveLength(1);
    expect(outs[0]).toContain("JSON");
  });

  test("a tool answering 404 is a result the model sees", async () => {
    reset([turn([functionCall("nope", {}, "c1")]), turn([message("Exact Answer: X")])]);
    toolAnswer = () => ({ status: 404, body: { detail: "Not Found" } });
    expect(toolOutputs(await ask("base"))).toEqual(['{"detail":"Not Found"}']);
  });

  test("a model failing mid-loop → a 500 from /v1/responses naming it", async () => {
    reset([turn([functionCall("search", {}, "c1")]), { status: 400, body: { error: "model broke" } }]);
    const r = await postJson(`${stack.url.base}/v1/responses`, { input: [SYSTEM, USER] });
    expect(r.status).toBe(500);
    expect(r.text).toContain("model broke");
  });

  test("an invalid model answer → a 500 naming it", async () => {
    reset([{ id: "x", output: "not a list" }]);
    const r = await postJson(`${stack.url.base}/v1/responses`, { input: [SYSTEM, USER] });
    expect(r.status).toBe(500);
    expect(r.text).toContain("invalid response from model server");
  });
});

describe("context resets", () => {
  test("without progress: the over-threshold completion is discarded and the context reset at once", async () => {
    reset([turn([functionCall("search", {}, "a")], 5000), turn([message("done")], 10)]);
    const r = await ask("reset_plain");
    expect(r.reset_count).toBe(1);
    expect(r.pre_reset_warning_steps).toEqual([]);
    expect(toolOutputs(r).some((o) => o.includes("about to be RESET"))).toBe(false);
    expect(r.output.map((o: Obj) => o.type)).toEqual(["message"]);
  });

  test("max_reset_count caps the resets", async () => {
    reset([turn([functionCall("search", {}, "a")], 5000), turn([functionCall("search", {}, "b")], 5000), turn([message("done")], 5000)]);
    const r = await ask("reset_capped");
    expect(r.reset_count).toBe(1);
    expect(model.seen).toHaveLength(3);
  });

  test("the full trajectory survives a reset; snapshots and trajectory.jsonl are written", async () => {
    reset([turn([functionCall("search", {}, "c1")], 0), turn([message("partial")], 999), turn([message("Exact Answer: RIGHT")], 0)]);
    const r = await ask("snap", [{ role: "user", content: "q" }], { metadata: { task_index: "7", attempt: "0" } });
    expect(r.output.map((o: Obj) => o.type)).toEqual(["function_call", "function_call_output", "message"]);
    expect(r.output.at(-1).content[0].text).toBe("Exact Answer: RIGHT");
    // The snapshot keys never reach the model.
    expect(model.bodies()[0]!.metadata).toEqual({});
    const dir = join(snapRoot, "sample_7");
    expect(readdirSync(dir).sort()).toEqual(["attempt_0_final.jsonl", "attempt_0_reset_1.jsonl", "attempt_0_trajectory.jsonl"]);
    const lines = readFileSync(join(dir, "attempt_0_trajectory.jsonl"), "utf8").trim().split("\n");
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: "metadata", task_index: "7", attempt: "0", reset_count: 1, reset_steps: [2], num_tool_calls: 1, pre_reset_warning_steps: [] });
    expect(lines).toHaveLength(1 + 1 + r.output.length);
  });
});

describe("the progress board (upstream test_progress_tracking)", () => {
  const tools = (i: number) => (model.bodies()[i]!.tools ?? []).map((t: Obj) => t.name);
  test("offered only when enabled, before bash_command", async () => {
    reset([turn([message("Exact Answer: X")])]);
    await ask("progress");
    expect(tools(0)).toContain("update_progress");
    reset([turn([message("Exact Answer: X")])]);
    await ask("base");
    expect(tools(0)).not.toContain("update_progress");
    reset([turn([message("Exact Answer: X")])]);
    await ask("progress", [SYSTEM, USER], { tools: ["search", "browse", "bash_command"].map((name) => ({ type: "function", name, description: "d", parameters: { type: "object", properties: {} }, strict: false })) });
    expect(tools(0)).toEqual(["search", "browse", "update_progress", "bash_command"]);
  });

  test("the system prompt gets the board block (empty-board hint, ledger slots); none when disabled", async () => {
    reset([turn([message("done")])]);
    await ask("progress");
    const s = sys(0);
    expect(s.startsWith("BASE SYSTEM PROMPT.")).toBe(true);
    for (const part of ["## Progress Board", "start by listing the question's constraints", "Confirmed facts", "Ruled-out candidates", "Search angles tried", "UNVERIFIED", "After a context reset"]) expect(s).toContain(part);
    for (const part of ["<- leading", "Example:"]) expect(s).not.toContain(part);
    reset([turn([message("done")])]);
    await ask("base");
    expect(sys(0)).not.toContain("## Progress Board");
  });

  test("a system message is synthesised when the row has none", async () => {
    reset([turn([message("done")])]);
    await ask("progress", [USER]);
    expect(model.bodies()[0]!.input[0].role).toBe("system");
    expect(sys(0)).toContain("## Progress Board");
  });

  test("the board survives a reset and the last write wins", async () => {
    reset([turn([progressCall("FIRST board text", "a")], 100), turn([progressCall("SECOND board text", "b")], 999999), turn([progressCall("SECOND board text", "c")], 999999), turn([message("Exact Answer: X")], 100)]);
    const r = await ask("progress_reset");
    expect(r.reset_count).toBe(1);
    expect(sys(-1)).toContain("SECOND board text");
    expect(sys(-1)).not.toContain("FIRST board text");
    expect(toolPaths()).toEqual([]);
  });

  test("the board is not rendered mid-segment", async () => {
    reset([turn([progressCall("MID SEGMENT WRITE", "a")], 100), turn([message("Exact Answer: X")], 100)]);
    await ask("progress_plain_thr");
    expect(sys(1)).not.toContain("MID SEGMENT WRITE");
  });

  test("commit guard: a board holding an answer is told it is not the answer; a normal board is acknowledged", async () => {
    reset([turn([progressCall("Constraints: C1\nExact Answer: Foo", "a")]), turn([message("Exact Answer: Foo")])]);
    expect(toolOutputs(await ask("progress")).some((o) => o.includes("NOT your final answer"))).toBe(true);
    reset([turn([progressCall("Constraints: C1 | Ruled-out: John Roe", "a")]), turn([message("Exact Answer: X")])]);
    const outs = toolOutputs(await ask("progress"));
    expect(outs[0]).toBe("Progress board updated (37 chars). It persists in the system prompt across context resets.");
    expect(outs.some((o) => o.includes("NOT your final answer"))).toBe(false);
  });

  test("over the threshold: one warned board-save turn, then the reset", async () => {
    reset([turn([progressCall("EARLY BOARD", "a")], 5000), turn([progressCall("SAVED AT WARNING", "b")], 5000), turn([message("Exact Answer: X")], 10)]);
    const r = await ask("progress_reset_k3");
    expect(r.reset_count).toBe(1);
    expect(r.pre_reset_warning_steps).toEqual([1]);
    const outs = toolOutputs(r);
    expect(outs.some((o) => o.includes("about to be RESET"))).toBe(true);
    expect(outs.some((o) => o.includes("the last 3 rounds and your progress board"))).toBe(true);
    expect(sys(-1)).toContain("SAVED AT WARNING");
  });

  test("the /tokenize pre-call path: warned turn, then the reset, the shrink probe keeping what fits", async () => {
    reset([turn([progressCall("EARLY", "a")]), turn([progressCall("SAVED AT WARNING", "b")]), turn([message("Exact Answer: X")])]);
    tokenCounts = [10, 5000, 5000, 800, 500];
    const r = await ask("tokenize");
    expect(r.reset_count).toBe(1);
    expect(r.pre_reset_warning_steps).toEqual([2]);
    expect(toolOutputs(r).some((o) => o.includes("about to be RESET"))).toBe(true);
    expect(sys(-1)).toContain("SAVED AT WARNING");
    expect(tokenizer.seen).toHaveLength(5);
    // The vLLM /tokenize body: the chat projection of the request.
    expect(Object.keys(tokenizer.seen[0]!.body).sort()).toEqual(expect.arrayContaining(["messages"]));
    expect(tokenizer.seen[0]!.body.messages[0]).toMatchObject({ role: "system" });
  });

  test("an answer left only on the board is recovered into the last message", async () => {
    reset([turn([progressCall("Constraints: C1\nANSWER: The Sensation of Sight", "a")]), turn([message("I have recorded the answer on the board.")])]);
    const r = await ask("progress");
    const last = lastMessageText(r.output);
    expect(last).toContain("[Recovered from progress board]");
    expect(last).toContain("The Sensation of Sight");
  });

  test("…or appended as a message when max_steps ran out with none", async () => {
    reset([turn([progressCall("ANSWER: Foo", "a")]), turn([functionCall("search", {}, "b")])]);
    const r = await ask("progress_max2");
    expect(r.output.at(-1).type).toBe("message");
    expect(lastMessageText(r.output)).toBe("[Recovered from progress board] ANSWER: Foo");
  });

  test("…and nothing changes when the answer was committed", async () => {
    reset([turn([progressCall("ANSWER: Foo", "a")]), turn([message("Exact Answer: Bar")])]);
    expect(lastMessageText((await ask("progress")).output)).toBe("Exact Answer: Bar");
  });
});

describe("/run (upstream test_run_survives_sample_failure, test_snap_rollout_index)", () => {
  const row = (extra: Obj = {}) => ({ responses_create_params: { input: [{ role: "user", content: "Q?" }] }, question: "Q?", ...extra });
  test("a clean run returns the verify answer, no error keys", async () => {
    reset([turn([message("Exact Answer: X")])]);
    const r = await postJson(`${stack.url.base}/run`, row());
    expect(r.json.reward).toBe(1.0);
    expect(r.json.agent_error).toBeUndefined();
    expect(r.json._ng_no_persist).toBeUndefined();
    expect(r.json._ng_failure_class).toBeUndefined();
  });

  test("a genuine zero is not tagged as an error", async () => {
    reset([turn([message("Exact Answer: X")])]);
    reward = 0.0;
    const r = await postJson(`${stack.url.base}/run`, row());
    expect([r.json.reward, r.json.agent_error]).toEqual([0.0, undefined]);
  });

  test("the model failing: contained, 0, countable, not persisted (a harness 5xx)", async () => {
    reset([{ status: 500, body: { error: "boom" } }]);
    const r = await postJson(`${stack.url.base}/run`, row());
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(0.0);
    expect(r.json.agent_error).toContain("ClientResponseError");
    expect(r.json._ng_no_persist).toBe(true);
    expect(r.json._ng_failure_class).toBe("kill_shaped");
    expect(r.json.response).toMatchObject({ id: "resp_agent_error", output: [] });
    expect(r.json.question).toBe("Q?");
  });

  for (const status of [500, 502, 503]) {
    test(`verify answering ${status}: contained, not persisted`, async () => {
      reset([turn([message("Exact Answer: X")])]);
      verifyStatus = status;
      const r = await postJson(`${stack.url.base}/run`, row());
      expect(r.json.reward).toBe(0.0);
      expect(r.json._ng_no_persist).toBe(true);
      // The model's answer is kept on the row.
      expect(r.json.response.output[0].content[0].text).toBe("Exact Answer: X");
    });
  }

  test("a sample-shaped failure (verify 400) stays a persisted 0", async () => {
    reset([turn([message("Exact Answer: X")])]);
    verifyStatus = 400;
    const r = await postJson(`${stack.url.base}/run`, row());
    expect(r.json.reward).toBe(0.0);
    expect(r.json.agent_error).toBeString();
    expect(r.json._ng_no_persist).toBeUndefined();
  });

  test("a resources server that is gone: contained as a harness failure", async () => {
    reset([]);
    const r = await postJson(`${stack.url.dead_tools}/run`, row());
    expect(r.json.agent_error).toStartWith("ClientConnectorError");
    expect(r.json.reward).toBe(0.0);
    expect(r.json._ng_no_persist).toBe(true);
    expect(model.seen).toHaveLength(0);
  });

  test("an empty answer (think only) is retried while attempts remain", async () => {
    reset([turn([message("<think>hmm</think>")]), turn([message("Exact Answer: X")])]);
    const r = await postJson(`${stack.url.retry2}/run`, row());
    expect(model.seen).toHaveLength(2);
    expect(res.seen.filter((s) => s.path === "/verify")).toHaveLength(1);
    expect(r.json.reward).toBe(1.0);
  });

  test("an empty answer on the last attempt is still verified", async () => {
    reset([turn([message("<think>hmm</think>")])]);
    await postJson(`${stack.url.base}/run`, row());
    expect(res.seen.filter((s) => s.path === "/verify")).toHaveLength(1);
  });

  test("snapshots: the rollout index joins the sample key; without it the legacy key", async () => {
    reset([turn([message("Exact Answer: X")])]);
    await postJson(`${stack.url.snap}/run`, row({ _ng_task_index: 17, _ng_rollout_index: 2 }));
    expect(existsSync(join(snapRoot, "sample_17_r2", "attempt_0_final.jsonl"))).toBe(true);
    expect(existsSync(join(snapRoot, "sample_17_r2", "attempt_0_trajectory.jsonl"))).toBe(true);
    expect(existsSync(join(snapRoot, "sample_17"))).toBe(false);
    const v = res.seen.find((s) => s.path === "/verify")!.body;
    expect(v.responses_create_params.metadata).toEqual({ task_index: "17", attempt: "0", rollout_index: "2" });
    reset([turn([message("Exact Answer: X")])]);
    await postJson(`${stack.url.snap}/run`, row({ _ng_task_index: 18 }));
    expect(existsSync(join(snapRoot, "sample_18", "attempt_0_final.jsonl"))).toBe(true);
    expect(readdirSync(snapRoot).filter((d) => d.startsWith("sample_18_r"))).toEqual([]);
  });

  test("a bad row is a 422", async () => {
    reset([]);
    const r = await postJson(`${stack.url.base}/run`, { question: "no params" });
    expect(r.status).toBe(422);
    expect(model.seen).toHaveLength(0);
  });

  test("/aggregate_metrics is the resources server's", async () => {
    const r = await postJson(`${stack.url.base}/aggregate_metrics`, { verify_responses: [] });
    expect(r.json.key_metrics["mean/reward"]).toBe(1);
  });
});
