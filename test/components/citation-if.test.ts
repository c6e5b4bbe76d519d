/** citation_if over a real loopback server: upstream's tests/test_app.py server cases as data, the tool catch-all, bad input. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { responseShape } from "../../src/verify/rules/citation-if.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

const VERIFIER = {
  type: "citation_if",
  mode: "cite",
  grammar: "ascii_brackets",
  id_kind: "full_source",
  id_regex: "citation_[a-z0-9]{4}",
  valid_id_set: ["citation_ab12", "citation_cd34"],
  expected_ids: ["citation_ab12"],
  expected_slack: 1,
  min_valid_citations: 1,
};

function body(verifier: Record<string, unknown>, text: string, functionCalls = 0) {
  const output: unknown[] = Array.from({ length: functionCalls }, (_, i) => ({ type: "function_call", name: "web_search", call_id: `c${i}`, arguments: "{}" }));
  if (text) output.push({ id: "msg", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
  return { responses_create_params: { input: [] }, response: { id: "resp", created_at: 0, model: "policy_model", object: "response", output, parallel_tool_calls: false, tool_choice: "none", tools: [] }, verifier };
}

// upstream TestExtractResponseShape, as data.
const SHAPES: [unknown, string, number][] = [
  [{ output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "Answer. [citation_ab12]" }] }] }, "Answer. [citation_ab12]", 0],
  [{ output: [{ type: "function_call", name: "web_search", arguments: "{}" }, { type: "function_call", name: "web_search", arguments: "{}" }] }, "", 2],
  [{ output: [{ type: "function_call", name: "web_search", arguments: "{}" }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "Partial answer." }] }] }, "Partial answer.", 1],
  [{ output: [{ type: "message", role: "user", content: [{ type: "output_text", text: "should be ignored" }] }] }, "", 0],
  [{ output: [{ type: "reasoning", content: [{ type: "reasoning_text", text: "I should cite [citation_ab12]" }] }] }, "", 0],
  [{}, "", 0],
  [{ output: null }, "", 0],
  [{ output: ["not a dict", 42] }, "", 0],
];

// upstream TestCitationIfServer verify cases: (verifier overrides, text, function calls) → reward.
const VERIFY: [Record<string, unknown>, string, number, number][] = [
  [{}, "Gateway sold it in 1999. [citation_ab12]", 0, 1],
  [{}, "Gateway sold it in 1999.", 0, 0],
  [{}, "Gateway sold it in 1999. [citation_zzzz]", 0, 0],
  [{}, "", 1, 0],
  [{}, "[citation_ab12]", 0, 0],
  [{ mode: "no_cite", expected_ids: null }, "Gateway sold it in 1999.", 0, 1],
  [{ mode: "no_cite", expected_ids: null }, "Gateway sold it in 1999. [citation_ab12]", 0, 0],
];

describe("citation_if server", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([{ name: "citation_if", serverType: "resources_servers", impl: "citation_if" }]);
  });
  afterAll(async () => {
    await stack.stop();
  });

  test.each(SHAPES.map((s, i) => [i, ...s] as const))("response shape #%d", (_i, response, text, calls) => expect(responseShape(response)).toEqual({ text, functionCalls: calls }));

  test.each(VERIFY.map((v, i) => [i, ...v] as const))("verify #%d", async (_i, over, text, calls, reward) => {
    const req = body({ ...VERIFIER, ...over }, text, calls);
    const r = await postJson(`${stack.url.citation_if}/verify`, { ...req, extra_row_field: 1 });
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(reward);
    // The request is carried through (verifier and response); undeclared row fields are not (upstream's model has none).
    expect(r.json.verifier).toEqual(req.verifier);
    expect(r.json.response.output).toEqual(req.response.output);
    expect(r.json.extra_row_field).toBeUndefined();
    if (reward === 1 && over.mode === undefined) expect(r.json.match_details.cited_ids).toEqual(["citation_ab12"]);
  });

  test("any tool route answers the terminal text; the server's own routes still win", async () => {
    const r = await postJson(`${stack.url.citation_if}/web_search`, { query: "x" });
    expect(r.status).toBe(200);
    expect(r.text).toBe("No further tool results are available. Provide your final answer.");
    expect(await (await fetch(`${stack.url.citation_if}/reverify_mode`)).json()).toBe("stateless");
  });

  test("bad input: no verifier is a 422; an untranslatable id_regex is a 500 naming the pattern", async () => {
    const { verifier: _v, ...noVerifier } = body(VERIFIER, "x");
    expect((await postJson(`${stack.url.citation_if}/verify`, noVerifier)).status).toBe(422);
    const bad = await postJson(`${stack.url.citation_if}/verify`, body({ ...VERIFIER, id_regex: "citation_(" }, "a [citation_ab12]"));
    expect(bad.status).toBe(500);
    expect(bad.text).toContain("citation_(");
  });
});
