/** ruler, ruler2, graphwalks and mrcr verifiers: upstream's tests/ cases as data, plus Python-semantics and bad-input cases of our own. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  extractMcqLetter, graphwalksExpected, graphwalksF1, graphwalksParse, mrcrGrade, ruler2DefaultParse, ruler2Score, ruler2SoftMatch, rulerMatchAll, rulerMatchPart,
} from "../../src/verify/rules/long-context.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

describe("ruler", () => {
  test.each([
    ["VAR A VAR b", ["a", "B"], 1],
    ["only a here", ["a", "zz"], 0.5],
  ])("match all %p %p → %p", (p, refs, want) => expect(rulerMatchAll(p, refs as string[])).toBe(want));
  test.each([
    ["the answer is Paris", ["paris", "rome"], 1],
    ["nothing", ["paris"], 0],
  ])("match part %p %p → %p", (p, refs, want) => expect(rulerMatchPart(p, refs as string[])).toBe(want));
});

describe("ruler2", () => {
  test.each([
    ["hello\x01world", "hello\nworld"],
    ["   abc   ", "abc"],
    ["", ""],
    [" \tA\x00B\x1fC\n ", "A\nB\nC"],
  ])("default_parse %p", (s, want) => expect(ruler2DefaultParse(s)).toBe(want));

  test.each([
    ["haystack with needle in it", "needle", 1],
    ["THE Needle", "needle", 1],
    ["foo bar baz", "foo bar quux", 2 / 3],
    ["foo bar", "the quick brown fox", 0],
    ["a b c", "a b d", 1 - 1 / 3],
  ])("soft match %p vs %p", (p, r, want) => expect(ruler2SoftMatch(p, r)).toBeCloseTo(want, 12));

  test("an empty reference has WER +inf: only a substring hit scores", () => expect(ruler2SoftMatch("a", "")).toBe(1));

  test.each([
    ["all", "foo bar baz", ["foo", "bar", "baz"], 1],
    ["all", "foo bar", ["foo", "bar", "qux"], 2 / 3],
    ["all", "anything", [], 0],
    ["part", "answer is foo", ["foo", "totally unrelated zzz"], 1],
    ["part", "Document 1:\nfoo content\n\nDocument 2:\nbar content\n\nthe answer", ["answer"], 1],
    ["part", "anything", [], 0],
    ["2steps", "intro\n\nthe answer is foo", ["foo"], 1],
    ["2steps", "anything", [], 0],
  ])("%s: %p %p", (mt, p, refs, want) => expect(ruler2Score(mt as "all", p as string, refs as string[])).toBeCloseTo(want as number, 12));

  test("2steps scores the last paragraph only", () => {
    expect(ruler2Score("2steps", "the answer is foo\n\nbut now I'm rambling about cats", ["foo"])).toBe(ruler2Score("all", "but now I'm rambling about cats", ["foo"]));
  });

  test.each([
    ["solving... \\boxed{B}", "B"],
    ["The final answer is C", "C"],
    ["blah blah\nAnswer: D", "D"],
    ["**Answer:** A", "A"],
    ["no answer here, just words", null],
    ["\\boxed{أ}", "A"],
    ["\\boxed{The answer is B}", "B"],
  ])("MCQ letter of %p", (t, want) => expect(extractMcqLetter(t)).toBe(want));
});

describe("graphwalks", () => {
  test.each([
    ["...\nFinal Answer: [node_1, node_2, node_3]", ["node_1", "node_2", "node_3"], false],
    ["Final Answer: []", [], false],
    ["Final Answer: [decoy]\nbecause I said so\nFinal Answer: [real]", ["real"], false],
    ["Final Answer: [a, b]\n\n   \n", ["a", "b"], false],
    ["The answer is node_42.", [], true],
    ["", [], true],
    ["Final Answer: [  a  ,b ,   c]", ["a", "b", "c"], false],
    ["Final Answer: [a,, b,]", ["a", "b"], false],
  ])("parse %p", (t, nodes, failed) => expect(graphwalksParse(t)).toEqual({ nodes: nodes as string[], parseFailed: failed }));

  test.each([
    [["a"], ["a"], true, 0],
    [[], [], false, 1],
    [[], ["a"], false, 0],
    [["a"], [], false, 0],
    [["a", "b"], ["a", "b"], false, 1],
    [["a"], ["b"], false, 0],
    [["a", "b"], ["a", "c"], false, 0.5],
    [["a", "b", "c"], ["a"], false, 0.5],
  ])("F1 %p vs %p (parse failed %p)", (p, e, f, want) => expect(graphwalksF1(new Set(p), new Set(e), f)).toBeCloseTo(want, 12));

  test("expected answers as Python's set(json.loads(…)): lists, strings by character, bad JSON and numbers empty", () => {
    expect([...graphwalksExpected('["a", "b", "a"]')]).toEqual(["a", "b"]);
    expect([...graphwalksExpected('"ab"')]).toEqual(["a", "b"]);
    expect(graphwalksExpected("not json").size).toBe(0);
    expect(graphwalksExpected("5").size).toBe(0);
    expect(graphwalksExpected('[["x"]]').size).toBe(0);
    // A number in the list never equals a node name string.
    expect(graphwalksF1(new Set(["1"]), graphwalksExpected("[1]"), false)).toBe(0);
  });
});

describe("mrcr", () => {
  test.each([
    ["hello world", "xyz123hello world", "xyz123", 0],
    ["xyz123The quick brown fox", "xyz123The quick brown fox", "xyz123", 1],
    ["PFXhello", "PFXhello", "PFX", 1],
    ["", "xyz123hello", "xyz123", 0],
    ["xyz123", "xyz123hello", "xyz123", 0],
    ["<think>Let me find the first song...</think>\n\nxyz123Song one lyrics", "xyz123Song one lyrics", "xyz123", 0],
  ])("grade %p vs %p", (r, e, p, want) => expect(mrcrGrade(r, e, p)).toBe(want));

  test("a partial match is strictly between 0 and 1 (difflib ratio)", () => {
    const s = mrcrGrade("xyz123The quick brown fox", "xyz123The quick black fox", "xyz123");
    expect(s).toBeGreaterThan(0);
    expect(s).toBeLessThan(1);
    // SequenceMatcher(None, "The quick brown fox", "The quick black fox").ratio(), computed once with CPython.
    expect(s).toBe(0.7894736842105263);
  });
});

describe("servers over loopback", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(["ruler", "ruler2", "graphwalks", "mrcr"].map((impl) => ({ name: impl, serverType: "resources_servers" as const, impl })));
  });
  afterAll(async () => stack.stop());
  const rcp = { input: [{ role: "user", content: "q" }] };
  const said = (text: string) => ({ id: "r", created_at: 0, model: "m", object: "response", parallel_tool_calls: true, tool_choice: "auto", tools: [], output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] }] });

  test("ruler sets the subset's field to the reward and the other subsets to null", async () => {
    const r = await postJson(`${stack.url.ruler}/verify`, { responses_create_params: rcp, response: said(" qa Answer: X "), outputs: ["x", "y"], length: 4096, subset: "qa_1" });
    expect([r.json.reward, r.json.qa_1, r.json.vt, r.json.length]).toEqual([1, 1, null, 4096]);
  });

  test("ruler2: multichoice route and an unknown match_type (upstream's ValueError → 500)", async () => {
    const m = await postJson(`${stack.url.ruler2}/verify`, { responses_create_params: rcp, response: said("The final answer is c"), expected_answer: " c ", eval_type: "multichoice" });
    expect([m.json.reward, m.json.extracted_answer, m.json.match_type, m.json.task]).toEqual([1, "C", "all", null]);
    const bad = await postJson(`${stack.url.ruler2}/verify`, { responses_create_params: rcp, response: said("x"), expected_answer: ["x"], match_type: "some" });
    expect(bad.status).toBe(500);
    expect(bad.text).toContain("Unsupported match_type='some'");
  });

  test("graphwalks and mrcr: fields of upstream's verify responses; missing fields are 422s", async () => {
    const g = await postJson(`${stack.url.graphwalks}/verify`, { responses_create_params: rcp, response: said("Final Answer: [n1, n2]"), expected_answer: '["n1"]', problem_type: "parents" });
    expect([g.json.reward, g.json.f1, g.json.parse_failed, g.json.predicted_nodes, g.json.n_tokens]).toEqual([2 / 3, 2 / 3, false, ["n1", "n2"], null]);
    const m = await postJson(`${stack.url.mrcr}/verify`, { responses_create_params: rcp, response: said("  PFXabc "), expected_answer: "PFXabc", random_string_to_prepend: "PFX", n_needles: 2, n_tokens: 100 });
    expect([m.json.reward, m.json.prefix_matched, m.json.seq_match_ratio]).toEqual([1, true, 1]);
    expect((await postJson(`${stack.url.mrcr}/verify`, { responses_create_params: rcp, response: said("x"), expected_answer: "x" })).status).toBe(422);
    expect((await postJson(`${stack.url.graphwalks}/verify`, { responses_create_params: rcp, response: said("x") })).status).toBe(422);
  });

  test("graphwalks metrics: pass@k plus problem_type=<value>/… subsets, no majority", async () => {
    const rows = [0, 1].flatMap((t) => [0, 1].map((k) => ({ _ng_task_index: t, _ng_rollout_index: k, reward: t === 0 ? 1 : 0.5 * k, problem_type: t === 0 ? "parents" : "bfs" })));
    const r = await postJson(`${stack.url.graphwalks}/aggregate_metrics`, { verify_responses: rows });
    const keys = Object.keys(r.json.agent_metrics);
    expect(keys).toContain("pass@1[avg-of-2]/accuracy");
    expect(keys.some((k) => k.startsWith("problem_type=parents/pass@"))).toBe(true);
    expect(keys.some((k) => k.startsWith("parents/"))).toBe(false);
    expect(keys.some((k) => k.startsWith("majority@"))).toBe(false);
  });
});
