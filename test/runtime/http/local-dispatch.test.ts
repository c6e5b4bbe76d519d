/**
 * The in-process short cut of a server's call to itself (simple_agent /run → own /v1/responses):
 * a rollout's bytes, status and cookie threading are the same through the short cut as over HTTP,
 * and the short cut keeps the client's deadline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import "../../../src/components/index.ts";
import { findBuiltin } from "../../../src/components/registry.ts";
import type { ConfigDict } from "../../../src/config/types.ts";
import { createEntries, listen, originOf, serveApp } from "../../../src/runtime/http/http.ts";
import { clientPolicyFromConfig, HttpClient, RequestFailedError } from "../../../src/runtime/http/http-client.ts";
import { localServer, serveLocally } from "../../../src/runtime/http/local-dispatch.ts";
import { poolLimits } from "../../../src/runtime/http/pool.ts";
import { ServerClient } from "../../../src/runtime/http/server-client.ts";
import type { ServerApp } from "../../../src/runtime/http/http-types.ts";
import { modelServerApp } from "../../../src/servers/model.ts";

type Obj = Record<string, any>;

const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 };
const resp = (output: Obj[]) => ({ id: "resp_x", object: "response", created_at: 1, model: "fake", output, parallel_tool_calls: true, tool_choice: "auto", tools: [], usage, status: "completed", incomplete_details: null });

// A model server answering a get_weather call, then (once the tool output is in) a message; "FAIL" in the prompt fails it.
const model = serveApp(
  modelServerApp({
    className: "FakeModel",
    instanceName: "policy_model",
    backend: {
      async responses(params) {
        if (JSON.stringify(params.input).includes("FAIL")) throw new Error("the model fell over");
        const done = (params.input as Obj[]).some((i) => i.type === "function_call_output");
        if (!done) return resp([{ type: "function_call", id: "fc_1", call_id: "c1", name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" }]);
        return resp([{ type: "message", id: "m1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "cold ❄", annotations: [] }] }]);
      },
      async chatCompletions() {
        throw new Error("unused");
      },
    },
  }),
  { host: "127.0.0.1", port: 0 },
);

let config: ConfigDict;
let agentOrigin = "";
let agentEntries: ReturnType<typeof createEntries>;
const servers: { stop(force?: boolean): unknown }[] = [];
/** Paths that reached the agent over a socket. */
const agentHttpPaths: string[] = [];
/** [path, cookie header] of each call that reached the resources server. */
const resourcesCookies: [string, string | null][] = [];
/** The resources session cookie each /seed_session answer set. */
const seededCookies: string[] = [];

beforeAll(async () => {
  const ref = (name: string, type: string) => ({ type, name });
  config = {
    weather: { resources_servers: { example_single_tool_call: { host: "127.0.0.1", name: "weather" } } },
    agent: { responses_api_agents: { simple_agent: { host: "127.0.0.1", name: "agent", resources_server: ref("weather", "resources_servers"), model_server: ref("policy_model", "responses_api_models") } } },
    policy_model: { responses_api_models: { fake: { host: "127.0.0.1", port: model.port } } },
  };
  const leaf = (name: string, type: string, impl: string) => (config[name] as Obj)[type][impl] as Obj;
  const build = async (name: string, type: "resources_servers" | "responses_api_agents", impl: string): Promise<ServerApp> =>
    (await findBuiltin(type, impl))!.create({ instanceName: name, config: leaf(name, type, impl), globalConfig: config });

  const weather = createEntries(await build("weather", "resources_servers", "example_single_tool_call"));
  const ws = listen(async (req) => {
    const path = new URL(req.url).pathname;
    resourcesCookies.push([path, req.headers.get("cookie")]);
    const res = await weather.handler(req);
    if (path === "/seed_session") seededCookies.push(res.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; "));
    return res;
  }, { host: "127.0.0.1", port: 0 });
  leaf("weather", "resources_servers", "example_single_tool_call").port = ws.port;
  servers.push(ws);

  // The agent's port is published before its app is built (as the supervisor does), so its origin is known.
  let handler: (req: Request) => Promise<Response> = async () => new Response("not ready", { status: 503 });
  const as = listen((req) => {
    agentHttpPaths.push(new URL(req.url).pathname);
    return handler(req);
  }, { host: "127.0.0.1", port: 0 });
  leaf("agent", "responses_api_agents", "simple_agent").port = as.port;
  agentOrigin = originOf("127.0.0.1", as.port!);
  agentEntries = createEntries(await build("agent", "responses_api_agents", "simple_agent"), { origin: () => agentOrigin });
  handler = agentEntries.handler;
  servers.push(as);
});

afterAll(() => {
  for (const s of servers) s.stop(true);
  model.stop(true);
});

const row = (prompt: string) => ({ responses_create_params: { input: [{ role: "user", content: prompt }], tools: [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: true }] }, extra: { kept: [1, "two"] } });

/** One rollout through the agent's /run, with the self-call served in process or over HTTP. */
async function rollout(mode: "local" | "http", body: Obj, headers: Record<string, string> = {}): Promise<{ status: number; text: string; selfOverHttp: number; cookieNames: string[] }> {
  const stop = mode === "local" ? serveLocally(agentOrigin, agentEntries.local) : undefined;
  agentHttpPaths.length = 0;
  resourcesCookies.length = 0;
  seededCookies.length = 0;
  try {
    expect(localServer(agentOrigin) !== undefined).toBe(mode === "local");
    const res = await fetch(`${agentOrigin}/run`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
    const text = await res.text();
    const cookieNames = res.headers.getSetCookie().map((c) => c.slice(0, c.indexOf("="))).sort();
    return { status: res.status, text, selfOverHttp: agentHttpPaths.filter((p) => p.endsWith("/v1/responses")).length, cookieNames };
  } finally {
    stop?.();
  }
}

describe("an agent's call to its own /v1/responses", () => {
  test("a rollout's bytes are the same through the short cut and over HTTP, and the short cut sends nothing over a socket", async () => {
    const viaHttp = await rollout("http", row("weather in Paris?"));
    const viaLocal = await rollout("local", row("weather in Paris?"));
    expect(viaHttp.selfOverHttp).toBe(1);
    expect(viaLocal.selfOverHttp).toBe(0);
    expect(viaHttp.status).toBe(200);
    expect(viaLocal.status).toBe(viaHttp.status);
    expect(viaLocal.text).toBe(viaHttp.text);
    expect(viaLocal.cookieNames).toEqual(viaHttp.cookieNames);
    const answer = JSON.parse(viaLocal.text) as Obj;
    expect(answer.reward).toBe(1);
    expect(answer.response.output.map((o: Obj) => o.type)).toEqual(["function_call", "function_call_output", "message"]);
  });

  test("the resources session cookie set at seed travels through the self-call to the tool and to verify, in both modes", async () => {
    for (const mode of ["http", "local"] as const) {
      await rollout(mode, row("weather?"));
      expect(seededCookies.length).toBe(1);
      const seeded = seededCookies[0]!;
      expect(seeded).toStartWith("SimpleWeatherResourcesServer___weather=");
      const later = resourcesCookies.filter(([p]) => p === "/get_weather" || p === "/verify");
      expect(later.map(([p]) => p)).toEqual(["/get_weather", "/verify"]);
      for (const [, cookie] of later) expect(cookie).toContain(seeded);
    }
  });

  test("a rollout id header takes the prefixed self path in both modes with the same bytes", async () => {
    const h = { "x-nemo-gym-rollout-id": "7-0" };
    const viaHttp = await rollout("http", row("weather?"), h);
    const viaLocal = await rollout("local", row("weather?"), h);
    expect(agentHttpPaths.length).toBe(1);
    expect(viaHttp.selfOverHttp).toBe(1);
    expect(viaLocal.text).toBe(viaHttp.text);
  });

  test("a failing model gives the same 500 body through the short cut as over HTTP", async () => {
    const viaHttp = await rollout("http", row("FAIL please"));
    const viaLocal = await rollout("local", row("FAIL please"));
    expect(viaHttp.status).toBe(500);
    expect(viaLocal.status).toBe(500);
    expect(viaLocal.text).toBe(viaHttp.text);
    expect(viaLocal.text).toContain("calling an inner server");
  });

  test("a body the route refuses gets the same 422 in process as over HTTP", async () => {
    const sc = new ServerClient(config);
    const bad = { input: 42 };
    const overHttp = await sc.exchange("agent", "/v1/responses", { method: "POST", json: bad });
    const stop = serveLocally(agentOrigin, agentEntries.local);
    try {
      const local = await sc.exchange("agent", "/v1/responses", { method: "POST", json: bad });
      expect(local.status).toBe(422);
      expect(local.status).toBe(overHttp.status);
      expect(local.text).toBe(Buffer.from(overHttp.body).toString("utf8"));
    } finally {
      stop();
    }
  });
});

describe("localExchange", () => {
  test("keeps the caller's deadline: a silent handler times out as TimeoutError and its request signal aborts", async () => {
    const origin = "http://127.0.0.1:1";
    let handlerSignal: AbortSignal | undefined;
    const stop = serveLocally(origin, (req) => {
      handlerSignal = req.signal;
      return new Promise(() => {});
    });
    try {
      const dict: ConfigDict = { me: { resources_servers: { x: { host: "127.0.0.1", port: 1 } } } };
      const sc = new ServerClient(dict, { http: new HttpClient(clientPolicyFromConfig(dict, poolLimits(dict))) });
      const err = await sc.exchange("me", "/slow", { method: "POST", json: {}, timeoutSeconds: 0.05 }).catch((e) => e);
      expect(err).toBeInstanceOf(RequestFailedError);
      expect((err as RequestFailedError).timedOut).toBe(true);
      expect(handlerSignal?.aborted).toBe(true);
    } finally {
      stop();
    }
  });

  test("the caller's signal aborts the handler's request signal", async () => {
    const origin = "http://127.0.0.1:2";
    let handlerSignal: AbortSignal | undefined;
    const stop = serveLocally(origin, (req) => {
      handlerSignal = req.signal;
      return new Promise(() => {});
    });
    try {
      const sc = new ServerClient({ me: { resources_servers: { x: { host: "127.0.0.1", port: 2 } } } });
      const ac = new AbortController();
      const pending = sc.exchange("me", "/slow", { method: "POST", json: {}, signal: ac.signal }).catch((e) => e);
      ac.abort(new Error("caller gave up"));
      expect(((await pending) as Error).message).toBe("caller gave up");
      expect(handlerSignal?.aborted).toBe(true);
    } finally {
      stop();
    }
  });
});
