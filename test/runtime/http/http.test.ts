import { describe, expect, test } from "bun:test";
import { createHandler, serveApp } from "../../../src/runtime/http/http.ts";
import { HttpError, InnerServerError, RawJson, RequestValidationError, type ServerApp } from "../../../src/runtime/http/http-types.ts";
import { parseCookies, SessionCodec } from "../../../src/runtime/http/session.ts";
import { proxySettingsFromConfig } from "../../../src/runtime/http/proxy-headers.ts";
import { currentRolloutId } from "../../../src/runtime/http/rollout-context.ts";

function app(extra: Partial<ServerApp> = {}): ServerApp {
  return {
    className: "SimpleWeatherResourcesServer",
    instanceName: "weather",
    sessions: true,
    routes: [
      { method: "POST", path: "/get_weather", handler: (ctx) => ({ city: (ctx.body as { city: string }).city, session: ctx.sessionId }) },
      { method: "GET", path: "/items/:id", handler: (ctx) => ({ id: ctx.params.id, rollout: ctx.rolloutId ?? null }) },
      { method: "POST", path: "/boom", handler: () => { throw new Error("it's \"bad\""); } },
      { method: "POST", path: "/inner", handler: () => { throw new InnerServerError(400, '{"detail":"x\'y"}', "http://h/verify"); } },
      { method: "POST", path: "/teapot", handler: () => { throw new HttpError(418, "short and stout"); } },
      { method: "POST", path: "/invalid", handler: () => { throw new RequestValidationError([{ type: "int_parsing", loc: ["body", "n"], msg: "bad", input: "x" }]); } },
      { method: "POST", path: "/echo", handler: (ctx) => ({ body: ctx.body ?? null }) },
      { method: "POST", path: "/cookie", handler: (ctx) => { ctx.responseCookies.Other___m = "abc"; return "ok"; } },
      { method: "GET", path: "/who", handler: (ctx) => ({ client: ctx.clientAddress ?? null }) },
      { method: "GET", path: "/raw", handler: () => new Response("plain", { status: 201 }) },
      { method: "GET", path: "/none", handler: () => undefined },
    ],
    ...extra,
  };
}

const post = (path: string, body: string | undefined, headers: Record<string, string> = { "content-type": "application/json" }) =>
  new Request(`http://127.0.0.1${path}`, { method: "POST", body, headers });

describe("createHandler", () => {
  const h = createHandler(app());

  test("routes JSON bodies and answers compact JSON with a session cookie", async () => {
    const res = await h(post("/get_weather", JSON.stringify({ city: "Zürich" })));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const text = await res.text();
    expect(text.startsWith('{"city":"Zürich","session":"')).toBe(true);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^SimpleWeatherResourcesServer___weather=[^;]+; path=\/; Max-Age=1209600; httponly; samesite=lax$/);
  });

  test("a session cookie round-trips to the same id; a tampered one gets a new id", async () => {
    const first = await h(post("/get_weather", '{"city":"a"}'));
    const { session } = (await first.json()) as { session: string };
    const value = parseCookies(first.headers.get("set-cookie")!.split(";")[0]!).SimpleWeatherResourcesServer___weather!;
    const again = await h(new Request("http://x/get_weather", { method: "POST", body: '{"city":"b"}', headers: { cookie: `SimpleWeatherResourcesServer___weather=${value}` } }));
    expect(((await again.json()) as { session: string }).session).toBe(session);
    const tampered = `${value.slice(0, -2)}${value.endsWith("AA") ? "BB" : "AA"}`;
    const fresh = await h(new Request("http://x/get_weather", { method: "POST", body: '{"city":"b"}', headers: { cookie: `SimpleWeatherResourcesServer___weather=${tampered}` } }));
    const freshId = ((await fresh.json()) as { session: string }).session;
    expect(freshId).not.toBe(session);
    expect(freshId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("the cookie payload is base64 JSON of the session id, readable by another codec of the same instance", async () => {
    const codec = new SessionCodec("SimpleWeatherResourcesServer", "weather");
    const header = codec.setCookie("11111111-2222-3333-4444-555555555555");
    const value = header.split(";")[0]!.split("=").slice(1).join("=");
    expect(JSON.parse(Buffer.from(value.split(".")[0]!, "base64").toString())).toEqual({ session_id: "11111111-2222-3333-4444-555555555555" });
    expect(new SessionCodec("SimpleWeatherResourcesServer", "weather").read({ SimpleWeatherResourcesServer___weather: value })).toBe("11111111-2222-3333-4444-555555555555");
    expect(new SessionCodec("SimpleWeatherResourcesServer", "other").read({ SimpleWeatherResourcesServer___weather: value })).toBeUndefined();
  });

  test("unknown route 404 and wrong method 405 use FastAPI bodies and still set the cookie", async () => {
    const nf = await h(new Request("http://x/nope"));
    expect(nf.status).toBe(404);
    expect(await nf.text()).toBe('{"detail":"Not Found"}');
    expect(nf.headers.get("set-cookie")).toContain("SimpleWeatherResourcesServer___weather=");
    const na = await h(new Request("http://x/get_weather"));
    expect(na.status).toBe(405);
    expect(await na.text()).toBe('{"detail":"Method Not Allowed"}');
    expect(na.headers.get("allow")).toBe("POST");
  });

  test("invalid JSON is FastAPI's 422 json_invalid with Python's position and message", async () => {
    const res = await h(post("/echo", '{"a": 1,}'));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ detail: [{ type: "json_invalid", loc: ["body", 8], msg: "JSON decode error", input: {}, ctx: { error: "Expecting property name enclosed in double quotes" } }] });
    const junk = await h(post("/echo", "not json"));
    expect(((await junk.json()) as { detail: { loc: unknown[]; ctx: unknown }[] }).detail[0]).toMatchObject({ loc: ["body", 0], ctx: { error: "Expecting value" } });
  });

  test("non-JSON content types reach the handler as text; empty bodies as undefined", async () => {
    expect(await (await h(post("/echo", "hello", { "content-type": "text/plain" }))).json()).toEqual({ body: "hello" });
    expect(await (await h(post("/echo", undefined))).json()).toEqual({ body: null });
  });

  test("500s carry upstream's JSON strings and the session cookie", async () => {
    const boom = await h(post("/boom", "{}"));
    expect(boom.status).toBe(500);
    expect(await boom.json()).toBe(`Error('it\\'s "bad"')`);
    expect(boom.headers.get("set-cookie")).toContain("SimpleWeatherResourcesServer___weather=");
    const inner = await h(post("/inner", "{}"));
    expect(inner.status).toBe(500);
    expect(await inner.json()).toBe(`Hit an exception in SimpleWeatherResourcesServer___weather calling an inner server: b'{"detail":"x\\'y"}'`);
  });

  test("HttpError and RequestValidationError map to their status with a detail body", async () => {
    const t = await h(post("/teapot", "{}"));
    expect(t.status).toBe(418);
    expect(await t.json()).toEqual({ detail: "short and stout" });
    const v = await h(post("/invalid", "{}"));
    expect(v.status).toBe(422);
    expect(await v.json()).toEqual({ detail: [{ type: "int_parsing", loc: ["body", "n"], msg: "bad", input: "x" }] });
  });

  test("body limit: 413 JSON by Content-Length and by streamed size", async () => {
    const small = createHandler(app(), { maxBodyBytes: 100 });
    const big = await small(post("/echo", JSON.stringify({ x: "a".repeat(200) })));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { detail: string }).detail).toContain("limit of 100 bytes");
    const stream = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode("[" + "1,".repeat(100))); c.enqueue(new TextEncoder().encode("1]")); c.close(); } });
    const chunked = await small(new Request("http://x/echo", { method: "POST", body: stream, headers: { "content-type": "application/json" } }));
    expect(chunked.status).toBe(413);
  });

  test("liveness routes, /docs, raw Responses and null returns", async () => {
    for (const p of ["/", "/livez", "/healthz", "/health", "/readyz"]) expect(await (await h(new Request(`http://x${p}`))).text()).toBe('{"status":"ok"}');
    expect((await h(new Request("http://x/docs"))).status).toBe(200);
    const raw = await h(new Request("http://x/raw"));
    expect(raw.status).toBe(201);
    expect(await raw.text()).toBe("plain");
    expect(raw.headers.get("set-cookie")).toContain("SimpleWeatherResourcesServer___weather=");
    expect(await (await h(new Request("http://x/none"))).text()).toBe("null");
  });

  test("responseCookies are added as Set-Cookie next to the session cookie", async () => {
    const res = await h(post("/cookie", "{}"));
    const all = res.headers.getSetCookie();
    expect(all.some((c) => c.startsWith("Other___m=abc;"))).toBe(true);
    expect(all.some((c) => c.startsWith("SimpleWeatherResourcesServer___weather="))).toBe(true);
  });

  test("/ng-rollout/<id> prefix is stripped into rolloutId; path params decode", async () => {
    expect(await (await h(new Request("http://x/ng-rollout/3-0-a1/items/a%20b"))).json()).toEqual({ id: "a b", rollout: "3-0-a1" });
    expect(await (await h(new Request("http://x/items/7", { headers: { "x-nemo-gym-rollout-id": "r9" } }))).json()).toEqual({ id: "7", rollout: "r9" });
    // A resources server does not strip the training-token-capture segment.
    expect((await h(new Request("http://x/ng-rollout/r/training-token-capture/items/1"))).status).toBe(404);
    const model = createHandler(app({ rolloutPrefix: "model" }));
    expect(await (await model(new Request("http://x/ng-rollout/r/training-token-capture/items/1"))).json()).toEqual({ id: "1", rollout: "r" });
  });

  test("a RawJson answer is sent as received, with the JSON content type and the session cookie", async () => {
    const raw = createHandler(app({ routes: [{ method: "POST", path: "/relay", handler: () => new RawJson('{"reward":1.0,"n":12345678901234567890}') }] }));
    const res = await raw(post("/relay", "{}"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.getSetCookie().length).toBe(1);
    expect(await res.text()).toBe('{"reward":1.0,"n":12345678901234567890}');
  });

  test("the rollout id is ambient for the handler's own calls unless ambientRolloutId is off", async () => {
    const ambientApp = app({ routes: [{ method: "GET", path: "/ambient", handler: async () => { await Bun.sleep(1); return { ambient: currentRolloutId() ?? null }; } }] });
    const on = createHandler(ambientApp);
    expect(await (await on(new Request("http://x/ng-rollout/r4/ambient"))).json()).toEqual({ ambient: "r4" });
    const off = createHandler(ambientApp, { ambientRolloutId: false });
    expect(await (await off(new Request("http://x/ng-rollout/r4/ambient"))).json()).toEqual({ ambient: null });
  });

  test("ctx.request under a rollout prefix: the stripped path, the same method/headers/query, one object per request", async () => {
    const seen: Request[] = [];
    const probe = createHandler(app({
      routes: [{ method: "POST", path: "/look", handler: (ctx) => {
        seen.push(ctx.request, ctx.request);
        return { url: ctx.request.url, method: ctx.request.method, tag: ctx.request.headers.get("x-tag") };
      } }],
    }));
    const res = await probe(new Request("http://x:9/ng-rollout/r5/look?q=1", { method: "POST", body: "{}", headers: { "x-tag": "t" } }));
    expect(await res.json()).toEqual({ url: "http://x:9/look?q=1", method: "POST", tag: "t" });
    expect(seen[0]).toBe(seen[1]!);
    // Without a prefix the handler sees the incoming Request itself.
    const plain = new Request("http://x/look", { method: "POST", body: "{}" });
    await probe(plain);
    expect(seen[2]).toBe(plain);
  });

  test("HEAD answers like GET; a trailing slash redirects to the route (Starlette's redirect_slashes)", async () => {
    expect((await h(new Request("http://x/items/3", { method: "HEAD" }))).status).toBe(200);
    const r = await h(post("/get_weather/", "{}"));
    expect(r.status).toBe(307);
    // Without a configured origin the redirect is relative: the request's Host is never echoed.
    expect(r.headers.get("location")).toBe("/get_weather");
    const pre = await h(new Request("http://x/ng-rollout/r1/items/3/?q=1"));
    expect(pre.headers.get("location")).toBe("/ng-rollout/r1/items/3?q=1");
    const withOrigin = createHandler(app(), { origin: () => "http://127.0.0.1:7000" });
    expect((await withOrigin(new Request("http://evil.example/get_weather/", { method: "POST", body: "{}" }))).headers.get("location")).toBe("http://127.0.0.1:7000/get_weather");
  });

  test("the head-style app without sessions sends no cookie", async () => {
    const bare = createHandler(app({ sessions: false }));
    expect((await bare(new Request("http://x/"))).headers.get("set-cookie")).toBeNull();
  });

  test("proxy headers are ignored by default and honoured only from allow-listed peers", async () => {
    const req = () => new Request("http://x/who", { headers: { "x-forwarded-for": "203.0.113.9" } });
    const off = createHandler(app(), { peerAddress: () => "127.0.0.1" });
    expect(await (await off(req())).json()).toEqual({ client: "127.0.0.1" });
    const on = createHandler(app(), { peerAddress: () => "127.0.0.1", proxy: proxySettingsFromConfig({ uvicorn_proxy_headers: true, uvicorn_forwarded_allow_ips: ["127.0.0.1/32"] }) });
    expect(await (await on(req())).json()).toEqual({ client: "203.0.113.9" });
    const untrusted = createHandler(app(), { peerAddress: () => "10.1.1.1", proxy: proxySettingsFromConfig({ uvicorn_proxy_headers: true, uvicorn_forwarded_allow_ips: ["127.0.0.1"] }) });
    expect(await (await untrusted(req())).json()).toEqual({ client: "10.1.1.1" });
  });
});

describe("serveApp over a real socket", () => {
  test("bad inputs get JSON 4xx and the server keeps serving; idle connections are not cut", async () => {
    const server = serveApp(app(), { host: "127.0.0.1", port: 0 });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const cases: [RequestInit & { path: string }, number][] = [
        [{ path: "/get_weather", method: "POST", body: "{oops", headers: { "content-type": "application/json" } }, 422],
        [{ path: "/missing", method: "GET" }, 404],
        [{ path: "/get_weather", method: "GET" }, 405],
        [{ path: "/echo", method: "POST", body: "x".repeat(10 * 1024 * 1024), headers: { "content-type": "application/json" } }, 422],
      ];
      for (const [init, status] of cases) {
        const res = await fetch(base + init.path, init);
        expect(res.status).toBe(status);
        expect(res.headers.get("content-type")).toBe("application/json");
        await res.json();
      }
      const ok = await fetch(`${base}/get_weather`, { method: "POST", body: '{"city":"x"}', headers: { "content-type": "application/json" } });
      expect(ok.status).toBe(200);
      const who = (await (await fetch(`${base}/who`)).json()) as { client: string };
      expect(who.client).toMatch(/127\.0\.0\.1/);
    } finally {
      server.stop(true);
    }
  });

  test("a body over the limit is a JSON 413 over the wire", async () => {
    const server = serveApp(app(), { host: "127.0.0.1", port: 0, maxBodyBytes: 1024 * 1024 });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/echo`, { method: "POST", body: "[" + "0,".repeat(1024 * 1024) + "0]", headers: { "content-type": "application/json" } });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { detail: string }).detail).toContain("too large");
      expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(200);
    } finally {
      server.stop(true);
    }
  });
});
