/** Hostile and malformed requests against a real socket (issue 11): every answer is well-formed, the server keeps serving. */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { serveApp } from "../../../src/runtime/http/http.ts";
import { RequestValidationError, type ServerApp } from "../../../src/runtime/http/http-types.ts";

const app: ServerApp = {
  className: "EdgeServer",
  instanceName: "edge",
  sessions: true,
  routes: [
    // A handler that walks the body recursively, as validation and serialisation do.
    { method: "POST", path: "/walk", handler: (ctx) => ({ size: JSON.stringify(ctx.body).length }) },
    {
      method: "POST",
      path: "/strict",
      handler: (ctx) => {
        throw new RequestValidationError([{ type: "missing", loc: ["body", "x"], msg: "Field required", input: ctx.body }]);
      },
    },
    { method: "POST", path: "/run", handler: () => ({ ok: true }) },
  ],
};
// Real sockets, 100k-deep bodies and a timeout that must fire: more than bun's 5 s default.
setDefaultTimeout(30_000);

const server = serveApp(app, { host: "127.0.0.1", port: 0, bodyIdleTimeoutSeconds: 1 });
const base = `http://127.0.0.1:${server.port}`;
afterAll(() => server.stop(true));

/** Send raw bytes; resolve with what came back and whether the server closed the connection. */
function raw(data: string, ms = 15_000): Promise<{ text: string; closed: boolean; ms: number }> {
  return new Promise((resolve) => {
    let text = "";
    const t0 = performance.now();
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      resolve({ text, closed, ms: performance.now() - t0 });
    };
    void Bun.connect({
      hostname: "127.0.0.1",
      port: server.port!,
      socket: {
        open: (s) => void s.write(data),
        data: (_s, d) => void (text += new TextDecoder().decode(d)),
        close: () => finish(true),
        error: () => finish(true),
      },
    });
    setTimeout(() => finish(false), ms);
  });
}

async function stillServing(): Promise<void> {
  const r = await fetch(`${base}/run`, { method: "POST", body: "{}" });
  expect(r.status).toBe(200);
}

describe("HTTP edge cases", () => {
  test("a 100k-deep JSON body answers 400 naming the depth limit, not a 500 RangeError", async () => {
    for (const body of ["[".repeat(100_000) + "]".repeat(100_000), '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000)]) {
      const r = await fetch(`${base}/walk`, { method: "POST", body });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { detail: string }).detail).toContain("nested deeper than 512 levels");
    }
    const ok = await fetch(`${base}/walk`, { method: "POST", body: "[[[1]]]" });
    expect(await ok.json()).toEqual({ size: 7 });
    await stillServing();
  });

  test("a 422 echoes small inputs whole and caps large ones", async () => {
    const small = await fetch(`${base}/strict`, { method: "POST", body: '{"y":1}' });
    expect(small.status).toBe(422);
    expect(((await small.json()) as { detail: { input: unknown }[] }).detail[0]!.input).toEqual({ y: 1 });
    const big = { y: "z".repeat(5_000_000) };
    const r = await fetch(`${base}/strict`, { method: "POST", body: JSON.stringify(big) });
    expect(r.status).toBe(422);
    const text = await r.text();
    expect(text.length).toBeLessThan(10_000);
    expect(JSON.parse(text).detail[0].input).toContain("not echoed");
    // Nested within the limit but long: still capped (the cap walks no deeper than its budget).
    const nested = "[".repeat(500) + '"' + "q".repeat(3000) + '"' + "]".repeat(500);
    const deep = await fetch(`${base}/strict`, { method: "POST", body: nested });
    expect(deep.status).toBe(422);
    expect(JSON.parse(await deep.text()).detail[0].input).toContain("not echoed");
  });

  test("the 307 for a trailing slash is built from the configured host, never the Host header", async () => {
    const r = await raw(`POST /run/?a=1 HTTP/1.1\r\nHost: evil.example:666\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expect(r.text).toStartWith("HTTP/1.1 307");
    expect(r.text).toMatch(new RegExp(`[Ll]ocation: http://127\\.0\\.0\\.1:${server.port}/run\\?a=1\\r\\n`));
    expect(r.text).not.toContain("evil.example");
  });

  test("a half-sent body does not hold the connection: it is closed after the body idle timeout", async () => {
    const r = await raw(`POST /run HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a":`, 20_000);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(15_000);
    // A body that arrives in pieces within the timeout is read as usual, and the handler is not cut short.
    await stillServing();
  });

  test("malformed request lines (unknown or lowercase methods, HTTP/0.9, bare LF, HTTP/2.0) get an error status or a prompt close; the server keeps serving", async () => {
    const cases = [
      "FOO /run HTTP/1.1\r\nHost: x\r\n\r\n",
      "post /run HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
      "GET /\r\n",
      "GET / HTTP/1.1\nHost: x\n\n",
      "GET / HTTP/2.0\r\nHost: x\r\n\r\n",
    ];
    for (const c of cases) {
      const r = await raw(c);
      expect(r.closed, JSON.stringify(c)).toBe(true);
      // Bun's native parser answers these before any JS runs: either nothing (connection closed) or an error status.
      if (r.text !== "") expect(r.text, JSON.stringify(c)).toMatch(/^HTTP\/1\.1 (4\d\d|505) /);
      expect(r.text).not.toMatch(/^HTTP\/1\.1 2/);
    }
    // A method Bun parses but no route takes: FastAPI's JSON 405.
    const patch = await fetch(`${base}/run`, { method: "PATCH", body: "{}" });
    expect(patch.status).toBe(405);
    expect(await patch.json()).toEqual({ detail: "Method Not Allowed" });
    await stillServing();
  });
});
