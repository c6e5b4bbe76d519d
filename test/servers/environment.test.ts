import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RequestContext } from "../../src/runtime/http/http-types.ts";
import { ServerClient } from "../../src/runtime/http/client.ts";
import { serveApp } from "../../src/runtime/http/http.ts";
import { episodeHandler, EpisodeFailed, episodeLimitsFromLeaf, type EpisodeLimits } from "../../src/servers/environment.ts";
import { legacyAgentApp, rawRelayOver } from "../../src/servers/environment-legacy.ts";
import { failure } from "../../src/servers/episode-protocol.ts";
import { innerClientFrom } from "../../src/servers/inner-client.ts";
import { postJson } from "./_stack.ts";

type Obj = Record<string, any>;

const ctxFor = (body: unknown): RequestContext => ({ request: new Request("http://x/run", { method: "POST" }), body, sessionId: "s", cookies: {}, responseCookies: {}, rolloutId: undefined, signal: new AbortController().signal, params: {} });
const req = (rollout: string) => ({ episode_id: { rollout_id: rollout, attempt: 0 }, task: { task_id: { taskset: "t", task_id: rollout }, task_input: { responses_create_params: { input: "x" } } } });
const limits = (over: Partial<EpisodeLimits> = {}): EpisodeLimits => ({ maxConcurrentEpisodes: null, queueTimeoutSeconds: null, defaultEpisodeTimeoutSeconds: null, cleanupTimeoutSeconds: 5, ...over });

describe("episode lifecycle (§10.2)", () => {
  test("result echoes episode_id and task_id; cleanup runs LIFO and its errors never fail the episode", async () => {
    const order: string[] = [];
    const h = episodeHandler("env", limits(), async (_r, cleanup) => {
      cleanup.add("first", async () => void order.push("first"));
      cleanup.add("second", async () => {
        order.push("second");
        throw new Error("close failed");
      });
      return { reward: 1 };
    });
    const out = (await h(ctxFor(req("1-0")))) as Obj;
    expect(out).toEqual({ episode_id: { rollout_id: "1-0", attempt: 0 }, task_id: { taskset: "t", task_id: "1-0" }, result: { reward: 1 }, failure: null });
    expect(order).toEqual(["second", "first"]);
  });

  test("admission timeout, episode timeout, handled and unhandled failures", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = episodeHandler("env", limits({ maxConcurrentEpisodes: 1, queueTimeoutSeconds: 0.05 }), async () => {
      await gate;
      return { reward: 1 };
    });
    const first = slow(ctxFor(req("a")));
    const second = (await slow(ctxFor(req("b")))) as Obj;
    expect(second.result).toBeNull();
    expect(second.failure).toEqual({ failure_reason: "Episode admission timed out", terminal: false, stage: "admission" });
    release();
    expect(((await first) as Obj).result).toEqual({ reward: 1 });

    const timed = episodeHandler("env", limits({ defaultEpisodeTimeoutSeconds: 0.05 }), () => new Promise(() => {}));
    expect(((await timed(ctxFor(req("c")))) as Obj).failure).toEqual({ failure_reason: "Episode timed out", terminal: false });

    const handled = episodeHandler("env", limits(), async () => {
      throw new EpisodeFailed(failure("seed broke", false, { stage: "seed" }));
    });
    expect(((await handled(ctxFor(req("d")))) as Obj).failure).toEqual({ failure_reason: "seed broke", terminal: false, stage: "seed" });

    const unhandled = episodeHandler("env", limits(), async () => {
      throw new TypeError("x is not a function");
    });
    expect(((await unhandled(ctxFor(req("e")))) as Obj).failure).toEqual({ failure_reason: "Unhandled environment server error: TypeError: x is not a function", terminal: true });
  });

  test("config: queue_timeout_seconds is required with max_concurrent_episodes", () => {
    expect(() => episodeLimitsFromLeaf({ max_concurrent_episodes: 2 }, "env")).toThrow(/queue_timeout_seconds is required/);
    expect(episodeLimitsFromLeaf({}, "env").cleanupTimeoutSeconds).toBe(180);
  });
});

describe("legacy_agent relay (§10.3)", () => {
  const received: Obj[] = [];
  const agent = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(r) {
      received.push({ cookie: r.headers.get("cookie"), custom: r.headers.get("x-custom"), body: await r.json() });
      const h = new Headers({ "content-type": "application/json", "x-from-agent": "1" });
      h.append("set-cookie", "A=1; Path=/");
      h.append("set-cookie", "B=2; Path=/");
      return new Response(JSON.stringify({ reward: 0.5 }), { status: 201, headers: h });
    },
  });
  let env: ReturnType<typeof serveApp>;
  beforeAll(() => {
    const client = innerClientFrom(new ServerClient({ agent: { responses_api_agents: { simple_agent: { host: "127.0.0.1", port: agent.port } } } }));
    env = serveApp(legacyAgentApp({ className: "LegacyAgent", instanceName: "env", agentServer: "agent", client }), { host: "127.0.0.1", port: 0 });
  });
  afterAll(() => {
    env.stop(true);
    agent.stop(true);
  });

  test("body, headers and cookies go through; status, body, headers and every Set-Cookie come back", async () => {
    const res = await fetch(`http://127.0.0.1:${env.port}/run`, { method: "POST", headers: { "content-type": "application/json", cookie: "C=3", "x-custom": "y" }, body: JSON.stringify({ responses_create_params: { input: "x" }, k: 1 }) });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ reward: 0.5 });
    expect(res.headers.get("x-from-agent")).toBe("1");
    expect(res.headers.getSetCookie().map((c) => c.split(";")[0])).toEqual(["A=1", "B=2"]);
    expect(received.at(-1)).toEqual({ cookie: "C=3", custom: "y", body: { responses_create_params: { input: "x" }, k: 1 } });
    const agg = await postJson(`http://127.0.0.1:${env.port}/aggregate_metrics`, { verify_responses: [] });
    expect(agg.status).toBe(200);
    expect(agg.json).toEqual({ reward: 0.5 });
  });
});

describe("legacy_agent relay with the raw transport (§10.3: body bytes passed through)", () => {
  const got: { text: string; cookie: string | null; type: string | null }[] = [];
  const agent = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(r) {
      got.push({ text: await r.text(), cookie: r.headers.get("cookie"), type: r.headers.get("content-type") });
      const h = new Headers({ "content-type": "application/json" });
      h.append("set-cookie", "A=1; Path=/");
      return new Response('{"reward": 1.0}', { status: 200, headers: h });
    },
  });
  let env: ReturnType<typeof serveApp>;
  beforeAll(() => {
    const sc = new ServerClient({ agent: { responses_api_agents: { simple_agent: { host: "127.0.0.1", port: agent.port } } } });
    const client = innerClientFrom(sc);
    env = serveApp(legacyAgentApp({ className: "LegacyAgent", instanceName: "env", agentServer: "agent", client, raw: rawRelayOver(client, (url, init) => sc.http.exchange(url, init)) }), { host: "127.0.0.1", port: 0 });
  });
  afterAll(() => {
    env.stop(true);
    agent.stop(true);
  });

  test("the agent receives the exact bytes (spacing, key order) and the answer comes back byte for byte", async () => {
    const body = '{ "responses_create_params" : {"input": "x"},\n "b": 1.0, "a": 2 }';
    const res = await fetch(`http://127.0.0.1:${env.port}/run`, { method: "POST", headers: { "content-type": "application/json", cookie: "C=3" }, body });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"reward": 1.0}');
    expect(res.headers.getSetCookie().map((c) => c.split(";")[0])).toEqual(["A=1"]);
    expect(got.at(-1)).toEqual({ text: body, cookie: "C=3", type: "application/json" });
  });

  test("invalid JSON is relayed too, for the agent to answer", async () => {
    const res = await fetch(`http://127.0.0.1:${env.port}/run`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(res.status).toBe(200);
    expect(got.at(-1)!.text).toBe("{not json");
  });
});
