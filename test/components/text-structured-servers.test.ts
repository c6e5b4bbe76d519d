/** Bad input over real servers for spartqa, ragtruth, structeval and structured_outputs: missing or mistyped fields are 422s, empty / non-text / 1 MB outputs are scored without a crash. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

const response = (output: unknown[]) => ({ id: "r", created_at: 0, model: "m", object: "response", output, parallel_tool_calls: false, tool_choice: "auto", tools: [] });
const text = (t: string) => response([{ id: "m1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: t, annotations: [] }] }]);
const rcp = { input: [{ role: "user", content: "q" }] };
const BIG = `${"x".repeat(1_000_000)}`;

describe("text and structured servers: bad input", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([
      { name: "spartqa", serverType: "resources_servers", impl: "spartqa" },
      { name: "ragtruth", serverType: "resources_servers", impl: "ragtruth" },
      { name: "structeval", serverType: "resources_servers", impl: "structeval" },
      { name: "structured_outputs", serverType: "resources_servers", impl: "structured_outputs" },
    ]);
  });
  afterAll(async () => {
    await stack.stop();
  });
  const verify = (server: string, body: unknown) => postJson(`${stack.url[server]}/verify`, body);

  test("spartqa", async () => {
    expect((await verify("spartqa", { responses_create_params: rcp, response: text("x"), options: "not a list" })).status).toBe(422);
    const r = await verify("spartqa", { responses_create_params: rcp, response: response([{ type: "function_call", name: "f", arguments: "{}", call_id: "c" }]), target: "both of them", options: ["a", "b"] });
    expect([r.status, r.json.reward, r.json.parsed, r.json.verifier_metadata]).toEqual([200, 0, false, null]);
    const big = await verify("spartqa", { responses_create_params: rcp, response: text(`${BIG}\nFinal answer: both of them`), target: "both of them", options: ["a", "b"] });
    expect([big.status, big.json.reward]).toEqual([200, 1]);
  });

  test("ragtruth", async () => {
    expect((await verify("ragtruth", { responses_create_params: rcp, response: text("x"), is_halu: "maybe" })).status).toBe(422);
    const r = await verify("ragtruth", { responses_create_params: rcp, response: text(BIG), is_halu: false });
    expect([r.status, r.json.reward, r.json.parse_fail, r.json.task_type]).toEqual([200, 1, 1, ""]);
  });

  test("structeval", async () => {
    expect((await verify("structeval", { responses_create_params: rcp, response: text("x"), task_id: "t" })).status).toBe(422);
    const base = { responses_create_params: rcp, task_id: "t", task_name: "n", input_type: "Text", output_type: "JSON", raw_output_metric: ["a"] };
    const empty = await verify("structeval", { ...base, response: response([]) });
    expect([empty.status, empty.json.reward, empty.json.error_type]).toEqual([200, 0, "empty_response"]);
    const big = await verify("structeval", { ...base, response: text(`{"a": "${"y".repeat(1_000_000)}"}`) });
    expect([big.status, big.json.reward, big.json.render_score]).toEqual([200, 1, 1]);
    const odd = await verify("structeval", { ...base, output_type: "HTML", response: text("<p>x</p>") });
    expect([odd.status, odd.json.error_type]).toEqual([200, "unsupported_type"]);
  });

  test("structured_outputs", async () => {
    const schema_str = JSON.stringify({ type: "object", properties: { a: { type: "integer" } } });
    expect((await verify("structured_outputs", { responses_create_params: rcp, response: text("{}"), schema_str, schema_type: "ini" })).status).toBe(422);
    expect((await verify("structured_outputs", { responses_create_params: rcp, response: text("{}") })).status).toBe(422);
    const ok = await verify("structured_outputs", { responses_create_params: rcp, response: text('{"a": 1}'), schema_str });
    expect([ok.status, ok.json.reward, ok.json.schema_type, ok.json.response_mode, ok.json.tool_name]).toEqual([200, 1, "json", "text", null]);
    const extra = await verify("structured_outputs", { responses_create_params: rcp, response: text('{"a": 1, "b": 2}'), schema_str });
    expect([extra.json.reward, extra.json.error_type]).toEqual([0, "validation_error"]);
    const badSchema = await verify("structured_outputs", { responses_create_params: rcp, response: text('{"a": 1}'), schema_str: "{nope" });
    expect([badSchema.status, badSchema.json.error_type]).toEqual([200, "schema_error"]);
    const tool = await verify("structured_outputs", { responses_create_params: rcp, response: text("prose"), schema_str, response_mode: "tool_call" });
    expect([tool.json.reward, tool.json.error_type]).toEqual([0, "missing_tool_call"]);
  });
});
