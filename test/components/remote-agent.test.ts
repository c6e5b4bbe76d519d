/**
 * remote_agent against a scripted remote agent service and a recording resources server, both real
 * loopback HTTP servers (cases from upstream's remote_agent tests, written as data where they fit).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { findBuiltin } from "../../src/components/registry.ts";
import { normalizeRemoteUrl, pendingCalls } from "../../src/components/agents/remote-agent.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

type Obj = Record<string, any>;

const remoteCalls: { body: Obj; cookie: string }[] = [];
const resCalls: { path: string; body: Obj; cookie: string }[] = [];
let seedStatus = 200;
let verifyStatus = 200;

function resp(output: Obj[], extra: Obj = {}): Obj {
  return { id: "resp_r", object: "response", created_at: 1, model: "remote", output, parallel_tool_calls: true, tool_choice: "auto", tools: [], usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } }, ...extra };
}
const msg = (text: string): Obj => ({ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const call = (id: string, name: string, args: string): Obj => ({ type: "function_call", id: `fc_${id}`, call_id: id, name, arguments: args, status: "completed" });

/** The scripted service: the first user message names the scenario. */
const remote = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = (await req.json()) as Obj;
    remoteCalls.push({ body, cookie: req.headers.get("cookie") ?? "" });
    const input = body.input as Obj[];
    const scenario = String(input[0]?.content ?? "");
    const toolOutputs = input.filter((i) => i.type === "function_call_output");
    switch (scenario) {
      case "tools":
        return Response.json(toolOutputs.length === 0 ? resp([call("c1", "add", '{"a": 2, "b": 3}')]) : resp([msg(`sum is ${toolOutputs[0]!.output}`)]));
      case "paired":
        return Response.json(resp([call("own", "search", "{}"), { type: "function_call_output", call_id: "own", output: "internal" }, msg("done")]));
      case "dupes":
        return Response.json(toolOutputs.length === 0 ? resp([call("d", "add", '{"a": 1, "b": 1}'), call("d", "add", '{"a": 10, "b": 5}')]) : resp([msg("ok")]));
      case "malformed":
        return Response.json(toolOutputs.length === 0 ? resp([call("m", "add", "{not json")]) : resp([msg("saw error")]));
      case "forever":
        return Response.json(resp([call(`f${input.length}`, "add", '{"a": 0, "b": 0}')]));
      case "cookies": {
        const n = remoteCalls.filter((c) => c.body.input[0]?.content === "cookies").length;
        const headers = { "set-cookie": `svc=turn${n}; Path=/` };
        return Response.json(n < 3 ? resp([call(`k${n}`, "add", '{"a": 1, "b": 2}')]) : resp([msg("bye")]), { headers });
      }
      case "http500":
        return new Response('{"detail":"the agent exploded"}', { status: 500 });
      case "redirect":
        return new Response(null, { status: 302, headers: { location: "http://127.0.0.1:1/elsewhere" } });
      case "notjson":
        return new Response("<html>oops</html>", { status: 200 });
      case "list":
        return Response.json([1, 2]);
      case "badshape":
        return Response.json({ id: "x", object: "response", output: "not a list" });
      case "nousage":
        return Response.json(resp([msg("hi")], { usage: null }));
      case "slow":
        await Bun.sleep(3000);
        return Response.json(resp([msg("late")]));
      default:
        return Response.json(resp([msg(`echo ${scenario}`)]));
    }
  },
});

/**
 * A resources server: a session cookie at seed, re-sent on every answer as Starlette's session
 * middleware does, one `add` tool, and a verify that rewards answers containing "sum is 5".
 */
const resources = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const res = await resourcesAnswer(req);
    const session = /rs=([^;]+)/.exec(req.headers.get("cookie") ?? "")?.[1];
    if (session && !res.headers.has("set-cookie")) res.headers.append("set-cookie", `rs=${session}; Path=/`);
    return res;
  },
});

async function resourcesAnswer(req: Request): Promise<Response> {
  const path = new URL(req.url).pathname;
  const body = (await req.json()) as Obj;
  resCalls.push({ path, body, cookie: req.headers.get("cookie") ?? "" });
  if (path === "/seed_session") return seedStatus === 200 ? Response.json({}, { headers: { "set-cookie": "rs=session-1; Path=/" } }) : new Response("seed broke", { status: seedStatus });
  if (path === "/add") return Response.json(body.a + body.b);
  if (path === "/verify") {
    if (verifyStatus !== 200) return new Response("verify broke", { status: verifyStatus });
    const text = JSON.stringify(body.response?.output ?? []);
    return Response.json({ ...body, reward: text.includes("sum is 5") ? 1.0 : 0.0, extra_metric: 7 });
  }
  if (path === "/aggregate_metrics") return Response.json({ group_level_metrics: [], agent_metrics: { mean: 1 }, key_metrics: {} });
  return Response.json({ detail: "Not Found" }, { status: 404 });
}

let stack: Stack;
const row = (scenario: string, extra: Obj = {}) => ({ responses_create_params: { input: [{ role: "user", content: scenario }] }, verifier_metadata: { secret: "keep-inside" }, ...extra });

beforeAll(async () => {
  const extra = { res: { resources_servers: { fake: { host: "127.0.0.1", port: resources.port } } } };
  const base = { agent_base_url: `http://127.0.0.1:${remote.port}/`, resources_server: { type: "resources_servers", name: "res" } };
  stack = await startStack(
    [
      { name: "agent", serverType: "responses_api_agents", impl: "remote_agent", leaf: base },
      { name: "agent_steps", serverType: "responses_api_agents", impl: "remote_agent", leaf: { ...base, max_steps: 2 } },
      { name: "agent_fast", serverType: "responses_api_agents", impl: "remote_agent", leaf: { ...base, run_timeout_secs: 0.5 } },
    ],
    extra,
  );
});
afterAll(async () => {
  await stack.stop();
  remote.stop(true);
  resources.stop(true);
});

describe("remote_agent /run", () => {
  test("seed → loop with a gym-executed tool → verify on the same session", async () => {
    remoteCalls.length = 0;
    resCalls.length = 0;
    const r = await postJson(`${stack.url.agent}/run`, row("tools"));
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(1.0);
    expect(r.json.extra_metric).toBe(7);
    expect(resCalls.map((c) => c.path)).toEqual(["/seed_session", "/add", "/verify"]);
    expect(resCalls[1]!.cookie).toContain("rs=session-1");
    expect(resCalls[2]!.cookie).toContain("rs=session-1");
    // The service sees neither the resources session nor verifier_metadata.
    for (const c of remoteCalls) {
      expect(c.cookie).not.toContain("rs=");
      expect(JSON.stringify(c.body)).not.toContain("keep-inside");
    }
    expect(remoteCalls[1]!.body.input.at(-1)).toEqual({ type: "function_call_output", call_id: "c1", output: "5" });
    expect(r.json.response.usage.total_tokens).toBe(10);
  });

  const failureCases: { scenario: string; message: RegExp; terminal?: boolean }[] = [
    { scenario: "http500", message: /HTTP 500.*the agent exploded/ },
    { scenario: "redirect", message: /HTTP 302 \(redirect to http:\/\/127\.0\.0\.1:1\/elsewhere; fix agent_base_url/ },
    { scenario: "notjson", message: /not valid JSON/ },
    { scenario: "list", message: /expected a JSON object/ },
    { scenario: "badshape", message: /invalid Responses API object/, terminal: true },
  ];
  for (const c of failureCases) {
    test(`remote failure '${c.scenario}' → reward-0 remote_agent_error row (HTTP 200), verify skipped`, async () => {
      resCalls.length = 0;
      const r = await postJson(`${stack.url.agent}/run`, row(c.scenario, { reward: 0.9, _ng_failure_class: "stale" }));
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ reward: 0.0, _ng_failure_class: "remote_agent_error", response: { id: "remote_agent_failure" } });
      expect(r.json.error).toMatch(c.message);
      expect(r.json._ng_failure_terminal === true).toBe(c.terminal === true);
      expect(resCalls.map((x) => x.path)).toEqual(["/seed_session"]);
    });
  }

  test("seed failure: the remote service is never called", async () => {
    remoteCalls.length = 0;
    seedStatus = 500;
    try {
      const r = await postJson(`${stack.url.agent}/run`, row("tools"));
      expect(r.json._ng_failure_class).toBe("remote_agent_error");
      expect(r.json.error).toContain("/seed_session on the resources server failed");
      expect(remoteCalls).toHaveLength(0);
    } finally {
      seedStatus = 200;
    }
  });

  test("verify failure becomes the sentinel", async () => {
    verifyStatus = 500;
    try {
      const r = await postJson(`${stack.url.agent}/run`, row("tools"));
      expect(r.json).toMatchObject({ reward: 0.0, _ng_failure_class: "remote_agent_error" });
      expect(r.json.error).toContain("/verify on the resources server failed");
    } finally {
      verifyStatus = 200;
    }
  });

  test("run_timeout_secs bounds the whole rollout", async () => {
    const t0 = performance.now();
    const r = await postJson(`${stack.url.agent_fast}/run`, row("slow"));
    expect(r.json.error).toContain("run_timeout_secs=0.5");
    expect(performance.now() - t0).toBeLessThan(2900);
  });

  test("a row without responses_create_params is a 422, not a sentinel", async () => {
    const r = await postJson(`${stack.url.agent}/run`, { verifier_metadata: {} });
    expect(r.status).toBe(422);
  });

  test("/aggregate_metrics is proxied to the resources server", async () => {
    const r = await postJson(`${stack.url.agent}/aggregate_metrics`, { verify_responses: [] });
    expect(r.json.agent_metrics).toEqual({ mean: 1 });
  });
});

describe("remote_agent /v1/responses loop", () => {
  test("calls the service already answered pass through unexecuted", async () => {
    resCalls.length = 0;
    const r = await postJson(`${stack.url.agent}/v1/responses`, { input: [{ role: "user", content: "paired" }] });
    expect(r.json.output.map((o: Obj) => o.type)).toEqual(["function_call", "function_call_output", "message"]);
    expect(resCalls).toHaveLength(0);
  });

  test("a duplicated call_id executes once, with the last arguments", async () => {
    resCalls.length = 0;
    const r = await postJson(`${stack.url.agent}/v1/responses`, { input: [{ role: "user", content: "dupes" }] });
    expect(resCalls.map((c) => c.body)).toEqual([{ a: 10, b: 5 }]);
    expect(r.json.output.filter((o: Obj) => o.type === "function_call_output")).toEqual([{ type: "function_call_output", call_id: "d", output: "15" }]);
  });

  test("malformed arguments go back to the service as a tool error", async () => {
    const r = await postJson(`${stack.url.agent}/v1/responses`, { input: [{ role: "user", content: "malformed" }] });
    const out = r.json.output.find((o: Obj) => o.type === "function_call_output");
    expect(out.output).toContain("Invalid tool call arguments: JSONDecodeError(");
    expect(r.json.output.at(-1).content[0].text).toBe("saw error");
  });

  test("max_steps bounds the loop", async () => {
    remoteCalls.length = 0;
    await postJson(`${stack.url.agent_steps}/v1/responses`, { input: [{ role: "user", content: "forever" }] });
    expect(remoteCalls).toHaveLength(2);
  });

  test("the service's cookies round-trip to it and are not handed on", async () => {
    remoteCalls.length = 0;
    const res = await fetch(`${stack.url.agent}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input: [{ role: "user", content: "cookies" }] }) });
    await res.json();
    expect(remoteCalls.map((c) => c.cookie)).toEqual(["", "svc=turn1", "svc=turn2"]);
    expect(res.headers.getSetCookie().join(";")).not.toContain("svc=");
  });

  test("a string input is sent as one user message", async () => {
    remoteCalls.length = 0;
    await postJson(`${stack.url.agent}/v1/responses`, { input: "plain" });
    expect(remoteCalls[0]!.body.input).toEqual([{ role: "user", content: "plain" }]);
  });
});

describe("remote_agent config", () => {
  const bad: [string, RegExp][] = [
    ["ftp://host", /absolute http/],
    ["not a url", /absolute http/],
    ["http://host/x?token=1", /query string or fragment/],
    ["http://host/x#frag", /query string or fragment/],
  ];
  for (const [url, re] of bad) test(`agent_base_url ${url} rejected`, () => expect(() => normalizeRemoteUrl(url, "a")).toThrow(re));
  test("credentials rejected and never echoed", () => {
    let msg = "";
    try {
      normalizeRemoteUrl("http://user:hunter2@host", "a");
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toContain("must not embed credentials");
    expect(msg).not.toContain("hunter2");
  });
  test("trailing slash stripped", () => expect(normalizeRemoteUrl(" http://h:8000/ ", "a")).toBe("http://h:8000"));
  test("missing agent_base_url / resources_server are config errors", async () => {
    const comp = (await findBuiltin("responses_api_agents", "remote_agent"))!;
    expect(() => comp.checkConfig!({ instanceName: "a", config: { agent_base_url: "???", resources_server: { name: "r" } } })).toThrow(/agent_base_url is not set/);
    expect(() => comp.checkConfig!({ instanceName: "a", config: { agent_base_url: "http://h", resources_server: { name: "???" } } })).toThrow(/resources_server.name/);
    expect(() => comp.checkConfig!({ instanceName: "a", config: { agent_base_url: "http://h", resources_server: { name: "r" }, concurrency: 0 } })).toThrow(/concurrency/);
  });
  test("pendingCalls: an output before its call still pairs it", () => {
    expect(pendingCalls([{ type: "function_call_output", call_id: "x" }, { type: "function_call", call_id: "x" }, { type: "function_call", call_id: "y" }]).map((c) => c.call_id)).toEqual(["y"]);
  });
});
