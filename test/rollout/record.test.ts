/** D21 typing of failed `/run` answers in record.ts: model failures recognised behind the agent's 500. */
import { describe, expect, test } from "bun:test";
import { pyBytesRepr } from "../../src/util/py-repr.ts";
import { failureCategory, routeOutcome } from "../../src/rollout/record.ts";
import type { RunTarget } from "../../src/rollout/targets.ts";

const target: RunTarget = { server: "env", implementation: "legacy_agent", runUrl: "http://127.0.0.1:1/run", baseUrl: "http://127.0.0.1:1", native: false };
const row = { _ng_task_index: 3, _ng_rollout_index: 1 };

/** The body a relaying server answers when an inner call failed (runtime §5.2). */
const relay = (token: string, inner: string) => JSON.stringify(`Hit an exception in ${token} calling an inner server: ${pyBytesRepr(new TextEncoder().encode(inner))}`);

function category(status: number, text: string): unknown {
  const routed = routeOutcome(row, target, { kind: "response", status, text, attempts: 1, elapsedMs: 10 });
  if (routed.dest !== "failures") throw new Error(`expected a failure, got ${routed.dest}`);
  return routed.record._ng_failure_category;
}

describe("agent_run_error typing (D21)", () => {
  test("an inference endpoint's error relayed by the model server and the agent is model", () => {
    const model = relay("VLLMModel___policy", '{"error":"CUDA out of memory"}');
    expect(category(500, relay("SimpleAgent___a", relay("SimpleAgent___a", model)))).toBe("model");
  });

  test("an error the model server raised itself (its message names it) is model; its TimeoutError is timeout", () => {
    expect(category(500, relay("SimpleAgent___a", JSON.stringify("RuntimeError('AzureOpenAIModelServer___az: bad answer')")))).toBe("model");
    expect(category(500, relay("SimpleAgent___a", relay("SimpleAgent___a", JSON.stringify("TimeoutError('SimpleModelServer___p: POST … timed out after 3s')"))))).toBe("timeout");
  });

  test("a resources server's own /verify failure is verifier; an inner call it relays is not", () => {
    expect(category(500, relay("SimpleAgent___a", JSON.stringify("ValueError('MathResourcesServer___math: no expected_answer')")))).toBe("verifier");
    expect(category(500, relay("SimpleAgent___a", relay("MathResourcesServer___math", '{"error":"sandbox down"}')))).toBe("infra");
  });

  test("a gym hop whose request_timeout_seconds fired is timeout, at whatever depth it was relayed", () => {
    const hop = JSON.stringify("TimeoutError('POST http://127.0.0.1:12407/run timed out after 3s (request_timeout_seconds); elapsed 3.0s')");
    expect(category(500, hop)).toBe("timeout");
    expect(category(500, relay("SimpleAgent___a", hop))).toBe("timeout");
  });

  test("simple_agent's invalid-model-answer error is model", () => {
    expect(category(500, relay("SimpleAgent___a", JSON.stringify("RuntimeError('Received an invalid response from model server: {}')")))).toBe("model");
  });

  test("failures that name no model server stay infra; a 422 stays data; the body is kept truncated", () => {
    expect(category(500, relay("SimpleAgent___a", JSON.stringify("ValueError('seed')")))).toBe("infra");
    expect(category(500, relay("SimpleAgent___a", relay("WeatherResourcesServer___w", "{}")))).toBe("infra");
    expect(category(500, JSON.stringify("An unknown error occurred"))).toBe("infra");
    expect(category(422, relay("VLLMModel___p", "x"))).toBe("data");
    const routed = routeOutcome(row, target, { kind: "response", status: 500, text: relay("SimpleAgent___a", "y".repeat(5000) + relay("VLLMModel___p", "z")), attempts: 1, elapsedMs: 1 });
    // The category is read from the whole body even though only 2,000 characters are stored.
    expect(routed.dest === "failures" && routed.record).toMatchObject({ _ng_failure_category: "model" });
    expect(String((routed as { record: Record<string, unknown> }).record._ng_failure_response_body).length).toBe(2000);
  });

  test("native agent-stage failures: model, or timeout when the model call ran out of time", () => {
    expect(failureCategory({ cls: "environment_server_failed", stage: "agent", message: "agent a /v1/responses answered 500: \"Hit an exception in SimpleAgent___a calling an inner server: b'\\\"boom\\\"'\"" })).toBe("model");
    const timedOut = `agent a /v1/responses answered 500: ${relay("SimpleAgent___a", JSON.stringify("TimeoutError('VLLMModel___p: timed out')"))}`;
    expect(failureCategory({ cls: "environment_server_failed", stage: "agent", message: timedOut })).toBe("timeout");
  });
});

describe("output lines spliced from the answer's text", () => {
  const ok = (text: string) => {
    const routed = routeOutcome({ ...row, agent_ref: { name: "a" } }, target, { kind: "response", status: 200, text, attempts: 1, elapsedMs: 1 });
    if (routed.dest !== "output") throw new Error(`expected output, got ${routed.dest}`);
    return routed;
  };

  test("the line parses to exactly the record, keeping the server's number spelling", () => {
    const r = ok(' {"reward":1.0,"big":12345678901234567890,"nested":{"agent_ref":"inner"},"s":"caf\\u00e9"} ');
    expect(r.line).toBeDefined();
    expect(JSON.parse(r.line!)).toEqual(r.record);
    expect(r.line!.startsWith('{"reward":1.0,"big":12345678901234567890,')).toBe(true);
    expect(Object.keys(JSON.parse(r.line!))).toEqual(Object.keys(r.record));
  });

  test("no line when a spread would differ or the text is not one line: the writer serialises the record", () => {
    expect(ok('{"reward":1,"_ng_task_index":99}').line).toBeUndefined(); // a stamp key in the body
    expect(ok('{"reward":1,"agent_ref":{"name":"x"}}').line).toBeUndefined();
    expect(ok('{\n  "reward": 1\n}').line).toBeUndefined(); // pretty-printed
    expect(ok("{}").line).toBeUndefined();
  });
});

describe("failure records mask URL credentials (D39)", () => {
  test("a /run URL with userinfo and a key in the query is masked in the stored message", () => {
    const t: RunTarget = { ...target, runUrl: "http://u:pw-SECRET@127.0.0.1:1/run?api_key=k-SECRET" };
    const routed = routeOutcome(row, t, { kind: "response", status: 502, text: "bad gateway", attempts: 1, elapsedMs: 1 });
    if (routed.dest !== "failures") throw new Error(`expected a failure, got ${routed.dest}`);
    expect(JSON.stringify(routed.record)).not.toContain("SECRET");
    expect(String(routed.record._ng_failure_message)).toContain("http://****@127.0.0.1:1/run?api_key=****");
  });
});
