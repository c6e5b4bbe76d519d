/**
 * Model-call capture written by real model servers (runtime §14) and read back by the driver's
 * folding code, and model failures that stay recognisable behind the agent's 500 (D21).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { foldCapture } from "../../src/rollout/capture.ts";
import { routeOutcome } from "../../src/rollout/record.ts";
import type { RunTarget } from "../../src/rollout/targets.ts";
import { pyBytesRepr } from "../../src/util/py-repr.ts";
import { serveApp } from "../../src/runtime/http/http.ts";
import { failureOrigin } from "../../src/servers/failure-origin.ts";
import { resourcesServerApp } from "../../src/servers/resources.ts";
import { tempDir, type TempDir } from "../helpers/tmp.ts";
import { postJson, startStack, type Stack } from "./_stack.ts";

type Obj = Record<string, any>;

function captureLines(dir: string, id: string): Obj[] {
  return readFileSync(join(dir, `${id}.capture.jsonl`), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
  return { status: res.status, text: await res.text() };
}

// A fake vLLM: token ids per call (prompt = everything so far), `boom` → 500, `garbage` → not a completion.
let promptSoFar: number[] = [];
const engine = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = (await req.json()) as Obj;
    const last = JSON.stringify(body.messages?.at(-1) ?? "");
    if (last.includes("boom")) return new Response('{"error":"engine died"}', { status: 500 });
    if (last.includes("garbage")) return Response.json({ hello: "not a completion" });
    if (last.includes("reset")) promptSoFar = [1, 2];
    if (last.includes("skip")) promptSoFar = [99];
    const gen = [promptSoFar.length + 10, promptSoFar.length + 11];
    const message = { role: "assistant", content: "ok", prompt_token_ids: [...promptSoFar], generation_token_ids: gen, generation_log_probs: [-0.1, -0.2] };
    promptSoFar = [...promptSoFar, ...gen, 7];
    return Response.json({ id: "c", object: "chat.completion", created: 5, model: body.model, choices: [{ index: 0, message, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
  },
});

let dir: TempDir;
let cap: string;
let stack: Stack;
let plain: Stack;
beforeAll(async () => {
  dir = await tempDir();
  cap = join(dir.path, "calls");
  const obs = { observability_enabled: true, model_call_capture_dir: cap };
  stack = await startStack(
    [
      { name: "policy", serverType: "responses_api_models", impl: "scripted_model" },
      { name: "vllm", serverType: "responses_api_models", impl: "vllm_model", leaf: { base_url: `http://127.0.0.1:${engine.port}/v1`, model: "m", return_token_id_information: true } },
      { name: "weather", serverType: "resources_servers", impl: "example_single_tool_call" },
      { name: "agent", serverType: "responses_api_agents", impl: "simple_agent", leaf: { resources_server: { type: "resources_servers", name: "weather" }, model_server: { type: "responses_api_models", name: "policy" } } },
      { name: "bad_agent", serverType: "responses_api_agents", impl: "simple_agent", leaf: { resources_server: { type: "resources_servers", name: "weather" }, model_server: { type: "responses_api_models", name: "vllm" } } },
      { name: "env", serverType: "environment_servers", impl: "legacy_agent", leaf: { agent_server: { type: "responses_api_agents", name: "agent" } } },
      { name: "bad_env", serverType: "environment_servers", impl: "legacy_agent", leaf: { agent_server: { type: "responses_api_agents", name: "bad_agent" } } },
    ],
    obs,
  );
  plain = await startStack([{ name: "policy", serverType: "responses_api_models", impl: "scripted_model" }], { model_call_capture_dir: join(dir.path, "off") });
});
afterAll(async () => {
  await stack.stop();
  await plain.stop();
  engine.stop(true);
  await dir[Symbol.asyncDispose]();
});

const ROW = JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call", "data", "example.jsonl"), "utf8").split("\n")[0]!);

describe("model-call capture (§14)", () => {
  test("a /ng-rollout/<id> call is captured with request, response, timing and model_ref; the answer is unchanged", async () => {
    const body = { input: "hello there" };
    const r = await post(`${stack.url.policy}/ng-rollout/t1-0/v1/responses`, body);
    expect(r.status).toBe(200);
    const [line, ...rest] = captureLines(cap, "t1-0");
    expect(rest).toEqual([]);
    expect(line!.rollout_id).toBe("t1-0");
    expect(line!.dialect).toBe("responses");
    expect(line!.model_ref).toEqual({ type: "responses_api_models", name: "policy" });
    expect(line!.model_call_id).toMatch(/^mc_[0-9a-f]{32}$/);
    expect(line!.status_code).toBe(200);
    expect(line!.error_category).toBeNull();
    expect(line!.request).toEqual(body);
    expect(line!.response).toEqual(JSON.parse(r.text));
    expect(line!.completed_at).toBeGreaterThanOrEqual(line!.started_at);
    expect(line!.latency_ms).toBeGreaterThanOrEqual(0);
  });

  test("chat via x-nemo-gym-rollout-id, a streamed call reassembled, and a refused call, in call order", async () => {
    await post(`${stack.url.policy}/v1/chat/completions`, { messages: [{ role: "user", content: "hi" }] }, { "x-nemo-gym-rollout-id": "t2-0" });
    const sse = await post(`${stack.url.policy}/ng-rollout/t2-0/v1/responses`, { input: "stream me", stream: true });
    expect(sse.text).toContain("event: response.completed");
    const bad = await post(`${stack.url.policy}/ng-rollout/t2-0/v1/responses`, { input: "x", not_a_key: 1 });
    expect(bad.status).toBe(422);
    const lines = captureLines(cap, "t2-0");
    expect(lines.map((l) => l.dialect)).toEqual(["chat", "responses", "responses"]);
    expect(lines[0]!.response.object).toBe("chat.completion");
    expect(lines[1]!.response.object).toBe("response");
    expect(lines[1]!.latency_ttft_ms).toBeGreaterThanOrEqual(0);
    expect(lines[2]).toMatchObject({ status_code: 422, error_category: "request_invalid" });
    expect(lines[2]!.response).toEqual(JSON.parse(bad.text));
  });

  test("no rollout id, an unsafe id, or observability off: nothing is written", async () => {
    const before = readdirSync(cap).length;
    await post(`${stack.url.policy}/v1/responses`, { input: "no id" });
    const unsafe = await post(`${stack.url.policy}/v1/responses`, { input: "x" }, { "x-nemo-gym-rollout-id": "../escape" });
    expect(unsafe.status).toBe(200);
    expect(readdirSync(cap).length).toBe(before);
    expect(existsSync(join(dir.path, "escape.capture.jsonl"))).toBe(false);
    await post(`${plain.url.policy}/ng-rollout/t3-0/v1/responses`, { input: "off" });
    expect(existsSync(join(dir.path, "off"))).toBe(false);
  });

  test("a capture that cannot be written leaves the incomplete marker; the answer still goes out", async () => {
    mkdirSync(join(cap, "t4-0.capture.jsonl"), { recursive: true });
    const r = await post(`${stack.url.policy}/ng-rollout/t4-0/v1/responses`, { input: "hi" });
    expect(r.status).toBe(200);
    expect(existsSync(join(cap, "t4-0.capture.incomplete"))).toBe(true);
  });

  test("token ids captured by vllm_model feed the driver's monotonic-sequence check", async () => {
    const say = (content: string) => post(`${stack.url.vllm}/ng-rollout/t5-0/v1/responses`, { input: [{ role: "user", content }] });
    for (const c of ["reset", "next", "again"]) expect((await say(c)).status).toBe(200);
    const ok = foldCapture(cap, "t5-0", { response: { output: [] } })!;
    expect(ok.ng_model_call_capture.calls).toHaveLength(3);
    expect(ok.ng_model_call_capture.token_sequence_violations).toBeUndefined();
    expect(ok.ng_model_call_capture.metrics).toMatchObject({ tokens_in: 9, tokens_out: 6 });
    expect((await say("skip")).status).toBe(200);
    const bad = foldCapture(cap, "t5-0", { response: { output: [] } })!;
    expect(bad.ng_model_call_capture.token_sequence_violations).toEqual([4]);
  });

  test("a flat row through legacy_agent with x-nemo-gym-rollout-id: every model call of the rollout is captured", async () => {
    const r = await post(`${stack.url.env}/run`, { ...ROW, _ng_task_index: 6, _ng_rollout_index: 0 }, { "x-nemo-gym-rollout-id": "6-0" });
    expect(r.status).toBe(200);
    const lines = captureLines(cap, "6-0");
    // scripted_model: a tool call, then the final message after the tool output.
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.model_ref.name === "policy" && l.status_code === 200)).toBe(true);
    expect(JSON.stringify(lines[1]!.request)).toContain("function_call_output");
    const folded = foldCapture(cap, "6-0", JSON.parse(r.text))!;
    expect(folded.ng_trajectory).toMatchObject({ model_calls: 2, tool_calls: 1 });
  });
});

describe("model failures behind a flat row (D21)", () => {
  const target: RunTarget = { server: "bad_env", implementation: "legacy_agent", runUrl: "http://x/run", baseUrl: "http://x", native: false };
  const row = { _ng_task_index: 0, _ng_rollout_index: 0 };

  test("an engine 500 relayed by the agent types the rollout model; the body keeps upstream's shape", async () => {
    const r = await post(`${stack.url.bad_env}/run`, { ...ROW, responses_create_params: { input: "boom" } }, { "x-nemo-gym-rollout-id": "7-0" });
    expect(r.status).toBe(500);
    const body = JSON.parse(r.text) as string;
    expect(body.startsWith("Hit an exception in SimpleAgent___bad_agent calling an inner server: b'")).toBe(true);
    expect(failureOrigin(body)).toEqual({ server: "VLLMModel___vllm", kind: "model", own: false, timedOut: false });
    const routed = routeOutcome(row, target, { kind: "response", status: 500, text: r.text, attempts: 1, elapsedMs: 5 });
    expect(routed.dest).toBe("failures");
    expect((routed as { record: Obj }).record).toMatchObject({ _ng_failure_class: "agent_run_error", _ng_failure_http_status: 500, _ng_failure_category: "model" });
    // The failed call is in the capture too, typed.
    expect(captureLines(cap, "7-0").at(-1)).toMatchObject({ status_code: 500, error_category: "upstream_error", upstream_status_code: 500, response_raw: '{"error":"engine died"}' });
  });

  test("a failure the model server raises itself names the server in repr(e) and types the rollout model", async () => {
    const direct = await post(`${stack.url.vllm}/v1/responses`, { input: "garbage" });
    expect(direct.status).toBe(500);
    expect(JSON.parse(direct.text)).toMatch(/^[A-Za-z]+\('VLLMModel___vllm: /);
    const r = await post(`${stack.url.bad_env}/run`, { ...ROW, responses_create_params: { input: "garbage" } });
    expect(r.status).toBe(500);
    const routed = routeOutcome(row, target, { kind: "response", status: 500, text: r.text, attempts: 1, elapsedMs: 5 });
    expect((routed as { record: Obj }).record._ng_failure_category).toBe("model");
  });

  test("a failure elsewhere (the resources server) stays infra; a 422 row stays data", async () => {
    const r = await post(`${stack.url.env}/run`, { ...ROW, responses_create_params: { input: "hi", tools: "not-a-list" } });
    expect(r.status).toBe(422);
    expect((routeOutcome(row, target, { kind: "response", status: 422, text: r.text, attempts: 1, elapsedMs: 1 }) as { record: Obj }).record._ng_failure_category).toBe("data");
    const infra = JSON.stringify(`Hit an exception in SimpleAgent___agent calling an inner server: b'"ValueError(\\'seed failed\\')"'`);
    expect((routeOutcome(row, target, { kind: "response", status: 500, text: infra, attempts: 1, elapsedMs: 1 }) as { record: Obj }).record._ng_failure_category).toBe("infra");
  });
});

describe("verifier failures behind a flat row (D21)", () => {
  test("a /verify that raises names its server; the agent's 500 is typed verifier", async () => {
    const broken = serveApp(
      resourcesServerApp({
        className: "BrokenResourcesServer",
        instanceName: "broken",
        verify: () => {
          throw new Error("no ground truth in the row");
        },
      }),
      { host: "127.0.0.1", port: 0 },
    );
    await using s = await startStack(
      [
        { name: "policy", serverType: "responses_api_models", impl: "scripted_model" },
        { name: "agent", serverType: "responses_api_agents", impl: "simple_agent", leaf: { resources_server: { type: "resources_servers", name: "broken" }, model_server: { type: "responses_api_models", name: "policy" } } },
      ],
      { broken: { resources_servers: { broken_impl: { host: "127.0.0.1", port: broken.port } } } },
    );
    try {
      const r = await post(`${s.url.agent}/run`, { responses_create_params: { input: "hi" } });
      expect(r.status).toBe(500);
      expect(failureOrigin(r.text)).toMatchObject({ server: "BrokenResourcesServer___broken", kind: "resources", own: true });
      const target: RunTarget = { server: "env", implementation: "legacy_agent", runUrl: "http://x/run", baseUrl: "http://x", native: false };
      const routed = routeOutcome({ _ng_task_index: 0, _ng_rollout_index: 0 }, target, { kind: "response", status: 500, text: r.text, attempts: 1, elapsedMs: 1 });
      expect((routed as { record: Obj }).record._ng_failure_category).toBe("verifier");
    } finally {
      await broken.stop(true);
    }
  });
});

describe("failureOrigin", () => {
  const relay = (cls: string, inner: string) => JSON.stringify(`Hit an exception in ${cls} calling an inner server: ${pyBytesRepr(new TextEncoder().encode(inner))}`);
  test("finds the innermost model server through nested relays; a model-side TimeoutError is a timeout", () => {
    const modelBody = JSON.stringify("TimeoutError('SimpleModelServer___policy_model: POST http://e/v1/responses timed out after 3s (request_timeout_seconds)')");
    const body = relay("SimpleAgent___agent", relay("SimpleAgent___agent", modelBody));
    expect(failureOrigin(body)).toEqual({ server: "SimpleModelServer___policy_model", kind: "model", own: true, timedOut: true });
    const target: RunTarget = { server: "e", implementation: "legacy_agent", runUrl: "http://x/run", baseUrl: "http://x", native: false };
    const rec = (routeOutcome({ _ng_task_index: 0, _ng_rollout_index: 0 }, target, { kind: "response", status: 500, text: body, attempts: 1, elapsedMs: 1 }) as { record: Obj }).record;
    expect(rec._ng_failure_category).toBe("timeout");
    expect(failureOrigin(relay("SimpleAgent___agent", JSON.stringify("ValueError('bad')")))).toMatchObject({ kind: "other", own: false });
    expect(failureOrigin(relay("SimpleAgent___agent", relay("WeatherResourcesServer___w", "{}")))).toMatchObject({ kind: "resources", own: false });
    expect(failureOrigin("plain text")).toBeUndefined();
  });
});
