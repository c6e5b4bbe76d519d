/**
 * fault-matrix: how gym's model server (openai_model, hosted in this process on a loopback port)
 * and its outbound client behave when the inference endpoint misbehaves. Each fault gets its own
 * fake OpenAI-style endpoint, a raw `Bun.listen` TCP server (so it can reset, hang and truncate),
 * and its own model server; one `POST /v1/responses` goes through each, all faults at once.
 * Prints, per fault, the time until the caller had an answer, the outcome and how many POSTs the
 * endpoint saw. Bounded: the caller gives up after CAP_S seconds (reported as "no answer").
 *
 *   bun scripts/fault-matrix.ts [retryBudgetSeconds=20]
 *
 * The retry budget is lowered from D15's 120 s so the matrix ends in well under two minutes.
 */
import type { Socket } from "bun";
import "../src/components/index.ts";
import { findBuiltin } from "../src/components/registry.ts";
import type { ConfigDict } from "../src/config/types.ts";
import { serveApp } from "../src/runtime/http/http.ts";

const BUDGET_S = Number(process.argv[2] ?? 20);
/** The caller's own patience per fault (the matrix never waits longer). */
const CAP_S = 45;

type Reply = (s: Socket<Peer>, n: number) => void;
interface Peer {
  buf: string;
}

const OK_BODY = JSON.stringify({
  id: "resp_1",
  created_at: 1700000000,
  model: "fake",
  object: "response",
  output: [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok", annotations: [] }] }],
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
});

function answer(s: Socket<Peer>, status: string, body: string, extra = ""): void {
  s.write(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`);
}

const ok: Reply = (s) => answer(s, "200 OK", OK_BODY);

/** Each fault: what the endpoint does with the n-th POST (0-based). */
const FAULTS: { name: string; reply: Reply; /** Every request, probes included, hangs. */ hangAll?: boolean }[] = [
  { name: "500", reply: (s) => answer(s, "500 Internal Server Error", '{"error":{"message":"boom"}}') },
  { name: "503 + Retry-After: 5", reply: (s) => answer(s, "503 Service Unavailable", '{"error":{"message":"overloaded"}}', "retry-after: 5\r\n") },
  { name: "429", reply: (s) => answer(s, "429 Too Many Requests", '{"error":{"message":"slow down"}}') },
  { name: "connection reset", reply: (s) => s.terminate() },
  { name: "hang", reply: () => {}, hangAll: true },
  {
    name: "slow body (6 s, then complete)",
    reply: (s) => {
      s.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(OK_BODY)}\r\n\r\n`);
      const parts = OK_BODY.match(/[\s\S]{1,40}/g)!;
      let i = 0;
      const step = 6000 / parts.length;
      const t = setInterval(() => {
        if (i < parts.length) s.write(parts[i++]!);
        else clearInterval(t);
      }, step);
    },
  },
  { name: "bad JSON", reply: (s) => answer(s, "200 OK", '{"id": "resp_1", "output": [') },
  {
    name: "truncated SSE",
    reply: (s) => {
      s.write("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n");
      const ev = 'data: {"type":"response.created"}\n\n';
      s.write(`${ev.length.toString(16)}\r\n${ev}\r\n`);
      setTimeout(() => s.end(), 200);
    },
  },
  { name: "flaky (502, reset, then 200)", reply: (s, n) => (n === 0 ? answer(s, "502 Bad Gateway", "{}") : n === 1 ? s.terminate() : ok(s, n)) },
];

/** A raw TCP endpoint: parses just enough HTTP/1.1 to find each request's end. */
function fakeEndpoint(reply: Reply, hangAll: boolean): { port: number; posts: () => number; stop: () => void } {
  let posts = 0;
  const listener = Bun.listen<Peer>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (s) => void (s.data = { buf: "" }),
      data(s, d) {
        s.data.buf += d.toString("latin1");
        for (;;) {
          const end = s.data.buf.indexOf("\r\n\r\n");
          if (end < 0) return;
          const head = s.data.buf.slice(0, end);
          const len = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
          if (s.data.buf.length < end + 4 + len) return;
          s.data.buf = s.data.buf.slice(end + 4 + len);
          const isPost = head.startsWith("POST ");
          if (isPost) posts++;
          if (hangAll) return;
          if (isPost) reply(s, posts - 1);
          else answer(s, "404 Not Found", '{"detail":"Not Found"}');
        }
      },
    },
  });
  return { port: listener.port, posts: () => posts, stop: () => listener.stop(true) };
}

/** The gist of a failed answer: which rule ended the call. */
function why(text: string): string {
  const t = text.replace(/\\+"/g, '"').replace(/\s+/g, " ");
  for (const re of [/\S+ failed \d+ times in a row[^;]*; calls to it fail at once[^)]*\)/, /did not answer a liveness probe[^:]*/, /failed after \d+ attempts in [\d.]+s: [^;]*/, /timed out after [\d.]+s/, /not JSON/, /malformed[^'"]*/, /answered \d+/, /b'\{"error[^']*'/]) {
    const m = re.exec(t);
    if (m) return m[0].slice(0, 110);
  }
  return t.slice(0, 110);
}

async function runFault(f: (typeof FAULTS)[number]): Promise<string[]> {
  const ep = fakeEndpoint(f.reply, f.hangAll === true);
  const config: ConfigDict = { request_retry_budget_seconds: BUDGET_S };
  const leaf: Record<string, unknown> = { entrypoint: "app.py", host: "127.0.0.1", openai_base_url: `http://127.0.0.1:${ep.port}/v1`, openai_api_key: "k", openai_model: "fake", name: "policy_model" };
  config.policy_model = { responses_api_models: { openai_model: leaf } };
  const comp = (await findBuiltin("responses_api_models", "openai_model"))!;
  const app = await comp.create({ instanceName: "policy_model", config: leaf, globalConfig: config });
  const server = serveApp(app, { host: "127.0.0.1", port: 0 });
  const started = performance.now();
  let outcome: string;
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "hi" }),
      signal: AbortSignal.timeout(CAP_S * 1000),
    });
    const text = await res.text();
    outcome = `HTTP ${res.status}${res.status === 200 ? "" : `: ${why(text)}`}`;
  } catch (e) {
    outcome = (e as Error).name === "TimeoutError" ? `no answer within ${CAP_S} s (gave up)` : `error: ${(e as Error).message}`;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  await server.stop(true);
  ep.stop();
  return [f.name, seconds, String(ep.posts()), outcome];
}

const t0 = performance.now();
const rows = await Promise.all(FAULTS.map(runFault));
const head = ["fault", "seconds", "POSTs", "outcome"];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
console.log(`fault matrix (request_retry_budget_seconds=${BUDGET_S}, caller cap ${CAP_S} s)`);
console.log(line(head));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const r of rows) console.log(line(r));
console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
process.exit(0);
