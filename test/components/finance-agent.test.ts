/**
 * finance_agent: the Vals finance tool loop under both shipped profiles (read from upstream's two
 * configs, kept as test fixtures), against a scripted loopback model and a loopback resources
 * server with tools. Upstream's tests/test_app.py cases are the rows below.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { findBuiltin } from "../../src/components/registry.ts";
import { financeConfig } from "../../src/components/agents/finance-agent.ts";
import { abortingErrorType, isContextOverflow, isModelOutput, truncateOldestExchange } from "../../src/verify/agents/finance-loop.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";
import { fakeServer, functionCall, message, reasoning, REFS, responseWith, scriptedModel, usage, type Answer } from "./_loop-fakes.ts";

type Obj = Record<string, any>;
const FIXTURES = join(import.meta.dir, "../fixtures/upstream-agent-configs");
const block = (file: string, instance: string): Obj => parse(readFileSync(join(FIXTURES, file), "utf8"))[instance].responses_api_agents.finance_agent;
const POLICY_FIELDS = ["no_tool_call_nudge", "max_time_seconds", "abort_on_tool_error_types"] as const;
const policyOf = (b: Obj) => Object.fromEntries(POLICY_FIELDS.filter((f) => f in b).map((f) => [f, b[f]]));
const V1_BLOCK = block("finance_sec_search.yaml", "finance_agent");
const V2_BLOCK = block("finance_agent_v2.yaml", "finance_agent_v2");
const V1 = policyOf(V1_BLOCK);
const V2 = policyOf(V2_BLOCK);

const toolCall = (name: string, args: unknown, callId = "call_1") => responseWith([functionCall(name, args, callId)]);
const text = (t: string) => responseWith([message(t)]);

let modelScript: (n: number, body: Obj) => Answer = () => text("Hello!");
const model = scriptedModel((n, body) => modelScript(n, body));
let toolScript: (path: string, body: Obj) => Answer = () => ({ results: "data" });
const res = fakeServer((path, body): Answer => {
  if (path === "/seed_session") return {};
  if (path === "/verify") return { ...body, reward: 0.5 };
  if (path === "/aggregate_metrics") return { group_level_metrics: [], agent_metrics: { "mean/reward": 0.5 }, key_metrics: { "mean/reward": 0.5 } };
  return toolScript(path, body);
});
// A resources server that is gone: bound while the stack starts (so no later server takes its port), then stopped.
const gone = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
const deadPort = gone.port;

const agents: Record<string, Obj> = {
  v1: { ...V1 },
  v1_1_keep: { ...V1, max_steps: 1, no_tool_call_nudge: "Keep going." },
  v1_2: { ...V1, max_steps: 2 },
  v1_3: { ...V1, max_steps: 3 },
  v1_5: { ...V1, max_steps: 5 },
  v2_0s: { ...V2, max_time_seconds: 0 },
  v2_2: { ...V2, max_steps: 2 },
  v2_3: { ...V2, max_steps: 3 },
  v2_5: { ...V2, max_steps: 5 },
  v2_5_timed: { ...V2, max_steps: 5, max_time_seconds: 0.05 },
  model_timeout: { ...V1, model_call_timeout: 0.05 },
  tool_timeout: { ...V1, tool_call_timeout: 0.05, max_steps: 2 },
  trunc: { ...V1, truncate_on_overflow: true, max_steps: 10 },
  no_trunc: { ...V1, truncate_on_overflow: false },
  dead_tools: { ...V1, max_steps: 2, resources_server: { type: "resources_servers", name: "dead" } },
};

let stack: Stack;
beforeAll(async () => {
  stack = await startStack(
    Object.entries(agents).map(([name, leaf]) => ({ name, serverType: "responses_api_agents" as const, impl: "finance_agent", leaf: { ...REFS, ...leaf } })),
    {
      policy: { responses_api_models: { fake: { host: "127.0.0.1", port: model.port } } },
      res: { resources_servers: { fake: { host: "127.0.0.1", port: res.port } } },
      dead: { resources_servers: { fake: { host: "127.0.0.1", port: deadPort } } },
      // A dead tool server fails fast instead of being retried for two minutes.
      request_retry_budget_seconds: 0.2,
    },
  );
  gone.stop(true);
});
afterAll(async () => {
  await stack.stop();
  model.stop();
  res.stop();
});

function reset(script: (n: number, body: Obj) => Answer, tools: (path: string, body: Obj) => Answer = () => ({ results: "data" })) {
  model.seen.length = 0;
  res.seen.length = 0;
  modelScript = script;
  toolScript = tools;
}
const INPUT = { input: [{ role: "user", content: "What was revenue?" }] };
const ask = async (agent: string, body: Obj = INPUT) => {
  const r = await postJson(`${stack.url[agent]}/v1/responses`, body);
  expect(r.status).toBe(200);
  return r.json as Obj;
};
const userMsgs = (out: Obj[]) => out.filter((o) => o.type === "message" && o.role === "user");

describe("the shipped profiles (upstream TestFinanceAgentConfig)", () => {
  for (const [name, b] of [["finance_agent", V1_BLOCK], ["finance_agent_v2", V2_BLOCK]] as const) {
    test(`${name} states every policy field and builds a valid config`, () => {
      for (const f of POLICY_FIELDS) expect(b).toHaveProperty(f);
      expect(financeConfig({ instanceName: name, config: { ...b } }).noToolCallNudge.length).toBeGreaterThan(0);
    });
  }
  for (const f of POLICY_FIELDS) {
    test(`omitting ${f} is a config error naming it`, () => {
      const policy = { ...V2 };
      delete policy[f];
      expect(() => financeConfig({ instanceName: "a", config: { ...REFS, ...policy } })).toThrow(f);
    });
  }
  test("the two profiles differ where the loop branches", () => {
    expect(V1.max_time_seconds).toBeNull();
    expect(V2.max_time_seconds).toBeGreaterThan(0);
    expect(V1.abort_on_tool_error_types).toEqual([]);
    expect(V2.abort_on_tool_error_types.length).toBeGreaterThan(0);
    expect(V1.no_tool_call_nudge).not.toBe(V2.no_tool_call_nudge);
  });
  test("defaults and a custom config", () => {
    expect(financeConfig({ instanceName: "a", config: { ...REFS, ...V1 } })).toMatchObject({ maxSteps: null, doneTools: ["submit_final_result"], modelCallTimeout: null, toolCallTimeout: null, truncateOnOverflow: false });
    const custom = { max_steps: 10, max_time_seconds: 60.0, done_tools: ["submit_final_result", "abort"], no_tool_call_nudge: "Keep going.", abort_on_tool_error_types: ["RetryExhaustedError"], model_call_timeout: 30.0, tool_call_timeout: 60.0, truncate_on_overflow: true };
    expect(financeConfig({ instanceName: "a", config: { ...REFS, ...custom } })).toMatchObject({ maxSteps: 10, maxTimeSeconds: 60, doneTools: ["submit_final_result", "abort"], noToolCallNudge: "Keep going.", abortOnToolErrorTypes: ["RetryExhaustedError"], modelCallTimeout: 30, toolCallTimeout: 60, truncateOnOverflow: true });
  });
  const badLeaves: [string, Obj, RegExp][] = [
    ["max_steps not a number", { ...V1, max_steps: "many" }, /max_steps/],
    ["max_steps fractional", { ...V1, max_steps: 2.5 }, /max_steps/],
    ["abort_on_tool_error_types not a list", { ...V1, abort_on_tool_error_types: "RetryExhaustedError" }, /abort_on_tool_error_types/],
    ["negative max_time_seconds", { ...V1, max_time_seconds: -1 }, /max_time_seconds/],
    ["no model_server", { resources_server: REFS.resources_server, ...V1 }, /model_server/],
  ];
  for (const [name, leaf, re] of badLeaves) {
    test(`bad leaf: ${name} → a config error naming the key`, async () => {
      const comp = (await findBuiltin("responses_api_agents", "finance_agent"))!;
      const config = name === "no model_server" ? leaf : { ...REFS, ...leaf };
      expect(() => comp.checkConfig!({ instanceName: "a", config })).toThrow(re);
    });
  }
});

describe("pure loop decisions (upstream tests as data)", () => {
  for (const msg of ["maximum context length is 8192 tokens", "context length is only 4096 tokens", "maximum input length of 32768 tokens exceeded", "Please reduce the length of the input", "prompt is too long", "input exceeded the context window", "too large for model with 8192 maximum context length", "longer than the model's context length", "payload too large"]) {
    test(`overflow: ${msg}`, () => expect(isContextOverflow(msg)).toBe(true));
  }
  for (const msg of ["connection refused", "timeout error", "Internal server error", "rate limit exceeded"]) test(`not overflow: ${msg}`, () => expect(isContextOverflow(msg)).toBe(false));

  const items: [Obj, boolean][] = [
    [{ type: "function_call" }, true],
    [{ type: "reasoning" }, true],
    [{ type: "message", role: "assistant" }, true],
    [{ type: "message", role: "user" }, false],
    [{ type: "function_call_output" }, false],
  ];
  for (const [item, want] of items) test(`model output? ${JSON.stringify(item)} → ${want}`, () => expect(isModelOutput(item)).toBe(want));

  test("truncate: empty, single item, first exchange removed, single exchange kept", () => {
    expect(truncateOldestExchange([])).toEqual([]);
    expect(truncateOldestExchange([{ type: "message", role: "assistant" }])).toHaveLength(1);
    const xs = [{ type: "reasoning" }, { type: "function_call" }, { type: "function_call_output" }, { type: "function_call_output" }, { type: "message", role: "assistant", id: 4 }, { type: "function_call" }, { type: "function_call_output" }];
    const cut = truncateOldestExchange(xs);
    expect(cut[0]).toBe(xs[4]!);
    expect(cut).toHaveLength(3);
    const one = [{ type: "reasoning" }, { type: "function_call" }];
    expect(truncateOldestExchange(one)).toEqual(one);
  });

  const RE = ["RetryExhaustedError"];
  const abortCases: [string, string, string[], string | undefined][] = [
    ["an abort error in the server's envelope", JSON.stringify({ results: JSON.stringify({ error: "RetryExhaustedError: gave up after 5 attempts" }) }), RE, "RetryExhaustedError"],
    ["an abort error without an envelope", JSON.stringify({ error: "RetryExhaustedError: gave up after 5 attempts" }), RE, "RetryExhaustedError"],
    ["another error type", JSON.stringify({ results: JSON.stringify({ error: "ConnectionError: server unavailable" }) }), RE, undefined],
    ["a success mentioning the type", JSON.stringify({ results: "the filing mentions RetryExhaustedError: nope" }), RE, undefined],
    ["non-JSON output", "RetryExhaustedError: plain text", RE, undefined],
    ["a JSON success with no error field", JSON.stringify({ results: JSON.stringify({ summary: "RetryExhaustedError: appears in this filing" }) }), RE, undefined],
    ["disabled under the v1 profile", JSON.stringify({ results: JSON.stringify({ error: "RetryExhaustedError: gave up" }) }), [], undefined],
  ];
  for (const [name, out, types, want] of abortCases) test(`abort type: ${name}`, () => expect(abortingErrorType(out, types)).toBe(want));
});

describe("the loop over loopback servers (upstream TestResponses)", () => {
  test("text-only turns get the nudge and the loop runs to max_steps", async () => {
    reset(() => text("Hello!"));
    const r = await ask("v1_3");
    expect(model.seen).toHaveLength(3);
    expect(userMsgs(r.output).map((o) => o.content)).toContain("Continue.");
    // Each call after the first sees the nudge after the prose.
    expect(model.bodies()[1]!.input.at(-1)).toMatchObject({ role: "user", content: "Continue." });
    expect(r.metadata).toMatchObject({ stop_reason: "max_turns", steps: "3" });
  });

  test("the v2 profile's nudge names submit_final_result", async () => {
    reset(() => text("Hello!"));
    const r = await ask("v2_3");
    const nudges = userMsgs(r.output);
    expect(nudges.length).toBeGreaterThan(0);
    for (const n of nudges) expect(n.content).toBe(V2.no_tool_call_nudge);
    expect(V2.no_tool_call_nudge).toContain("submit_final_result");
  });

  test("the nudge is configurable", async () => {
    reset(() => text("Hello!"));
    expect(userMsgs((await ask("v1_1_keep")).output).map((o) => o.content)).toEqual(["Keep going."]);
  });

  test("after a nudge, a done tool still ends the loop", async () => {
    reset((n) => (n === 1 ? text("Thinking out loud...") : toolCall("submit_final_result", { final_result: "42" })));
    const r = await ask("v1_5");
    expect(r.output.filter((o: Obj) => o.type === "function_call").map((o: Obj) => o.name)).toEqual(["submit_final_result"]);
    expect(r.metadata.stop_reason).toBe("done_tool");
    expect(model.seen).toHaveLength(2);
  });

  test("tool call then text: the nudge is the last item at max_steps", async () => {
    reset((n) => (n === 1 ? toolCall("sec_filing_search", { ticker: "AAPL" }) : text("Here is the data.")), () => ({ result: "filing data" }));
    const r = await ask("v1_2");
    const types = r.output.map((o: Obj) => o.type);
    expect(types).toContain("function_call");
    expect(types).toContain("function_call_output");
    expect(r.output.at(-1)).toMatchObject({ type: "message", role: "user", content: "Continue." });
    // The tool got the parsed arguments and its body reached the model verbatim.
    expect(res.seen.find((s) => s.path === "/sec_filing_search")!.body).toEqual({ ticker: "AAPL" });
    expect(r.output.find((o: Obj) => o.type === "function_call_output").output).toBe('{"result":"filing data"}');
  });

  test("a done tool ends the loop at once (steps 1)", async () => {
    reset(() => toolCall("submit_final_result", { final_result: "$100B" }), () => ({ status: "ok" }));
    const r = await ask("v1");
    expect(r.output.map((o: Obj) => o.name).filter(Boolean)).toEqual(["submit_final_result"]);
    expect(r.metadata).toMatchObject({ stop_reason: "done_tool", steps: "1" });
  });

  test("max_steps ends a loop of tool calls", async () => {
    reset(() => toolCall("sec_filing_search", { ticker: "AAPL" }));
    const r = await ask("v1_2");
    expect(r.output.filter((o: Obj) => o.type === "function_call")).toHaveLength(2);
    expect(r.metadata.stop_reason).toBe("max_turns");
  });

  test("an exhausted time budget prevents any model call", async () => {
    reset(() => text("never"));
    const r = await ask("v2_0s");
    expect(r.id).toBe("error");
    expect(model.seen).toHaveLength(0);
    expect(r.metadata.stop_reason).toBe("max_time");
  });

  test("the time budget stops the loop mid-run (stop_reason max_time)", async () => {
    reset(() => ({ delayMs: 80, body: toolCall("edgar_search", { search_query: "AAPL" }) }));
    const r = await ask("v2_5_timed");
    expect(model.seen).toHaveLength(1);
    expect(r.metadata.stop_reason).toBe("max_time");
  });

  test("no time budget under the v1 profile: turn-bounded (max_turns)", async () => {
    reset(() => ({ delayMs: 20, body: toolCall("sec_filing_search", { ticker: "AAPL" }) }));
    expect((await ask("v1_2")).metadata.stop_reason).toBe("max_turns");
  });

  test("the v2 profile aborts on RetryExhaustedError instead of starting another turn", async () => {
    reset(() => toolCall("price_history", { ticker: "AAPL" }), () => ({ results: JSON.stringify({ error: "RetryExhaustedError: gave up after 5 attempts" }) }));
    const r = await ask("v2_5");
    expect(model.seen).toHaveLength(1);
    expect(r.metadata.stop_reason).toBe("error");
  });

  test("an ordinary tool error is fed back (v2)", async () => {
    reset(() => toolCall("price_history", { ticker: "AAPL" }), () => ({ results: JSON.stringify({ error: "ConnectionError: server unavailable" }) }));
    await ask("v2_2");
    expect(model.seen).toHaveLength(2);
  });

  test("the abort type is fed back under the v1 profile", async () => {
    reset(() => toolCall("sec_filing_search", { ticker: "AAPL" }), () => ({ results: JSON.stringify({ error: "RetryExhaustedError: gave up after 5 attempts" }) }));
    await ask("v1_2");
    expect(model.seen).toHaveLength(2);
  });

  test("a model call timeout ends the loop gracefully (id error)", async () => {
    reset(() => ({ delayMs: 2000, body: text("too late") }));
    const r = await ask("model_timeout");
    expect(r.id).toBe("error");
    expect(r.metadata.stop_reason).toBe("error");
  });

  test("a tool call timeout is an error the model sees; the loop continues", async () => {
    reset((n) => (n === 1 ? toolCall("sec_filing_search", { ticker: "AAPL" }) : text("I'll try something else.")), () => ({ delayMs: 2000, body: { result: "late" } }));
    const r = await ask("tool_timeout");
    const out = r.output.filter((o: Obj) => o.type === "function_call_output");
    expect(JSON.parse(out[0].output).error).toBe("Tool call timed out after 0.05s. Please try a different approach or submit your final answer.");
    expect(model.seen).toHaveLength(2);
  });

  test("a tool server that is gone: the failure is fed back, the loop continues", async () => {
    reset((n) => (n === 1 ? toolCall("sec_filing_search", { ticker: "AAPL" }) : text("Something went wrong.")));
    const r = await ask("dead_tools");
    const out = r.output.filter((o: Obj) => o.type === "function_call_output");
    expect(JSON.parse(out[0].output).error).toStartWith("Tool call failed: ClientConnectorError: ");
    expect(model.seen).toHaveLength(2);
  });

  test("malformed tool arguments are fed back as a JSONDecodeError, never sent", async () => {
    reset((n) => (n === 1 ? toolCall("sec_filing_search", '{"ticker": ') : text("retry")));
    const r = await ask("v1_2");
    expect(JSON.parse(r.output.find((o: Obj) => o.type === "function_call_output").output).error).toStartWith("Tool call failed: JSONDecodeError: Expecting value");
    expect(res.seen.filter((s) => s.path === "/sec_filing_search")).toHaveLength(0);
  });

  test("a failing model ends the loop (id error)", async () => {
    reset(() => ({ status: 400, body: { error: "internal server error" } }));
    const r = await ask("v1");
    expect(r.id).toBe("error");
    expect(model.seen).toHaveLength(1);
  });

  test("a model failing mid-loop: the earlier outputs are kept, stop_reason error", async () => {
    reset((n) => (n === 1 ? toolCall("sec_filing_search", { ticker: "AAPL" }) : { status: 400, body: { error: "bad request" } }));
    const r = await ask("v1_5");
    expect(r.id).toBe("resp_1");
    expect(r.output.map((o: Obj) => o.type)).toEqual(["function_call", "function_call_output"]);
    expect(r.metadata).toMatchObject({ stop_reason: "error", steps: "2" });
  });

  test("a context overflow with truncate_on_overflow drops the oldest exchange and retries", async () => {
    reset((n) => (n === 1 ? toolCall("sec_filing_search", { ticker: "AAPL" }, "c1") : n === 2 ? toolCall("sec_filing_search", { ticker: "MSFT" }, "c2") : n === 3 ? { status: 400, body: { error: { message: "maximum context length is 8192 tokens" } } } : toolCall("submit_final_result", { final_result: "Got it." }, "c3")));
    const r = await ask("trunc");
    expect(r.output.filter((o: Obj) => o.type === "function_call").map((o: Obj) => o.name)).toContain("submit_final_result");
    expect(model.seen).toHaveLength(4);
    // The retried call no longer carries the first exchange.
    expect(model.bodies()[3]!.input.some((o: Obj) => o.call_id === "c1")).toBe(false);
    expect(model.bodies()[3]!.input.some((o: Obj) => o.call_id === "c2")).toBe(true);
  });

  test("a context overflow without truncation ends the loop", async () => {
    reset(() => ({ status: 400, body: { error: { message: "maximum context length is 8192 tokens" } } }));
    expect((await ask("no_trunc")).id).toBe("error");
  });

  test("usage accumulates over the model calls", async () => {
    // Two answers, then the model fails (upstream's mock runs out): the usage of the two is kept.
    reset((n) => (n === 1 ? responseWith([reasoning()], { usage: usage(10, 20) }) : n === 2 ? responseWith([message("Done.")], { usage: usage(100, 200) }) : { status: 400, body: { error: "no more" } }));
    const u = (await ask("v1_3")).usage;
    expect([u.input_tokens, u.output_tokens, u.total_tokens]).toEqual([110, 220, 330]);
  });

  test("a string input becomes a user message", async () => {
    reset(() => text("Hi!"));
    await ask("v1_1_keep", { input: "hello" });
    expect(model.bodies()[0]!.input[0]).toEqual({ role: "user", content: "hello" });
  });

  test("incomplete_details max_output_tokens ends the loop", async () => {
    reset(() => responseWith([message("partial")], { incomplete_details: { reason: "max_output_tokens" } }));
    const r = await ask("v1");
    expect(r.output).toHaveLength(1);
    expect(r.metadata.stop_reason).toBe("max_output_tokens");
  });

  test("a bad body is a 422 and nothing is called", async () => {
    reset(() => text("x"));
    const r = await postJson(`${stack.url.v1}/v1/responses`, { input: 5 });
    expect(r.status).toBe(422);
    expect(model.seen).toHaveLength(0);
  });
});

describe("/run (upstream TestRun)", () => {
  test("seed → loop → verify; the verify answer is returned", async () => {
    reset(() => toolCall("submit_final_result", { final_result: "$100B" }), () => ({ status: "ok" }));
    const r = await postJson(`${stack.url.v1}/run`, { responses_create_params: INPUT, question_id: "q1" });
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(0.5);
    expect(res.seen.map((s) => s.path)).toEqual(["/seed_session", "/submit_final_result", "/verify"]);
    expect(res.seen.at(-1)!.body.response.metadata.stop_reason).toBe("done_tool");
    expect(res.seen.at(-1)!.body.question_id).toBe("q1");
  });

  test("a run that fails (resources server gone) scores 0 and completes, the error kept", async () => {
    const r = await postJson(`${stack.url.dead_tools}/run`, { responses_create_params: { input: [{ role: "user", content: "test" }] } });
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(0.0);
    expect(r.json.response.id).toBe("error");
    expect(r.json.response.metadata.stop_reason).toBe("error");
    expect(r.json.agent_error).toBeString();
  });

  test("/aggregate_metrics is the resources server's", async () => {
    const r = await postJson(`${stack.url.v1}/aggregate_metrics`, { verify_responses: [] });
    expect(r.json.key_metrics["mean/reward"]).toBe(0.5);
  });
});
