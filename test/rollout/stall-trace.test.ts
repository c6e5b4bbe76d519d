/**
 * The stall watchdog names the deepest waiting hop: with the model endpoint hung, a stalled /run
 * is traced env → agent → model server → the endpoint, not blamed on the environment server's /run.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { TCPSocketListener } from "bun";
import { Monitor } from "../../src/rollout/monitor.ts";
import { Progress } from "../../src/rollout/progress.ts";
import { traceStall } from "../../src/rollout/stall-trace.ts";
import { startStack, type Stack } from "../servers/_stack.ts";

setDefaultTimeout(60_000);

let stack: Stack;
let endpoint: TCPSocketListener<undefined>;
let reached: Promise<void>;

beforeAll(async () => {
  let hit!: () => void;
  reached = new Promise((r) => (hit = r));
  // A hung inference endpoint: accepts, reads, never answers.
  endpoint = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: () => hit() } });
  stack = await startStack(
    [
      { name: "policy", serverType: "responses_api_models", impl: "openai_model", leaf: { openai_base_url: `http://127.0.0.1:${endpoint.port}/v1`, openai_api_key: "k", openai_model: "m" } },
      { name: "weather", serverType: "resources_servers", impl: "example_single_tool_call" },
      { name: "agent", serverType: "responses_api_agents", impl: "simple_agent", leaf: { resources_server: { type: "resources_servers", name: "weather" }, model_server: { type: "responses_api_models", name: "policy" } } },
      { name: "env", serverType: "environment_servers", impl: "legacy_agent", leaf: { agent_server: { type: "responses_api_agents", name: "agent" } } },
    ],
    { request_liveness_timeout_seconds: 0 },
  );
});
afterAll(async () => {
  await stack.stop();
  endpoint.stop(true);
});

describe("stall trace", () => {
  test("a stalled /run is followed to the model server waiting on the hung endpoint", async () => {
    const abort = new AbortController();
    const run = fetch(`${stack.url.env}/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ responses_create_params: { input: [{ role: "user", content: "weather in SF?" }] }, agent_ref: { name: "agent" } }),
      signal: abort.signal,
    }).catch(() => undefined);
    await reached;
    const line = await traceStall("env", stack.url.env!);
    expect(line).toStartWith("env → agent → policy: ");
    expect(line).toContain(`waits on the external endpoint POST http://127.0.0.1:${endpoint.port}/v1/responses`);

    // The watchdog prints it under the stall warning.
    const progress = new Progress();
    const monitor = new Monitor(progress, { tty: false, stallWarningSeconds: 0.01, trace: traceStall });
    monitor.inFlight.set("0-0", { id: "0-0", server: "env", url: stack.url.env!, startedAt: performance.now() - 1000 });
    expect(monitor.checkStalls().length).toBe(1);
    const lines = (await monitor.lastTrace)!;
    expect(lines[0]).toContain("→ policy: waits on the external endpoint");
    abort.abort();
    await run;
  });

  test("a server that does not answer is named as the deepest hop", async () => {
    const line = await traceStall("ghost", `http://127.0.0.1:${endpoint.port}`);
    expect(line).toContain("ghost: does not answer");
  });
});
