/**
 * The outbound client and its keep-alive pool against hostile peers: raw `Bun.listen` TCP servers
 * that dribble, lie, close early or announce huge bodies. Each call must end with a typed
 * RequestFailedError (kind, URL, elapsed) within its deadline, never hang or buffer without bound.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { HttpClient, RequestFailedError } from "../../../src/runtime/http/client.ts";

type Behaviour = (s: Socket<{ timers: Timer[] }>) => void;
const listeners: TCPSocketListener<{ timers: Timer[] }>[] = [];
afterAll(() => {
  for (const l of listeners) l.stop(true);
});

/** A peer that runs `behave` once a request's head has arrived. */
function peer(behave: Behaviour): string {
  const l = Bun.listen<{ timers: Timer[] }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (s) => void (s.data = { timers: [] }),
      data: (s, d) => {
        if (d.toString("latin1").includes("\r\n\r\n")) behave(s);
      },
      close: (s) => s.data.timers.forEach(clearInterval),
    },
  });
  listeners.push(l);
  return `http://127.0.0.1:${l.port}/v1/responses`;
}

const client = (over: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) =>
  new HttpClient({ timeoutSeconds: 2, retryBudgetSeconds: 1, limits: { limit: 0, limitPerHost: 0 }, debug: false, maxResponseBytes: 1024 * 1024, ...over });

/** The call's typed failure, with how long it took. */
async function failure(p: Promise<unknown>): Promise<{ err: RequestFailedError; seconds: number }> {
  const t = performance.now();
  const err = await p.then(
    () => undefined,
    (e) => e,
  );
  expect(err).toBeInstanceOf(RequestFailedError);
  return { err: err as RequestFailedError, seconds: (performance.now() - t) / 1000 };
}

describe("hostile peers", () => {
  for (const internal of [true, false]) {
    const via = internal ? "internal call (pool)" : "model call (pool)";
    test(`${via}: slowloris head, one byte at a time, ends at the deadline as a timeout`, async () => {
      const url = peer((s) => {
        s.write("HTTP/1.1 200 OK\r\n");
        s.data.timers.push(setInterval(() => s.write("x"), 20));
      });
      const { err, seconds } = await failure(client().exchange(url, { method: "POST", json: {}, internal, kind: "model" }));
      expect(err.kind).toBe("timeout");
      expect(err.message).toContain(url);
      expect(seconds).toBeLessThan(30);
    });
  }

  test("garbage status line: a protocol error at once, not retried", async () => {
    const url = peer((s) => void s.write("SSH-2.0-OpenSSH_9.6\r\nbanner\r\n\r\n"));
    const { err } = await failure(client({ retryBudgetSeconds: 30 }).exchange(url, { method: "POST", json: {}, internal: true }));
    expect(err.kind).toBe("protocol");
    expect(err.attempts).toBe(1);
    expect(err.message).toContain("malformed HTTP status line");
  });

  test("early close mid-head: a connection failure, retried only inside the budget", async () => {
    let seen = 0;
    const url = peer((s) => {
      seen++;
      s.write("HTTP/1.1 200 OK\r\ncontent-le");
      s.end();
    });
    const { err, seconds } = await failure(client({ retryBudgetSeconds: 1 }).exchange(url, { method: "POST", json: {}, internal: true }));
    expect(err.kind).toBe("connect");
    expect(seen).toBeGreaterThanOrEqual(1);
    expect(err.attempts).toBe(seen);
    expect(seconds).toBeLessThan(30);
  });

  test("an oversized chunk is refused as soon as its size line arrives", async () => {
    let sent = 0;
    const url = peer((s) => {
      s.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4000000\r\n");
      // Keep sending: the client must stop reading, not buffer 64 MiB.
      s.data.timers.push(setInterval(() => void (sent += s.write(Buffer.alloc(16 * 1024, 120))), 5));
    });
    const { err } = await failure(client().exchange(url, { method: "POST", json: {}, internal: true }));
    expect(err.kind).toBe("too_large");
    expect(err.attempts).toBe(1);
    expect(err.message).toContain("1048576-byte cap");
  });

  test("a garbage chunk size is a protocol error", async () => {
    const url = peer((s) => void s.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"));
    const { err } = await failure(client().exchange(url, { method: "POST", json: {}, internal: true }));
    expect(err.kind).toBe("protocol");
  });

  test("an oversized content-length (pool and fetch) and a head that never ends are refused", async () => {
    const big = peer((s) => void s.write("HTTP/1.1 200 OK\r\ncontent-length: 999999999\r\n\r\nxx"));
    expect((await failure(client().exchange(big, { method: "POST", json: {}, internal: true }))).err.kind).toBe("too_large");
    // An external non-model call goes over fetch: the same cap applies.
    expect((await failure(client().exchange(big.replace("/v1/responses", "/other"), { method: "POST", json: {} }))).err.kind).toBe("too_large");
    const endless = peer((s) => {
      s.write("HTTP/1.1 200 OK\r\n");
      for (let i = 0; i < 100; i++) s.write(`x-pad-${i}: ${"y".repeat(1000)}\r\n`);
    });
    expect((await failure(client().exchange(endless, { method: "POST", json: {}, internal: true }))).err.kind).toBe("protocol");
  });

  test("a chunked body split at every awkward place (extensions, trailers) decodes exactly", async () => {
    const pieces = ["HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n", "5;ext=1\r", "\nhel", "lo\r", "\n", "6\r\n wor", "ld\r\n0", "\r\nx-trailer: 1\r", "\n\r\n"];
    const url = peer((s) => {
      let i = 0;
      s.data.timers.push(
        setInterval(() => {
          if (i < pieces.length) s.write(pieces[i++]!);
        }, 10),
      );
    });
    const a = await client().exchange(url, { method: "POST", json: {}, internal: true });
    expect(a.status).toBe(200);
    expect(Buffer.from(a.body).toString()).toBe("hello world");
  });
});
