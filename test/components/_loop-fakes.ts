/**
 * Loopback fakes for the loop-agent tests: a scripted OpenAI-Responses model and a resources
 * server speaking the protocol (/seed_session, tool routes, /verify, /aggregate_metrics), both
 * real Bun servers on port 0 that record every request they get.
 */
type Obj = Record<string, any>;

/** What a scripted handler may answer: a JSON body (200), or an explicit status + body, after an optional delay. */
export type Answer = Obj | { status: number; body: unknown; delayMs?: number } | { delayMs: number; body: Obj };

async function reply(a: Answer): Promise<Response> {
  if ("delayMs" in a && typeof a.delayMs === "number") await Bun.sleep(a.delayMs);
  if ("status" in a && typeof a.status === "number" && "body" in a) return new Response(typeof a.body === "string" ? a.body : JSON.stringify(a.body), { status: a.status, headers: { "content-type": "application/json" } });
  if ("delayMs" in a && "body" in a) return Response.json(a.body);
  return Response.json(a);
}

/** A recorded request. */
export interface Seen {
  path: string;
  body: Obj;
  cookie: string | null;
}

/** A fake server: its port, the requests it saw, and stop(). */
export interface Fake {
  port: number;
  seen: Seen[];
  stop(): void;
}

/** A loopback server answering every POST through `handle(path, body, seen so far)`. */
export function fakeServer(handle: (path: string, body: Obj, seen: Seen[]) => Answer | Promise<Answer>): Fake {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const text = await req.text();
      let body: Obj = {};
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        body = { _raw: text };
      }
      seen.push({ path, body, cookie: req.headers.get("cookie") });
      return reply(await handle(path, body, seen));
    },
  });
  return { port: server.port!, seen, stop: () => void server.stop(true) };
}

/** A model whose n-th call (1-based, counted since `seen` was last emptied) is answered by `script(n, body)`. */
export function scriptedModel(script: (n: number, body: Obj) => Answer | Promise<Answer>): Fake & { bodies(): Obj[] } {
  const f = fakeServer((_path, body, seen) => script(seen.length, body));
  return { ...f, bodies: () => f.seen.map((s) => s.body) };
}

/** A Responses object with the given output items (and optional usage / extra fields). */
export function responseWith(output: Obj[], extra: Obj = {}): Obj {
  return { id: "resp_1", created_at: 0.0, model: "test", object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools: [], ...extra };
}

/** An assistant message item. */
export function message(text: string, id = "msg_1"): Obj {
  return { id, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] };
}

/** A function_call item. */
export function functionCall(name: string, args: unknown, callId = "call_1"): Obj {
  return { id: `fc_${callId}`, type: "function_call", call_id: callId, name, arguments: typeof args === "string" ? args : JSON.stringify(args), status: "completed" };
}

/** A reasoning item. */
export function reasoning(text = "thinking"): Obj {
  return { id: "r1", type: "reasoning", summary: [{ type: "summary_text", text }], status: "completed" };
}

/** A usage block. */
export function usage(input: number, output: number): Obj {
  return { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + output };
}

/** Config refs of a stack: the model and resources instance names pointing at the fakes. */
export function fakeRefs(model: Fake, res: Fake): Obj {
  return { policy: { responses_api_models: { fake: { host: "127.0.0.1", port: model.port } } }, res: { resources_servers: { fake: { host: "127.0.0.1", port: res.port } } } };
}

/** The agent leaf's two refs. */
export const REFS = { resources_server: { type: "resources_servers", name: "res" }, model_server: { type: "responses_api_models", name: "policy" } };
