/**
 * proof_judge and proof_verification: the pure parts as tables (boxed scores as upstream's
 * `extract_boxed_score`, answer parsing with each failure reason, length limits in code points, reward
 * formulas), then both servers over real sockets with a local judge: the request upstream sends, no
 * judge call for malformed answers, the incorrect-group rule, a failing judge, and start-time errors.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { extractBoxedScore, generatedTokens, lengthProblem, parseProofAnswer, parseVerificationAnswer, proofReward, verificationReward } from "../../src/verify/proof/self-verify.ts";
import { component as proofJudge } from "../../src/components/resources/proof-judge.ts";
import { postJson, startStack } from "../servers/_stack.ts";

test.each([
  ["score \\boxed{1}", 1], ["\\boxed{0.5}", 0.5], ["\\boxed{ 0 }", 0], ["\\boxed{1.0}", 1], ["\\boxed{+.5}", 0.5], ["\\boxed{1e0}", 1],
  ["\\boxed{0} then \\boxed{1}", 1], ["\\boxed{1} then \\boxed{2}", null], ["\\boxed{0.75}", null], ["\\boxed{one}", null],
  ["\\boxed{1", null], ["no box", null], ["\\boxed{\\frac{1}{2}}", null], ["\\boxed{nan}", null], ["", null],
] as [string, number | null][])("extractBoxedScore(%p) = %p", (text, want) => expect(extractBoxedScore(text)).toBe(want));

const proofText = (proof: string, selfEval: string) => `## Solution\n${proof}\n## Self Evaluation\n${selfEval}`;
test.each([
  [proofText("P", "ok \\boxed{1}"), false, { proof: "P", selfEval: "ok \\boxed{1}", predicted: 1 }],
  [`<think>## Solution draft</think>\n${proofText(" P2 ", "\\boxed{0.5}")}`, false, { proof: "P2", selfEval: "\\boxed{0.5}", predicted: 0.5 }],
  [proofText("P", "\\boxed{1}"), true, { reason: "missing_think_end" }],
  ["just an answer", false, { reason: "missing_solution_header" }],
  ["## Solution\nP only", false, { reason: "missing_self_eval_header" }],
  ["## Self Evaluation\nfirst\n## Solution\nP", false, { reason: "missing_self_eval_header" }],
  [proofText("P", "no score"), false, { reason: "invalid_boxed_score" }],
  [proofText("A ## Self Evaluation inside", "x \\boxed{0}"), false, { proof: "A", selfEval: "inside\n## Self Evaluation\nx \\boxed{0}", predicted: 0 }],
] as [string, boolean, unknown][])("parseProofAnswer(%#)", (text, assertThink, want) => expect(parseProofAnswer(text, assertThink)).toEqual(want as never));

test("parseVerificationAnswer: the text after reasoning and its last boxed score", () => {
  expect(parseVerificationAnswer("<think>x</think>  Fine. \\boxed{0.5}  ", false)).toEqual({ verification: "Fine. \\boxed{0.5}", predicted: 0.5 });
  expect(parseVerificationAnswer("Fine. \\boxed{0.5}", true)).toEqual({ reason: "missing_think_end" });
  expect(parseVerificationAnswer("Fine.", false)).toEqual({ reason: "invalid_boxed_score" });
});

test("length limits count code points, as Python's len()", () => {
  expect(lengthProblem("😀".repeat(10), "proof", 10)).toBeNull(); // 20 UTF-16 units, 10 code points
  expect(lengthProblem("x".repeat(11), "proof", 10)).toEqual({ r_format: 0, reason: "proof_too_long", proof_length: 11, proof_max_length: 10, judge_generated_tokens: 0 });
});

test("reward formulas and generated tokens", () => {
  expect(proofReward(1, 0, 1, 0.5, null)).toBe(0.5);
  expect(proofReward(1, 0.5, 1, 0.5, 1)).toBe(0.75); // 0.5 + 0.5·(1 − 0.5)·1
  expect(proofReward(2, 1, 0, 0, 0.5)).toBe(0.5);
  expect(verificationReward(1, 0.5, 1)).toBe(0.5);
  expect(verificationReward(0, 1, 1)).toBe(0);
  expect([generatedTokens({ usage: { output_tokens: 9 } }), generatedTokens({ usage: { output_tokens: null, completion_tokens: 4 } }), generatedTokens({})]).toEqual([9, 4, 0]);
});

// A local judge: the verifier / meta-verifier answer chosen per prompt by `rule`; status 500 on demand.
const seen: any[] = [];
let rule: (prompt: string) => string | 500 = () => "\\boxed{1}";
const judge = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = (await req.json()) as any;
    seen.push(body);
    const text = rule(body.input[body.input.length - 1].content);
    if (text === 500) return new Response("boom", { status: 500 });
    return Response.json({ id: "r", created_at: 1, model: "judge", object: "response", parallel_tool_calls: false, tool_choice: "none", tools: [], output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }] });
  },
});
afterAll(() => judge.stop(true));

const stackExtra = { request_timeout_seconds: 5, judge_model: { responses_api_models: { openai_model: { host: "127.0.0.1", port: judge.port } } } };
const leaf = (extra: Record<string, unknown> = {}) => ({ judge_model_server: { type: "responses_api_models", name: "judge_model" }, temperature: 1.0, top_p: 1.0, max_tokens: 100000, ...extra });
const answer = (text: string) => ({ id: "r", created_at: 0, model: "m", object: "response", output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }], parallel_tool_calls: false, tool_choice: "none", tools: [] });
const row = (text: string, fields: Record<string, unknown> = {}) => ({ responses_create_params: { input: [{ role: "user", content: "q" }] }, response: answer(text), ...fields });

describe("proof_judge server", () => {
  test("one verifier call with upstream's request; malformed answers score 0 without a call; the row is echoed", async () => {
    await using s = await startStack([{ name: "pj", serverType: "resources_servers", impl: "proof_judge", leaf: leaf() }], stackExtra);
    seen.length = 0;
    rule = () => "Fine.\n\\boxed{0.5}";
    const r = (await postJson(`${s.url.pj}/verify`, row(proofText("My proof.", "I think \\boxed{1}"), { problem: "Prove it.", extra_field: 7 }))).json;
    expect([r.reward, r.problem, r.extra_field]).toEqual([0.5, "Prove it.", 7]);
    expect(seen).toHaveLength(1);
    const { input, ...params } = seen[0];
    expect(params).toMatchObject({ model: "judge_model", temperature: 1.0, top_p: 1.0, max_output_tokens: 100000 });
    expect(input[0].content).toContain("Prove it.");
    expect(input[0].content).toContain("My proof.");
    expect(input[0].content).toContain("\\boxed{...}"); // the template's {{...}} escape
    for (const bad of ["no headers", proofText("x".repeat(40_001), "\\boxed{1}"), proofText("P", "\\boxed{2}"), ""]) {
      expect((await postJson(`${s.url.pj}/verify`, row(bad, { problem: "p" }))).json.reward).toBe(0);
    }
    expect(seen).toHaveLength(1);
  });

  test("a judge answering 500 is a judge_failed row, not a zero", async () => {
    await using s = await startStack([{ name: "pj", serverType: "resources_servers", impl: "proof_judge", leaf: leaf() }], stackExtra);
    rule = () => 500;
    const r = (await postJson(`${s.url.pj}/verify`, row(proofText("P", "\\boxed{1}"), { problem: "p" }))).json;
    expect(r._ng_failure_class).toBe("judge_failed");
  });

  test("zero_reward_incorrect_groups: a group whose verifier scores are all 0 gets 0; a group with one success keeps its rewards", async () => {
    await using s = await startStack([{ name: "pj", serverType: "resources_servers", impl: "proof_judge", leaf: leaf({ beta: 0.5, zero_reward_incorrect_groups: true, expected_group_size: 2 }) }], stackExtra);
    // Verifier: 0 for every proof except "GOOD"; meta-verifier: always 1 (so r_z alone would give 0.5).
    rule = (p) => (p.includes("proof_analysis") || p.includes("solution evaluation") ? "\\boxed{1}" : p.includes("GOOD") ? "\\boxed{1}" : "\\boxed{0}");
    const send = (problem: string, proof: string) => postJson(`${s.url.pj}/verify`, row(proofText(proof, "\\boxed{0}"), { problem }));
    const [a, b] = await Promise.all([send("A", "bad one"), send("A", "bad two")]);
    expect([a.json.reward, b.json.reward]).toEqual([0, 0]);
    const [c, d] = await Promise.all([send("B", "GOOD"), send("B", "bad")]);
    expect([c.json.reward, d.json.reward].sort()).toEqual([0.5, 1.0]); // GOOD: 1 + ½·0·1; bad: 0 + ½·1·1
    const missing = await postJson(`${s.url.pj}/verify`, row(proofText("P", "\\boxed{0}")));
    expect(missing.status).toBe(422);
    expect(missing.text).toContain("problem must be set when zero_reward_incorrect_groups is enabled");
  });

  test("start-time errors: groups without a size, a non-numeric alpha", async () => {
    expect(() => proofJudge.checkConfig!({ instanceName: "pj", config: leaf({ zero_reward_incorrect_groups: true }) })).toThrow("expected_group_size must be > 0");
    await expect(startStack([{ name: "pj", serverType: "resources_servers", impl: "proof_judge", leaf: leaf({ alpha: "lots" }) }], stackExtra)).rejects.toThrow("alpha must be a number");
  });
});

describe("proof_verification server", () => {
  const gold = { problem: "Prove it.", proof: "The proof.", ground_truth_judgement: "It is right. \\boxed{1}", ground_truth_verify_score: 1 };
  test("(1 − |predicted − gold|) · meta score; the meta prompt carries both judgements", async () => {
    await using s = await startStack([{ name: "pv", serverType: "resources_servers", impl: "proof_verification", leaf: leaf() }], stackExtra);
    seen.length = 0;
    rule = () => "\\boxed{0.5}";
    const r = (await postJson(`${s.url.pv}/verify`, row("<think>hm</think>Mostly right. \\boxed{0.5}", gold))).json;
    expect(r.reward).toBe(0.25);
    expect(r.ground_truth_verify_score).toBe(1);
    expect(seen).toHaveLength(1);
    const prompt = seen[0].input[0].content as string;
    for (const part of ["Prove it.", "The proof.", "It is right. \\boxed{1}", "Mostly right. \\boxed{0.5}"]) expect(prompt).toContain(part);
  });
  test("no judge call for a bad answer or a gold score outside {0, ½, 1}; missing gold fields are a 422", async () => {
    await using s = await startStack([{ name: "pv", serverType: "resources_servers", impl: "proof_verification", leaf: leaf() }], stackExtra);
    seen.length = 0;
    expect((await postJson(`${s.url.pv}/verify`, row("no score", gold))).json.reward).toBe(0);
    expect((await postJson(`${s.url.pv}/verify`, row("\\boxed{1}", { ...gold, ground_truth_verify_score: 0.7 }))).json.reward).toBe(0);
    expect(seen).toHaveLength(0);
    const bad = await postJson(`${s.url.pv}/verify`, row("\\boxed{1}", { problem: "p" }));
    expect(bad.status).toBe(422);
    expect(bad.text).toContain("ground_truth_judgement");
  });
});
