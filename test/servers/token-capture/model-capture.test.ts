/**
 * Training-token capture on the served path (upstream test_token_id_capture.py "served" cases):
 * the real vllm_model over a loopback fake vLLM, called on `/ng-rollout/<id>/training-token-capture/…`
 * for every dialect; the token record is durable before the answer leaves, joins the eval record by
 * model_call_id, keeps content without the arrays, and a lost or token-less call marks the rollout.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TokenCaptureStore } from "../../../src/servers/token-capture/store.ts";
import { TOKEN_FIELDS } from "../../../src/servers/token-capture/records.ts";
import { logProbs, startFakeVllm, TURNS, type FakeVllm } from "../../fixtures/token-capture/fake-vllm.ts";
import { tempDir } from "../../helpers/tmp.ts";
import { postJson, startStack, type Stack } from "../_stack.ts";

type Obj = Record<string, any>;

const weatherTool = { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: false };
let fake: FakeVllm;
let dir: Awaited<ReturnType<typeof tempDir>>;
let both: Stack; // observability + token capture
let tokensOnly: Stack; // token capture, no eval capture
let external: Stack; // token capture on, no directory (records staged elsewhere)

const vllmLeaf = (over: Obj = {}) => ({ base_url: "", api_key: "k", model: "policy", return_token_id_information: true, request_prompt_and_generation_token_ids: true, ...over });

beforeAll(async () => {
  fake = startFakeVllm();
  dir = await tempDir();
  const models = (d: string) => [
    { name: "policy", serverType: "responses_api_models" as const, impl: "vllm_model", leaf: vllmLeaf({ base_url: fake.url }) },
    { name: "silent", serverType: "responses_api_models" as const, impl: "vllm_model", leaf: vllmLeaf({ base_url: fake.url, return_token_id_information: false, request_prompt_and_generation_token_ids: false }) },
    { name: `unused_${d}`, serverType: "responses_api_models" as const, impl: "vllm_model", leaf: vllmLeaf({ base_url: fake.url }) },
  ];
  both = await startStack(models("a"), { observability_enabled: true, model_call_capture_dir: join(dir.path, "both"), token_id_capture: { enabled: true, dir: join(dir.path, "both") } });
  tokensOnly = await startStack(models("b"), { token_id_capture: { enabled: true, dir: join(dir.path, "tokens") } });
  external = await startStack(models("c"), { token_id_capture: { enabled: true, rebuild_response: false } });
});
afterAll(async () => {
  await both.stop();
  await tokensOnly.stop();
  await external.stop();
  fake.stop();
  await dir[Symbol.asyncDispose]();
});

const store = (sub: string) => new TokenCaptureStore(join(dir.path, sub));
const capturePath = (id: string) => `/ng-rollout/${id}/training-token-capture`;

async function call(stack: Stack, server: string, path: string, body: Obj): Promise<{ status: number; text: string; json: any }> {
  return postJson(`${stack.url[server]}${path}`, body);
}

describe("served calls on the training-capture path", () => {
  test("/v1/responses: one durable entry with the call's ids, joined to its eval record by model_call_id", async () => {
    const r = await call(both, "policy", `${capturePath("task0-roll0")}/v1/responses`, { input: "weather?", tools: [weatherTool] });
    expect(r.status).toBe(200);
    const entries = await store("both").readEntries("task0-roll0");
    expect(entries.length).toBe(1);
    expect(entries[0]).toMatchObject({ rollout_id: "task0-roll0", model: "policy", prompt_token_ids: TURNS[0]!.prompt, generation_token_ids: TURNS[0]!.gen, generation_log_probs: logProbs(0), schema_version: 1 });
    const evalLines = readFileSync(join(dir.path, "both", "task0-roll0.capture.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(evalLines.length).toBe(1);
    expect(entries[0]!.model_call_id).toBe(evalLines[0].model_call_id);
    expect(entries[0]!.model_call_id).toMatch(/^[0-9a-f]{32}$/);
    expect(fake.violations).toEqual([]);
  });

  test("the entry keeps the content items once, without token arrays, and names the item that carried them", async () => {
    await call(both, "policy", `${capturePath("task0-rollC")}/v1/responses`, { input: "weather?", tools: [weatherTool] });
    const [entry] = await store("both").readEntries("task0-rollC");
    expect(entry!.output_items.length).toBeGreaterThan(0);
    for (const item of entry!.output_items) for (const f of TOKEN_FIELDS) expect(item[f]).toBeUndefined();
    expect(entry!.output_items[entry!.token_item_index!]).toMatchObject({ type: "function_call", name: "get_weather" });
  });

  test.each([
    ["chat completions", "/v1/chat/completions", { messages: [{ role: "user", content: "hi" }] }],
    ["streamed chat completions", "/v1/chat/completions", { messages: [{ role: "user", content: "hi" }], stream: true }],
    ["Anthropic messages", "/v1/messages", { model: "claude-x", max_tokens: 16, messages: [{ role: "user", content: "hello" }] }],
    ["streamed Anthropic messages", "/v1/messages", { model: "claude-x", max_tokens: 16, stream: true, messages: [{ role: "user", content: "hello" }] }],
  ] as const)("%s: captured from the complete answer", async (name, path, body) => {
    const id = `dialect-${name.replace(/\W+/g, "-")}`;
    const r = await call(both, "policy", `${capturePath(id)}${path}`, body);
    expect(r.status).toBe(200);
    if (path === "/v1/messages") {
      // Nothing on the Anthropic wire carries token ids, yet the record is complete.
      expect(r.text).not.toContain("generation_token_ids");
      expect(r.text).not.toContain("prompt_token_ids");
    }
    const entries = await store("both").readEntries(id);
    expect(entries.length).toBe(1);
    expect(entries[0]!.generation_token_ids).toEqual(TURNS[0]!.gen);
    expect(entries[0]!.output_items.length).toBeGreaterThan(0);
  });

  test("token capture works with eval capture off (no .capture.jsonl written)", async () => {
    expect((await call(tokensOnly, "policy", `${capturePath("task1-roll0")}/v1/responses`, { input: "hi" })).status).toBe(200);
    expect((await store("tokens").readEntries("task1-roll0")).length).toBe(1);
    expect(readdirSync(join(dir.path, "tokens")).some((f) => f.endsWith(".capture.jsonl"))).toBe(false);
  });

  test("the observability prefix alone does not capture tokens; an uncorrelated call writes nothing", async () => {
    expect((await call(both, "policy", "/ng-rollout/observed-only/v1/responses", { input: "hi" })).status).toBe(200);
    expect(await store("both").readEntries("observed-only")).toEqual([]);
    expect(existsSync(join(dir.path, "both", "observed-only.capture.jsonl"))).toBe(true);
    const before = readdirSync(join(dir.path, "tokens")).length;
    expect((await call(tokensOnly, "policy", "/v1/responses", { input: "hi" })).status).toBe(200);
    expect(readdirSync(join(dir.path, "tokens")).length).toBe(before);
  });
});

describe("lost calls mark the rollout instead of failing the model call", () => {
  test("an answer without token ids (return_token_id_information off) succeeds, and the rollout is incomplete", async () => {
    fake.mode = "no-ids";
    try {
      const r = await call(tokensOnly, "silent", `${capturePath("silent0-roll0")}/v1/responses`, { input: "hi" });
      expect(r.status).toBe(200);
    } finally {
      fake.mode = "normal";
    }
    const s = store("tokens");
    expect(await s.readEntries("silent0-roll0")).toEqual([]);
    expect(await s.isIncomplete("silent0-roll0")).toBe(true);
    const snap = await s.freeze("silent0-roll0");
    expect(snap.incomplete).toBe(true);
  });

  test("a backend failure leaves a dangling intent: the frozen snapshot is incomplete", async () => {
    const r = await call(tokensOnly, "policy", `${capturePath("lost0-roll0")}/v1/chat/completions`, { messages: [{ role: "assistant", content: "a" }, { role: "assistant", content: "b" }, { role: "assistant", content: "c" }] });
    expect(r.status).toBe(500); // the fake refuses a conversation past its script
    const snap = await store("tokens").freeze("lost0-roll0");
    expect(snap.entries).toEqual([]);
    expect(snap.incomplete).toBe(true);
  });

  test("capture on without a directory (records staged elsewhere): calls succeed and no file is written anywhere", async () => {
    fake.mode = "no-ids";
    try {
      expect((await call(external, "silent", `${capturePath("ext1-r0")}/v1/responses`, { input: "hi" })).status).toBe(200);
    } finally {
      fake.mode = "normal";
    }
    expect((await call(external, "policy", `${capturePath("ext0-r0")}/v1/responses`, { input: "hi" })).status).toBe(200);
    expect(readdirSync(dir.path, { recursive: true }).filter((f) => String(f).includes("ext"))).toEqual([]);
  });

  test("a call on the training path that no capturing route serves (GET /v1/models, an unknown path) marks the rollout", async () => {
    const res = await fetch(`${tokensOnly.url.policy}${capturePath("unobs-0")}/v1/models`);
    await res.arrayBuffer();
    expect(await store("tokens").isIncomplete("unobs-0")).toBe(true);
    expect((await call(tokensOnly, "policy", `${capturePath("unobs-1")}/tokenize`, { prompt: "x" })).status).toBe(404);
    expect(await store("tokens").isIncomplete("unobs-1")).toBe(true);
    // A captured call does not mark; neither does the same path without the training segment.
    expect((await call(tokensOnly, "policy", `${capturePath("unobs-2")}/v1/responses`, { input: "hi" })).status).toBe(200);
    await fetch(`${tokensOnly.url.policy}/ng-rollout/unobs-2/v1/models`).then((r) => r.arrayBuffer());
    expect(await store("tokens").isIncomplete("unobs-2")).toBe(false);
  });

  test("a rollout id that is not a safe file name is refused with a 400 naming it", async () => {
    const r = await call(tokensOnly, "policy", `/ng-rollout/bad%20id/training-token-capture/v1/responses`, { input: "hi" });
    expect(r.status).toBe(400);
    expect(r.text).toContain("Invalid rollout id");
  });
});
