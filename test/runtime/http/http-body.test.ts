import { describe, expect, test } from "bun:test";
import { readRequestBody } from "../../../src/runtime/http/http-body.ts";
import { serveApp } from "../../../src/runtime/http/http.ts";
import { CachedSessions } from "../../../src/runtime/http/http-session-cache.ts";
import type { ServerApp } from "../../../src/runtime/http/http-types.ts";
import { SessionCodec } from "../../../src/runtime/http/session.ts";

const withLength = (body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  new Request("http://127.0.0.1/x", { method: "POST", body, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } });

describe("readRequestBody", () => {
  test("a body with a length is parsed and kept verbatim", async () => {
    const text = '{"a": [1, 2], "é": "ü"}';
    const r = await readRequestBody(withLength(text), 1024);
    expect(r.value).toEqual({ a: [1, 2], é: "ü" });
    expect(r.raw).toBe(text);
  });

  test("parse=false keeps only the raw text; non-JSON types give the text", async () => {
    const r = await readRequestBody(withLength('{"x":1}'), 1024, false);
    expect(r.value).toBeUndefined();
    expect(r.raw).toBe('{"x":1}');
    const plain = await readRequestBody(withLength("hi", { "content-type": "text/plain" }), 1024);
    expect(plain.value).toBe("hi");
  });

  test("invalid JSON and oversize bodies answer as the slow path does (422 json_invalid, 413)", async () => {
    const bad = readRequestBody(withLength('{"a": }'), 1024);
    await expect(bad).rejects.toMatchObject({ status: 422 });
    const err = await bad.catch((e) => e);
    expect(err.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body", 6] });
    await expect(readRequestBody(withLength("x".repeat(100)), 10)).rejects.toMatchObject({ status: 413 });
  });
});

describe("CachedSessions", () => {
  const codec = new SessionCodec("C", "i");
  const cached = new CachedSessions(codec);

  test("the signed cookie equals the codec's and a round-tripped cookie gives the same id (twice)", () => {
    const id = "11111111-2222-3333-4444-555555555555";
    const header = cached.setCookie(id);
    expect(header).toBe(codec.setCookie(id));
    const value = header.split(";")[0]!.slice("C___i=".length);
    expect(cached.idFor({ C___i: value })).toBe(id);
    expect(cached.idFor({ C___i: value })).toBe(id);
  });

  test("a tampered cookie gets a fresh id every time, never a cached one", () => {
    const value = cached.setCookie("abc").split(";")[0]!.slice("C___i=".length);
    const tampered = `${value.slice(0, -2)}${value.endsWith("AA") ? "BB" : "AA"}`;
    const a = cached.idFor({ C___i: tampered });
    const b = cached.idFor({ C___i: tampered });
    expect(a).not.toBe("abc");
    expect(a).not.toBe(b);
  });
});

describe("rawBody routes over a real socket", () => {
  test("the handler gets the exact bytes and no parsed body; other routes still parse", async () => {
    const app: ServerApp = {
      className: "R",
      instanceName: "r",
      sessions: true,
      routes: [
        { method: "POST", path: "/relay", rawBody: true, handler: (ctx) => ({ raw: ctx.rawBody ?? null, parsed: ctx.body ?? null }) },
        { method: "POST", path: "/json", handler: (ctx) => ({ parsed: ctx.body ?? null, client: ctx.clientAddress ?? null }) },
      ],
    };
    const server = serveApp(app, { host: "127.0.0.1", port: 0 });
    try {
      const text = '{ "spaced" :  [1,2] }';
      const relay = await fetch(`http://127.0.0.1:${server.port}/relay`, { method: "POST", body: text, headers: { "content-type": "application/json" } });
      expect(await relay.json()).toEqual({ raw: text, parsed: null });
      expect(relay.headers.getSetCookie()[0]).toStartWith("R___r=");
      const json = await fetch(`http://127.0.0.1:${server.port}/json`, { method: "POST", body: text, headers: { "content-type": "application/json" } });
      expect(await json.json()).toEqual({ parsed: { spaced: [1, 2] }, client: "127.0.0.1" });
    } finally {
      server.stop(true);
    }
  });
});
