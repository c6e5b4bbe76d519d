/**
 * The bare Bun.serve + fetch stack the rollout benches compare gym against, and the 0 ms mock
 * endpoint every stack shares. Each role is one process (`bun <bench> --role <kind> …` prints its
 * port on stdout): env relays /run to the agent; the agent's /run seeds, calls its own
 * /v1/responses over HTTP (upstream's hop path, runtime §6.2, §8.1), then verifies; the model
 * proxies to the endpoint; rs answers seed, the tool and verify. `driver` reads a JSONL, posts
 * every row to /run with N in flight and writes each answer as a line (the floor of a driver).
 */
import { createWriteStream } from "node:fs";

type Obj = Record<string, unknown>;

const json = { "content-type": "application/json" };

/** The mock endpoint's two answers: a get_weather call, then (once a tool output is in the input) a message. */
const CALL = JSON.stringify({
  id: "resp_bench_call",
  created_at: 1,
  model: "bench",
  object: "response",
  output: [{ type: "function_call", id: "fc_bench", call_id: "call_bench", name: "get_weather", arguments: '{"city":"San Francisco"}', status: "completed" }],
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 },
});
const MESSAGE = JSON.stringify({
  id: "resp_bench_msg",
  created_at: 1,
  model: "bench",
  object: "response",
  output: [{ type: "message", id: "msg_bench", role: "assistant", status: "completed", content: [{ type: "output_text", text: "It is cold in San Francisco.", annotations: [] }] }],
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  usage: { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 8, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 28 },
});

/** Start one role; prints its port. */
export async function bareRole(kind: string, targets: string[]): Promise<void> {
  if (kind === "endpoint") {
    // 0 ms: the answer is chosen by a substring test on the body, no JSON parse.
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      fetch: async (req) => new Response((await req.text()).includes('"function_call_output"') ? MESSAGE : CALL, { headers: json }),
    });
    process.stdout.write(`${server.port}\n`);
    return;
  }
  if (kind === "driver") {
    process.stdout.write(`${await bareDriveFile(targets[0]!, targets[1]!, targets[2]!, Number(targets[3]))}\n`);
    process.exit(0);
  }
  let self = "";
  const post = async (url: string, body: unknown) => (await fetch(url, { method: "POST", body: JSON.stringify(body), headers: json })).json() as Promise<Obj>;
  const handlers: Record<string, (path: string, body: Obj) => Promise<unknown>> = {
    env: (_p, body) => post(`${targets[0]}/run`, body),
    model: (_p, body) => post(`${targets[0]}/v1/responses`, body),
    rs: async (p, body) => {
      if (p === "/seed_session") return {};
      if (p === "/get_weather") return { city: body.city, weather_description: `The weather in ${String(body.city)} is cold.` };
      return { ...body, reward: 1.0 };
    },
    agent: async (p, row) => {
      const [rs, model] = targets as [string, string];
      if (p === "/run") {
        await post(`${rs}/seed_session`, row);
        const response = await post(`${self}/v1/responses`, row.responses_create_params);
        return post(`${rs}/verify`, { ...row, response });
      }
      const input = [...(row.input as unknown[])];
      const outputs: Obj[] = [];
      let last: Obj = {};
      for (let turn = 0; turn < 4; turn++) {
        last = await post(`${model}/v1/responses`, { ...row, input: [...input, ...outputs] });
        const out = (last.output as Obj[]) ?? [];
        outputs.push(...out);
        const calls = out.filter((o) => o.type === "function_call");
        if (calls.length === 0) break;
        for (const c of calls) {
          const result = await post(`${rs}/${String(c.name)}`, JSON.parse(String(c.arguments)));
          outputs.push({ type: "function_call_output", call_id: c.call_id, output: JSON.stringify(result) });
        }
      }
      return { ...last, output: outputs };
    },
  };
  const h = handlers[kind];
  if (!h) throw new Error(`unknown role ${kind}`);
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: async (req) => Response.json(await h(new URL(req.url).pathname, (await req.json()) as Obj)) });
  self = `http://127.0.0.1:${server.port}`;
  process.stdout.write(`${server.port}\n`);
}

/** POST every row to `url` with `inFlight` at once; returns how many answers carried a reward. */
export async function bareDriver(url: string, rows: Obj[], inFlight: number, onAnswer?: (text: string) => void): Promise<number> {
  let next = 0;
  let ok = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++]!;
      const text = await (await fetch(url, { method: "POST", body: JSON.stringify(row), headers: json })).text();
      if (text.includes('"reward"')) ok++;
      onAnswer?.(text);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return ok;
}

/** The bare driver as a whole command: read a JSONL file, collect, write one line per answer. */
async function bareDriveFile(url: string, input: string, output: string, inFlight: number): Promise<number> {
  const rows = (await Bun.file(input).text()).split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Obj);
  const out = createWriteStream(output);
  const ok = await bareDriver(url, rows, inFlight, (text) => out.write(`${text}\n`));
  await new Promise<void>((resolve) => out.end(resolve));
  return ok;
}
