/**
 * physics_judge, ugphysics_judge and imo_proofbench_judge: upstream's tests (each server's
 * tests/test_app.py) as data — verdict parsers, thinking-trace stripping, \boxed search, points,
 * Skills' math_equal — and each server over a real socket with a local judge endpoint (chat and
 * responses paths): the symbolic pass skips the judge, a miss makes exactly one call without swap.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { physicsComputeMetrics, physicsVerdict } from "../../src/components/resources/physics-judge.ts";
import { parseUgphysicsJudgement, ugphysicsComputeMetrics } from "../../src/components/resources/ugphysics-judge.ts";
import { lastAssistantAnswer } from "../../src/components/resources/imo-proofbench-judge.ts";
import { mathEqual, parseJudgementVerdict, parsePoints, searchBoxedLast, stripThinkingTraces } from "../../src/verify/proof/proofbench.ts";
import { postJson, startStack } from "../servers/_stack.ts";

test.each([
  ["Judgement: [Correct]", true], ["Judgement: [Incorrect]", false], ["[correct]", true], ["[INCORRECT]", false],
  ["First [Incorrect], but actually [Correct]", true], ["This looks fine to me.", false], ["", false],
] as [string, boolean][])("physics verdict %p = %p", (text, want) => expect(physicsVerdict(text)).toBe(want));

test.each([
  ["Some preamble.\n## Equivalence Judgement\nTRUE\n## Justification\n...", true],
  ["Some preamble.\n## Equivalence Judgement\nFALSE\n## Justification\n...", false],
  ["## equivalence judgement\ntrue\n", true],
  ["Initial guess: FALSE. After review: TRUE.", true],
  ["Looks like TRUE at first glance, but actually FALSE.", false],
  ["I don't know what to say here.", null], ["", null], [null, null],
  ["##   Equivalence   Judgement\n  TRUE  ", true],
  ["TRUEDAT", null],
  ["éTRUE", null],
] as [string | null, boolean | null][])("ugphysics judgement %p = %p", (text, want) => expect(parseUgphysicsJudgement(text)).toBe(want));

test.each([
  ["<think>r</think>Answer", "Answer"], ["<thinking>r</thinking>Result", "Result"], ["reasoning</think>Final", "Final"],
  ["reasoning</thinking>Final", "Final"], ["plain", "plain"], ["<think>\nl1\nl2\n</think>\nA", "A"], ["", ""],
])("strip thinking %p = %p", (text, want) => expect(stripThinkingTraces(text)).toBe(want));

test.each([
  ["answer is \\boxed{42}", "42"], ["first \\boxed{wrong} then \\boxed{right}", "right"], ["\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"],
  ["just text, no boxed expression", null], ["\\boxed{unclosed", null], ["", null], [null, null],
] as [string | null, string | null][])("searchBoxedLast(%p) = %p", (text, want) => expect(searchBoxedLast(text)).toBe(want));

test.each([
  ["Judgement: Yes", true], ["**Judgement**: No", false], ["Judgement: Yes\n<points>1 out of 7</points>", true],
  ["Reasoning. \\boxed{Correct}", true], ["Analysis. \\boxed{Incorrect}", false], ["\\boxed{Correct} <points>0 out of 7</points>", true],
  ["<points>7 out of 7</points>", true], ["<points>6 out of 7</points>", true], ["<points>1 out of 7</points>", false], ["<points>0 out of 7</points>", false],
  ["inconclusive verdict", null], ["", null], [null, null],
] as [string | null, boolean | null][])("proofbench verdict %p = %p", (text, want) => expect(parseJudgementVerdict(text)).toBe(want));

test.each([
  ["Some reasoning. <points>7 out of 7</points>", 7], ["<points>6 out of 7</points>", 6], ["<points>1 out of 7</points>", 1], ["<points>0 out of 7</points>", 0],
  ["<POINTS>6 OUT OF 7</POINTS>", 6], ["<points>  6  out of 7  </points>", 6], ["<points>6 out of 7</points> ... <points>0 out of 7</points>", 6],
  ["nothing relevant", null], ["", null], [null, null], ["<points>three out of 7</points>", null],
] as [string | null, number | null][])("parsePoints(%p) = %p", (text, want) => expect(parsePoints(text)).toBe(want));

test.each([
  ["3", "3", true], ["180", " 180 ", true], ["3", null, false], ["3", "", false],
  ["$\\binom{20}{10}^2 - \\binom{20}{9}^2$ ", "5924217936", true], ["$\\frac{1}{2}$", "0.5", true],
  ["3", "4", false], ["hello", "world", false], ["3", "\\boxed{", false],
  // Ours: an MCQ gold letter, a percentage, trailing period.
  ["C", "\\text{C}", true], ["C", "D", false], ["50\\%", "50", true], ["7", "7.", true],
] as [string, string | null, boolean][])("mathEqual(%p, %p) = %p", (gt, pred, want) => expect(mathEqual(gt, pred)).toBe(want));

const msg = (text: string) => ({ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
test("proofbench reads the last assistant message with text, thinking removed", () => {
  expect(lastAssistantAnswer({ output: [msg("Hello")] })).toBe("Hello");
  expect(lastAssistantAnswer({ output: [msg("<think>x</think>Hi")] })).toBe("Hi");
  expect(lastAssistantAnswer({ output: [msg("<think>x</think>Hi")] }, false)).toBe("<think>x</think>Hi");
  expect(lastAssistantAnswer({ output: [] })).toBe("");
});

describe("metrics", () => {
  const r = (lib: number, reward: number, extra: Record<string, unknown>) => ({ library_reward: lib, reward, extracted_answer: "x", judge_evaluations: null, ...extra });
  test("physics: domain subsets only when rollouts carry a domain", () => {
    const m = physicsComputeMetrics([[r(1, 1, { domain: "mechanics" })], [r(0, 0, { domain: "thermodynamics" })]]);
    expect(Object.keys(m).some((k) => k.startsWith("mechanics/pass@1"))).toBe(true);
    expect(Object.keys(m).some((k) => k.startsWith("thermodynamics/"))).toBe(true);
    const plain = physicsComputeMetrics([[r(1, 1, {})]]);
    expect(Object.keys(plain).filter((k) => k.includes("/") && !/^(pass@|majority@|per_sample)/.test(k))).toEqual([]);
  });
  test("ugphysics: symbolic and judge accuracy, per-subject", () => {
    const m = ugphysicsComputeMetrics([[r(1, 1, { subject: "ClassicalMechanics", extracted_verdict: "TRUE" }), r(0, 1, { subject: "ClassicalMechanics", extracted_verdict: "TRUE" })], [r(0, 0, { subject: "Thermodynamics", extracted_verdict: "FALSE" }), r(0, 0, { subject: "Thermodynamics", extracted_verdict: null })]]);
    expect([m["pass@1[avg-of-2]/judge_accuracy"], m["pass@1[avg-of-2]/symbolic_accuracy"]]).toEqual([50, 25]);
    expect(Object.keys(m).some((k) => k.startsWith("ClassicalMechanics/"))).toBe(true);
    expect(Object.keys(m).some((k) => k.startsWith("Thermodynamics/"))).toBe(true);
  });
});

// A local judge speaking both APIs; answers are queued per test.
const seen: { path: string; body: any }[] = [];
const answers: string[] = [];
const judge = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    const body = await req.json();
    seen.push({ path, body });
    const text = answers.shift() ?? "nothing";
    if (path.endsWith("/chat/completions")) return Response.json({ id: "c", object: "chat.completion", created: 1, model: "judge", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: text } }] });
    return Response.json({ id: "r", created_at: 1, model: "judge", object: "response", parallel_tool_calls: false, tool_choice: "none", tools: [], output: [msg(text)] });
  },
});
afterAll(() => judge.stop(true));

const judgeLeaf = (chat: boolean, extra: Record<string, unknown> = {}) => ({
  should_use_judge: true, judge_model_server: { type: "responses_api_models", name: "judge_model" },
  judge_responses_create_params: { input: [], max_output_tokens: 2048, temperature: 0.0, top_p: 1.0 }, use_chat_completions_for_judge: chat, ...extra,
});
const stackExtra = { request_timeout_seconds: 5, judge_model: { responses_api_models: { openai_model: { host: "127.0.0.1", port: judge.port } } } };
const row = (text: string, fields: Record<string, unknown>) => ({
  responses_create_params: { input: [{ role: "user", content: "q" }] },
  response: { id: "r", created_at: 0, model: "m", object: "response", output: [msg(text)], parallel_tool_calls: false, tool_choice: "none", tools: [] },
  ...fields,
});

test("physics_judge: library pass skips the judge; a miss sends the full generation once (chat path), [Correct] wins", async () => {
  await using s = await startStack([{ name: "ph", serverType: "resources_servers", impl: "physics_judge", leaf: judgeLeaf(true) }], stackExtra);
  seen.length = 0;
  const pass = (await postJson(`${s.url.ph}/verify`, row("So \\boxed{42}.", { question: "Q", expected_answer: "42" }))).json;
  expect([pass.reward, pass.library_reward, pass.judge_evaluations, seen.length]).toEqual([1, 1, null, 0]);
  answers.push("Judgement: [Correct]");
  const long = "Long reasoning… the speed is 2.998e8 m/s";
  const judged = (await postJson(`${s.url.ph}/verify`, row(long, { question: "What is the speed of light?", expected_answer: "3e8 m/s" }))).json;
  expect([judged.reward, judged.library_reward, seen.length, seen[0]!.path]).toEqual([1, 0, 1, "/v1/chat/completions"]);
  expect(seen[0]!.body.messages.length).toBe(1);
  expect(seen[0]!.body.messages[0].content).toContain(`Question: What is the speed of light?, Output sentence: ${long}, Correct answer: 3e8 m/s, Judgement:`);
  expect([seen[0]!.body.max_tokens, seen[0]!.body.top_p]).toEqual([2048, 1]);
  expect(judged.judge_evaluations[0].response.output[0].content[0].text).toBe("Judgement: [Correct]");
  answers.push("[Incorrect]");
  expect((await postJson(`${s.url.ph}/verify`, row("\\boxed{7}", { question: "Q", expected_answer: "42" }))).json.reward).toBe(0);
}, 60_000);

test("ugphysics_judge: verdict labels, solution in the prompt, responses path, echoed row fields", async () => {
  await using s = await startStack([
    { name: "ug", serverType: "resources_servers", impl: "ugphysics_judge", leaf: judgeLeaf(false) },
    { name: "ugoff", serverType: "resources_servers", impl: "ugphysics_judge", leaf: judgeLeaf(false, { should_use_judge: false }) },
  ], stackExtra);
  seen.length = 0;
  const fields = { question: "Q?", expected_answer: "42", solution: "Because.", subject: "Optics", extra_id: 9 };
  const pass = (await postJson(`${s.url.ug}/verify`, row("\\boxed{42}", fields))).json;
  expect([pass.reward, pass.extracted_verdict, pass.subject, pass.solution, pass.extra_id, seen.length]).toEqual([1, "TRUE", "Optics", "Because.", 9, 0]);
  answers.push("## Equivalence Judgement\nTRUE\n## Justification\nlooks fine.");
  const judged = (await postJson(`${s.url.ug}/verify`, row("\\boxed{41.99}", fields))).json;
  expect([judged.reward, judged.library_reward, judged.extracted_verdict, seen.length, seen[0]!.path]).toEqual([1, 0, "TRUE", 1, "/v1/responses"]);
  expect(seen[0]!.body.input[0].content).toContain("Because.");
  answers.push("I am thinking about other things.");
  const garbage = (await postJson(`${s.url.ug}/verify`, row("\\boxed{99}", fields))).json;
  expect([garbage.reward, garbage.extracted_verdict]).toEqual([0, null]);
  const off = (await postJson(`${s.url.ugoff}/verify`, row("\\boxed{99}", fields))).json;
  expect([off.reward, off.extracted_verdict, seen.length]).toEqual([0, "FALSE", 2]);
}, 60_000);

test("imo_proofbench_judge: no boxed → prefilled No, symbolic match → prefilled Yes, else one judge call", async () => {
  await using s = await startStack([{ name: "pb", serverType: "resources_servers", impl: "imo_proofbench_judge", leaf: judgeLeaf(true, { judge_responses_create_params: { input: [], max_output_tokens: 4096 } }) }], stackExtra);
  seen.length = 0;
  const f = { problem: "Prove it.", reference_solution: "Ref.", rubric: "7 points if…", expected_answer: "$\\binom{20}{10}^2 - \\binom{20}{9}^2$", category: "Algebra", level: "IMO-easy" };
  const none = (await postJson(`${s.url.pb}/verify`, row("no answer", f))).json;
  expect([none.reward, none.extracted_answer, none.judge_output, none.judge_points, none.no_judge_score, none.category]).toEqual([0, "", "Reasoning: No answer was provided.\nJudgement: No", null, 0, "Algebra"]);
  const sym = (await postJson(`${s.url.pb}/verify`, row("<think>\\boxed{1}</think>So \\boxed{5924217936}", f))).json;
  expect([sym.reward, sym.symbolic_correct, sym.judge_correct, sym.any_correct, sym.extracted_answer, sym.judge_output]).toEqual([1, 1, 1, 1, "5924217936", "Reasoning: The two answers are identical.\nJudgement: Yes"]);
  expect(seen.length).toBe(0);
  answers.push("Excellent. <points>7 out of 7</points>");
  const seven = (await postJson(`${s.url.pb}/verify`, row("\\boxed{X}", f))).json;
  expect([seven.reward, seven.judge_correct, seven.judge_points, seven.no_judge_score, seven.symbolic_correct, seen.length]).toEqual([1, 1, 7, 0, 0, 1]);
  expect(seen[0]!.body.messages[0].content).toContain("Ref.");
  expect(seen[0]!.body.max_tokens).toBe(4096);
  answers.push("Judgement: Yes\n<points>1 out of 7</points>");
  const yes = (await postJson(`${s.url.pb}/verify`, row("\\boxed{X}", f))).json;
  expect([yes.reward, yes.judge_points]).toEqual([1, 1]);
  answers.push("inconclusive");
  const unsure = (await postJson(`${s.url.pb}/verify`, row("\\boxed{X}", f))).json;
  expect([unsure.reward, unsure.no_judge_score, unsure.judge_points]).toEqual([0, 1, null]);
}, 60_000);
