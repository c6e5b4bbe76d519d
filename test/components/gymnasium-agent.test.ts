/**
 * gymnasium_agent against a recording environment and model on real loopback sockets: upstream's
 * agent tests (responses_api_agents/gymnasium_agent/tests) as data — step loop, summed reward,
 * observations and tool outputs in the history, max_steps truncation, usage summed, explicit close
 * (also after failures, with the episode cookie), inbound cookies kept, step idempotency ids.
 */
import { afterEach, expect, test } from "bun:test";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

type Obj = Record<string, any>;
interface Call { path: string; body: Obj; cookie: string | null }

/** A loopback server answering each path from a queue (a function may throw → 500) and logging every call. */
function recorder(answers: Record<string, (Obj | ((body: Obj) => Response))[]>, setCookie?: Record<string, string>) {
  const calls: Call[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname.replace(/^\/ng-rollout\/[^/]+/, "");
      const body = (await req.json().catch(() => ({}))) as Obj;
      calls.push({ path, body, cookie: req.headers.get("cookie") });
      const next = answers[path]?.shift();
      if (next === undefined) return new Response(JSON.stringify({ detail: `unexpected ${path}` }), { status: 500 });
      if (typeof next === "function") return next(body);
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (setCookie?.[path]) headers["set-cookie"] = setCookie[path]!;
      return new Response(JSON.stringify(next), { headers });
    },
  });
  return { calls, port: server.port, stop: () => server.stop(true) };
}

const model = (text: string, usage = { i: 1, o: 1, c: 0, r: 0 }): Obj => ({
  id: `resp_${text}`, created_at: 0, model: "m", object: "response", parallel_tool_calls: true, tool_choice: "auto", tools: [],
  output: [{ id: `msg_${text}`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }],
  usage: { input_tokens: usage.i, input_tokens_details: { cached_tokens: usage.c }, output_tokens: usage.o, output_tokens_details: { reasoning_tokens: usage.r }, total_tokens: usage.i + usage.o },
});
const step = (reward: number, o: Obj = {}): Obj => ({ observation: null, reward, terminated: false, truncated: false, info: {}, ...o });

let cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function rig(envAnswers: Record<string, any[]>, modelAnswers: Obj[], maxSteps = 10, setCookie?: Record<string, string>) {
  const env = recorder(envAnswers, setCookie);
  const pol = recorder({ "/v1/responses": modelAnswers });
  const stack: Stack = await startStack(
    [{ name: "agent", serverType: "responses_api_agents", impl: "gymnasium_agent", leaf: { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "pol" }, max_steps: maxSteps } }],
    { env: { resources_servers: { fake: { host: "127.0.0.1", port: env.port } } }, pol: { responses_api_models: { fake: { host: "127.0.0.1", port: pol.port } } } },
  );
  cleanup.push(() => stack.stop(), env.stop, pol.stop);
  return { env, pol, url: stack.url.agent! };
}

const row = { responses_create_params: { input: [{ role: "user", content: "play" }] }, level: 3 };

test("terminates on the first step: one reset, one model call, one step, no close; the row's fields reach the env", async () => {
  const { env, pol, url } = await rig({ "/reset": [{ observation: "go", info: {} }], "/step": [step(1, { terminated: true })] }, [model("move A")]);
  const r = await postJson(`${url}/run`, row);
  expect(r.status).toBe(200);
  expect([r.json.reward, r.json.terminated, r.json.truncated]).toEqual([1, true, false]);
  expect(env.calls.map((c) => c.path)).toEqual(["/reset", "/step"]);
  expect(env.calls[1]!.body.level).toBe(3);
  expect(env.calls[1]!.body.response.output[0].content[0].text).toBe("move A");
  // The reset observation is appended to the prompt as a user message.
  expect(pol.calls[0]!.body.input.map((m: Obj) => m.content)).toEqual(["play", "go"]);
  expect(r.json.responses_create_params.input.at(-1)).toMatchObject({ role: "user", content: "go" });
});

test("multi-step: rewards summed, turn-1 output kept structured, observation appended; idempotency ids unique", async () => {
  const { env, pol, url } = await rig(
    { "/reset": [{ observation: "start", info: { supports_step_idempotency: true } }], "/step": [step(0.5, { observation: "obs-1" }), step(0.5, { terminated: true })] },
    [model("turn-1", { i: 5, o: 7, c: 2, r: 3 }), model("turn-2", { i: 11, o: 13, c: 5, r: 7 })],
    3,
  );
  const r = await postJson(`${url}/run`, row);
  expect([r.json.reward, r.json.terminated]).toEqual([1, true]);
  const ids = env.calls.filter((c) => c.path === "/step").map((c) => c.body._ng_step_request_id);
  expect(new Set(ids).size).toBe(2);
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
  const turn2 = pol.calls[1]!.body.input as Obj[];
  expect(turn2.find((m) => m.role === "assistant")!.content[0]).toMatchObject({ type: "output_text", text: "turn-1" });
  expect(turn2.at(-1)).toMatchObject({ role: "user", content: "obs-1" });
  expect(r.json.response.output.map((o: Obj) => o.role)).toEqual(["assistant", "user", "assistant"]);
  // Usage summed across both turns.
  expect(r.json.response.usage).toEqual({ input_tokens: 16, input_tokens_details: { cached_tokens: 7 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 10 }, total_tokens: 36 });
});

test("info.tool_outputs become function_call_output items tied to their call ids", async () => {
  const { pol, url } = await rig(
    { "/reset": [{ observation: null, info: {} }], "/step": [step(0, { info: { tool_outputs: [{ call_id: "c1", output: "{\"t\": 3}" }] } }), step(1, { terminated: true })] },
    [model("a"), model("b")],
  );
  const r = await postJson(`${url}/run`, row);
  expect(r.json.reward).toBe(1);
  expect((pol.calls[1]!.body.input as Obj[]).at(-1)).toEqual({ type: "function_call_output", call_id: "c1", output: "{\"t\": 3}" });
});

test("max_steps reached: truncated, not terminated; an advertised close is called once", async () => {
  const { env, url } = await rig(
    { "/reset": [{ observation: null, info: { supports_explicit_close: true } }], "/step": [step(0, { observation: "o1" }), step(0, { observation: "o2" })], "/close": [{ ok: true }] },
    [model("a"), model("b")],
    2,
  );
  const r = await postJson(`${url}/run`, row);
  expect([r.json.truncated, r.json.terminated]).toEqual([true, false]);
  expect(env.calls.filter((c) => c.path === "/close").length).toBe(1);
});

test("a failed close after a good rollout keeps the result and adds info.cleanup_warning", async () => {
  const { url } = await rig(
    { "/reset": [{ observation: "go", info: { supports_explicit_close: true } }], "/step": [step(1.25, { terminated: true, info: { step_idx: 1 } })], "/close": [() => new Response("close unavailable", { status: 500 })] },
    [model("a")],
  );
  const r = await postJson(`${url}/run`, row);
  expect(r.status).toBe(200);
  expect(r.json.reward).toBe(1.25);
  expect(r.json.info.step_idx).toBe(1);
  expect(r.json.info.cleanup_warning.operation).toBe("close");
  expect(typeof r.json.info.cleanup_warning.error_type).toBe("string");
});

test("a model failure after reset still closes the environment with the episode cookie", async () => {
  const { env, url } = await rig(
    { "/reset": [{ observation: "start", info: { supports_explicit_close: true } }], "/close": [{ ok: true }] },
    [],
    2,
    { "/reset": "session=episode-cookie; Path=/" },
  );
  const r = await postJson(`${url}/run`, row);
  expect(r.status).toBe(500);
  const close = env.calls.filter((c) => c.path === "/close");
  expect(close.length).toBe(1);
  expect(close[0]!.cookie).toContain("session=episode-cookie");
});

test("a malformed reset answer still closes; inbound cookies reach reset and close", async () => {
  const { env, url } = await rig({ "/reset": [{ observation: { not: "text" }, info: { supports_explicit_close: true } }], "/close": [{ ok: true }] }, []);
  const r = await postJson(`${url}/run`, row, { session: "existing-cookie" });
  expect(r.status).toBe(500);
  expect(env.calls.map((c) => c.path)).toEqual(["/reset", "/close"]);
  for (const c of env.calls) expect(c.cookie).toContain("session=existing-cookie");
});

test("bad input: a row without responses_create_params is a 422 and nothing is called", async () => {
  const { env, url } = await rig({}, []);
  const r = await postJson(`${url}/run`, { level: 1 });
  expect(r.status).toBe(422);
  expect(env.calls.length).toBe(0);
});

test("max_steps < 1 is refused by the config check (upstream ge=1)", async () => {
  const { component } = await import("../../src/components/agents/gymnasium-agent.ts");
  expect(() => component.checkConfig!({ instanceName: "a", config: { max_steps: 0 } })).toThrow(/max_steps must be an integer ≥ 1/);
  expect(() => component.checkConfig!({ instanceName: "a", config: {} })).not.toThrow();
});
