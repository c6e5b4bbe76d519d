/** simple_agent's agent-session lifecycle (runtime §10.4): bind, close, retried close, and forgetting closed sessions. */
import { describe, expect, test } from "bun:test";
import { createHandler } from "../../src/runtime/http/http.ts";
import { agentConfigFromLeaf, simpleAgentApp } from "../../src/servers/agent.ts";
import type { InnerClient } from "../../src/servers/inner-client.ts";

// Opening and closing sessions makes no inner call: a client that fails loudly proves it.
const noCalls: InnerClient = {
  baseUrl: () => "http://127.0.0.1:9",
  call: () => Promise.reject(new Error("unexpected inner call")),
  callUrl: () => Promise.reject(new Error("unexpected inner call")),
};

function agent(closeRetryWindowMs: number) {
  const config = agentConfigFromLeaf({ model_server: { type: "responses_api_models", name: "m" } }, "a");
  return createHandler(simpleAgentApp({ className: "SimpleAgent", instanceName: "a", config, client: noCalls, closeRetryWindowMs }));
}

const episode = { rollout_id: "1-0", attempt: 0 };
const post = async (h: (r: Request) => Promise<Response>, path: string, body: unknown, cookie?: string) => {
  const res = await h(new Request(`http://127.0.0.1${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) } }));
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, cookie: res.headers.getSetCookie()[0]?.split(";")[0] };
};

describe("agent sessions", () => {
  test("a retried close gets the same receipt within the window; the session is forgotten after it", async () => {
    const h = agent(150);
    const opened = await post(h, "/v1/agent_sessions", { agent_session_id: "s1", episode_id: episode, task_id: { taskset: "t", task_id: "1" } });
    expect([opened.status, opened.json.agent_session_id]).toEqual([200, "s1"]);
    const cookie = opened.cookie!;
    const first = await post(h, "/v1/agent_sessions/close", { agent_session_id: "s1", episode_id: episode }, cookie);
    expect(first.status).toBe(200);
    const again = await post(h, "/v1/agent_sessions/close", { agent_session_id: "s1", episode_id: episode }, cookie);
    expect(again.json).toEqual(first.json);
    // The closed session's cookie cannot take another turn.
    expect((await post(h, "/v1/responses", { input: "hi" }, cookie)).status).toBe(409);
    // The sweep runs every min(window, 30 s): here every 150 ms.
    // Wait (bounded) for the sweep to forget the closed session instead of guessing a fixed time.
    let late = await post(h, "/v1/agent_sessions/close", { agent_session_id: "s1", episode_id: episode }, cookie);
    for (const t0 = performance.now(); late.status !== 409 && performance.now() - t0 < 10_000; ) {
      await Bun.sleep(50);
      late = await post(h, "/v1/agent_sessions/close", { agent_session_id: "s1", episode_id: episode }, cookie);
    }
    expect(late.status).toBe(409);
  });
});
