import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import {
  callKindOf,
  HttpClient,
  poolLimits,
  raiseForStatus,
  RequestFailedError,
  responseCookies,
  ServerClient,
  setupServerClient,
  bunMaxHttpRequests,
  withRolloutId,
  answerCookies,
  answerText,
} from "../../../src/runtime/http/client.ts";
import { InnerServerError } from "../../../src/runtime/http/http-types.ts";
import { ConfigError } from "../../../src/errors.ts";
import { envVar, setEnvVar } from "../../../src/env.ts";

// Real processes on a shared 2-core machine: allow more than bun's 5 s default.
setDefaultTimeout(30_000);

const policy = (over: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) => ({ retryBudgetSeconds: 5, limits: { limit: 0, limitPerHost: 0 }, debug: false, ...over });

// One loopback server whose behaviour each test sets through a path.
let flaky = 0;
let inFlight = 0;
let maxInFlight = 0;
const seen: { path: string; cookie: string | null; acceptEncoding: string | null }[] = [];
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    seen.push({ path, cookie: req.headers.get("cookie"), acceptEncoding: req.headers.get("accept-encoding") });
    if (path === "/moved") return new Response(null, { status: 307, headers: { location: "/x" } });
    if (path === "/gzipped") return new Response(Bun.gzipSync(Buffer.from('{"zipped":true}')), { headers: { "content-encoding": "gzip", "content-type": "application/json" } });
    if (path === "/flaky") return flaky-- > 0 ? new Response("busy", { status: 503 }) : Response.json({ ok: true });
    if (path === "/always503") return new Response("busy", { status: 503 });
    if (path === "/slow") {
      await Bun.sleep(2000);
      return new Response("late");
    }
    if (path === "/count") {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await Bun.sleep(30);
      inFlight--;
      return new Response("ok");
    }
    if (path === "/bad") return new Response('{"detail":"nope"}', { status: 400 });
    if (path === "/cookies") return new Response("{}", { headers: [["set-cookie", "A___x=1; path=/"], ["set-cookie", "B___y=two; Path=/; HttpOnly"]] });
    return Response.json({ path });
  },
});
const base = `http://127.0.0.1:${server.port}`;
afterAll(() => server.stop(true));

describe("HttpClient", () => {
  test("classifies hops: episode, model, other", () => {
    expect(callKindOf("/run")).toBe("episode");
    expect(callKindOf("/v1/agent_sessions/abc")).toBe("episode");
    expect(callKindOf("/v1/responses")).toBe("model");
    expect(callKindOf("/ng-rollout/1-0/v1/chat/completions")).toBe("model");
    expect(callKindOf("/v1/messages")).toBe("model");
    expect(callKindOf("/verify")).toBe("other");
    expect(callKindOf("/models")).toBe("other");
    // The rollout prefix (with or without the capture segment) and a query do not change the kind.
    expect(callKindOf("/ng-rollout/r1/training-token-capture/v1/responses?x=1")).toBe("model");
    expect(callKindOf("/ng-rollout/r1/run")).toBe("episode");
    expect(callKindOf("/run?async=1")).toBe("episode");
    expect(callKindOf("/v1/responses/x")).toBe("other");
    expect(callKindOf("/x/ng-rollout/r1/run")).toBe("other");
  });

  test("retries 503 with backoff until it succeeds", async () => {
    flaky = 2;
    const c = new HttpClient(policy());
    const res = await c.request(`${base}/flaky`);
    expect(res.status).toBe(200);
    expect(c.retries).toBe(2);
  });

  test("a retryable status past the budget is returned to the caller", async () => {
    const c = new HttpClient(policy({ retryBudgetSeconds: 0.3 }));
    const started = performance.now();
    const res = await c.request(`${base}/always503`);
    expect(res.status).toBe(503);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test("connection refused is retried within the budget, then fails naming the URL and the key", async () => {
    const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = dead.port;
    dead.stop(true);
    // The first backoff is 250–500 ms (jittered): a 0.5 s budget let a slow first attempt plus a
    // long draw skip the retry now and then, so the budget leaves room for one whatever the draw.
    const c = new HttpClient(policy({ retryBudgetSeconds: 1.5 }));
    const err = await c.request(`http://127.0.0.1:${port}/verify`, { json: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(RequestFailedError);
    expect(err.message).toContain(`http://127.0.0.1:${port}/verify`);
    expect(err.message).toContain("request_retry_budget_seconds");
    expect(c.retries).toBeGreaterThan(0);
  });

  test("the per-request timeout fires and names the key", async () => {
    const c = new HttpClient(policy({ timeoutSeconds: 0.2 }));
    const err = await c.request(`${base}/slow`).catch((e) => e);
    expect(err).toBeInstanceOf(RequestFailedError);
    expect(err.timedOut).toBe(true);
    expect(err.message).toContain("request_timeout_seconds");
  });

  test("cookies are sent explicitly and read back from Set-Cookie; nothing is remembered", async () => {
    const c = new HttpClient(policy());
    const res = await c.request(`${base}/cookies`, { cookies: { S___a: "v1", T___b: "v2" } });
    expect(responseCookies(res)).toEqual({ A___x: "1", B___y: "two" });
    expect(seen.at(-1)!.cookie).toBe("S___a=v1; T___b=v2");
    await c.request(`${base}/cookies`);
    expect(seen.at(-1)!.cookie).toBeNull();
  });

  test("raiseForStatus turns non-2xx into InnerServerError with the body", async () => {
    const c = new HttpClient(policy());
    const err = await raiseForStatus(await c.request(`${base}/bad`)).catch((e) => e);
    expect(err).toBeInstanceOf(InnerServerError);
    expect(err.status).toBe(400);
    expect(err.body).toBe('{"detail":"nope"}');
  });

  test("the per-host limit bounds requests in flight", async () => {
    maxInFlight = 0;
    const c = new HttpClient(policy({ limits: { limit: 0, limitPerHost: 3 } }));
    await Promise.all(Array.from({ length: 12 }, () => c.request(`${base}/count`).then((r) => r.text())));
    expect(maxInFlight).toBe(3);
  });

  test("internal calls bypass a configured proxy per request (D34), leaving NO_PROXY untouched", async () => {
    const keys = ["HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"];
    const saved = Object.fromEntries(keys.map((k) => [k, envVar(k)]));
    setEnvVar("HTTP_PROXY", "http://127.0.0.1:9");
    setEnvVar("http_proxy", "http://127.0.0.1:9");
    setEnvVar("NO_PROXY", undefined);
    setEnvVar("no_proxy", undefined);
    try {
      const c = new HttpClient(policy({ retryBudgetSeconds: 0 }));
      // The pool (plain target) and fetch (a target the pool leaves to fetch) both go direct.
      expect((await c.request(`${base}/x`, { internal: true })).status).toBe(200);
      expect((await c.request(`${base}/caf\u00e9`, { internal: true })).status).toBe(200);
      // The process environment is not rewritten (it used to gain NO_PROXY=127.0.0.1).
      expect(envVar("NO_PROXY")).toBeUndefined();
      expect(envVar("no_proxy")).toBeUndefined();
      // An external call still honours the proxy variable (the dead proxy refuses it).
      await expect(c.request(`${base}/caf\u00e9`)).rejects.toBeInstanceOf(RequestFailedError);
    } finally {
      for (const [k, v] of Object.entries(saved)) setEnvVar(k, v);
    }
  });
});

describe("HttpClient transports", () => {
  // Exactly these proxy variables for the duration of fn (the others unset, whatever the machine has).
  const withProxyVars = async (vars: Record<string, string>, fn: () => Promise<void>) => {
    const keys = ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"];
    const saved = Object.fromEntries(keys.map((k) => [k, envVar(k)]));
    for (const k of keys) setEnvVar(k, vars[k]);
    try {
      await fn();
    } finally {
      for (const [k, v] of Object.entries(saved)) setEnvVar(k, v);
    }
  };
  const last = (path: string) => seen.filter((s) => s.path === path).at(-1)!;

  test("exchange reads an answer whole: status, header lines (each Set-Cookie its own), body", async () => {
    const c = new HttpClient(policy());
    for (const internal of [true, false]) {
      const a = await c.exchange(`${base}/cookies`, { internal });
      expect(a.status).toBe(200);
      expect(a.headers.filter(([k]) => k === "set-cookie").map(([, v]) => v)).toEqual(["A___x=1; path=/", "B___y=two; Path=/; HttpOnly"]);
      expect(answerCookies(a)).toEqual({ A___x: "1", B___y: "two" });
      expect(answerText(a)).toBe("{}");
    }
    const bad = await c.exchange(`${base}/bad`);
    expect([bad.status, answerText(bad)]).toEqual([400, '{"detail":"nope"}']);
  });

  test("a plain-http model call to another host uses the keep-alive pool unless a proxy variable is set; other external calls use fetch", async () => {
    const c = new HttpClient(policy());
    await withProxyVars({}, async () => {
      await c.exchange(`${base}/via-pool`, { json: {}, kind: "model" });
      // The pool asks for an unencoded answer; fetch asks for compressed ones.
      expect(last("/via-pool").acceptEncoding).toBe("identity");
      await c.exchange(`${base}/v1/chat/completions`, { json: {} });
      expect(last("/v1/chat/completions").acceptEncoding).toBe("identity");
      // Not a model call (a hub, a tracker): fetch, which streams large bodies.
      await c.exchange(`${base}/not-a-model-call`, { json: {} });
      expect(last("/not-a-model-call").acceptEncoding).toContain("gzip");
    });
    await withProxyVars({ HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "127.0.0.1" }, async () => {
      await c.exchange(`${base}/via-fetch`, { json: {}, kind: "model" });
      expect(last("/via-fetch").acceptEncoding).toContain("gzip");
    });
    // A caller's own Accept-Encoding goes through fetch, which decodes what it asked for.
    await withProxyVars({}, async () => {
      await c.exchange(`${base}/own-encoding`, { headers: { "Accept-Encoding": "gzip" }, kind: "model" });
      expect(last("/own-encoding").acceptEncoding).toBe("gzip");
    });
  });

  test("a redirect or an encoded answer from another host is redone with fetch", async () => {
    const c = new HttpClient(policy());
    const moved = await c.exchange(`${base}/moved`, { json: { a: 1 }, kind: "model" });
    expect([moved.status, answerText(moved)]).toEqual([200, '{"path":"/x"}']);
    const before = seen.filter((s) => s.path === "/gzipped").length;
    await withProxyVars({}, async () => {
      const zipped = await c.request(`${base}/gzipped`, { kind: "model" });
      expect(await zipped.json()).toEqual({ zipped: true });
    });
    // Once over the pool (which asked for identity), once more with fetch.
    expect(seen.filter((s) => s.path === "/gzipped").length - before).toBe(2);
    expect(c.retries).toBe(0);
  });
});

describe("pool limits", () => {
  test("limits divide by workers; a positive limit that would become 0 is an error", () => {
    expect(poolLimits({}, 1)).toEqual({ limit: 102400, limitPerHost: 1024 });
    expect(poolLimits({ global_aiohttp_connector_limit: 100, global_aiohttp_connector_limit_per_host: 0 }, 3)).toEqual({ limit: 33, limitPerHost: 0 });
    const err = (() => { try { poolLimits({ global_aiohttp_connector_limit: 3 }, 4, "math"); } catch (e) { return e; } })() as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain("global_aiohttp_connector_limit=3 is smaller than num_workers=4 for server 'math'");
  });

  test("BUN_CONFIG_MAX_HTTP_REQUESTS stays within Bun's range", () => {
    expect(bunMaxHttpRequests({ limit: 102400, limitPerHost: 1 })).toBe(65535);
    expect(bunMaxHttpRequests({ limit: 0, limitPerHost: 1 })).toBe(65535);
    expect(bunMaxHttpRequests({ limit: 300, limitPerHost: 1 })).toBe(300);
  });
});

describe("ServerClient", () => {
  const config = {
    observability_enabled: true,
    head_server: { host: "127.0.0.1", port: server.port },
    weather: { resources_servers: { example_weather: { host: "127.0.0.1", port: server.port } } },
    policy_model: { responses_api_models: { openai_model: { host: "${head_server.host}", port: server.port } } },
  };

  test("maps names to base URLs by the first-leaf rule and names known servers on a miss", () => {
    const c = new ServerClient(config);
    expect(c.address("weather").baseUrl).toBe(base);
    expect(c.address("policy_model").baseUrl).toBe(base);
    expect(() => c.address("nope")).toThrow(/known servers: weather, policy_model/);
  });

  test("observability: /verify takes the rollout id from the body; model paths take the ambient id", async () => {
    const c = new ServerClient(config);
    await c.post("weather", "/verify", { _ng_task_index: 4, _ng_rollout_index: 1, _ng_attempt_index: 2 });
    expect(seen.at(-1)!.path).toBe("/ng-rollout/4-1-a2/verify");
    await withRolloutId("r-7", () => c.post("policy_model", "/v1/responses", {}));
    expect(seen.at(-1)!.path).toBe("/ng-rollout/r-7/v1/responses");
    await withRolloutId("r-7", () => c.post("policy_model", "/tokenize", {}));
    expect(seen.at(-1)!.path).toBe("/tokenize");
    await new ServerClient({ ...config, observability_enabled: false }).post("weather", "/verify", { _ng_rollout_id: "z" });
    expect(seen.at(-1)!.path).toBe("/verify");
  });

  test("setupServerClient reads the head server's JSON-string YAML", async () => {
    const yamlText = `weather:\n  resources_servers:\n    example_weather:\n      host: 127.0.0.1\n      port: ${server.port}\n`;
    const head = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json(yamlText) });
    try {
      const c = await setupServerClient({ head_server: { host: "127.0.0.1", port: head.port } });
      expect(c.address("weather").port).toBe(server.port!);
    } finally {
      head.stop(true);
    }
  });

  test("setupServerClient waits while the head answers 503 starting, then reads the published config", async () => {
    let calls = 0;
    const head = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => (++calls < 3 ? Response.json({ status: "starting" }, { status: 503 }) : Response.json("a:\n  b:\n    c:\n      host: 127.0.0.1\n      port: 4242\n")),
    });
    try {
      const c = await setupServerClient({ head_server: { host: "127.0.0.1", port: head.port } });
      expect(calls).toBe(3);
      expect(c.address("a").baseUrl).toBe("http://127.0.0.1:4242");
    } finally {
      head.stop(true);
    }
  });

  test("setupServerClient fails with upstream's message when nothing listens", async () => {
    const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = dead.port;
    dead.stop(true);
    const err = await setupServerClient({ head_server: { host: "127.0.0.1", port } }).catch((e) => e);
    expect(err.message).toBe(`Could not connect to the head server at http://127.0.0.1:${port}. Perhaps you are not running a server or your head server is on a different port?`);
  });
});
