/**
 * math_with_autograder: upstream's tests (resources_servers/math_with_autograder/tests/test_app.py) as
 * data — search_boxed, first-label-wins verdicts, one unidirectional call with the Skills placeholders —
 * over a real server and a local judge endpoint speaking the Responses API.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { autograderVerdict, searchBoxed } from "../../src/components/resources/math-with-autograder/index.ts";
import { postJson, startStack } from "../servers/_stack.ts";

const SEARCH: [string, string | null][] = [
  ["no boxed here", null],
  ["answer is \\boxed{42}", "42"],
  ["first \\boxed{1} then \\boxed{2}", "2"],
  ["complex \\boxed{g(x)=2x^3+C \\text{ or } g(x)=-2x^3+C, C\\in\\mathbb{R}}", "g(x)=2x^3+C \\text{ or } g(x)=-2x^3+C, C\\in\\mathbb{R}"],
  ["\\fbox{99}", "99"],
  ["\\boxed{unbalanced", null],
  ["\\fbox{x} and \\boxed{y}", "y"],
  ["only \\fbox{5} here", "5"],
];
test.each(SEARCH)("searchBoxed(%p) = %p", (text, want) => expect(searchBoxed(text)).toBe(want));

const said = (text: string) => ({ output: [{ type: "message", content: [{ type: "output_text", text }] }] });
const VERDICTS: [string, Record<string, unknown>, boolean][] = [
  ["correct", said("My final verdict: \\boxed{Correct}"), true],
  ["incorrect", said("Reasoning... so \\boxed{Incorrect}."), false],
  ["first label wins (Incorrect first)", said("At first I thought \\boxed{Incorrect}, then \\boxed{Correct}."), false],
  ["Correct before Incorrect", said("\\boxed{Correct} (alternative \\boxed{Incorrect})."), true],
  ["unparseable", said("I think these are basically the same."), false],
  ["refusal content", { output: [{ type: "message", content: [{ type: "refusal", refusal: "cannot answer" }] }] }, false],
];
test.each(VERDICTS)("verdict: %s", (_n, response, want) => expect(autograderVerdict(response)).toBe(want));

const seen: { input: { role: string; content: string }[] }[] = [];
const answers: string[] = [];
const judge = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    seen.push((await req.json()) as never);
    const text = answers.shift() ?? "\\boxed{Incorrect}";
    return Response.json({
      id: "r", created_at: 1, model: "judge", object: "response", parallel_tool_calls: false, tool_choice: "none", tools: [],
      output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }],
    });
  },
});
afterAll(() => judge.stop(true));

const row = (question: string, expected: string, text: string) => ({
  responses_create_params: { input: [{ role: "user", content: question }] },
  response: { id: "r", created_at: 0, model: "m", object: "response", output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }], parallel_tool_calls: false, tool_choice: "none", tools: [] },
  question,
  expected_answer: expected,
});

describe("math_with_autograder server", () => {
  test("symbolic pass skips the judge; a miss makes one user-only call with the raw boxed LaTeX", async () => {
    await using s = await startStack(
      [{ name: "ag", serverType: "resources_servers", impl: "math_with_autograder", leaf: { should_use_judge: true, judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_responses_create_params: { input: [], max_output_tokens: 2048 } } }],
      { request_timeout_seconds: 5, judge_model: { responses_api_models: { openai_model: { host: "127.0.0.1", port: judge.port } } } },
    );
    const before = seen.length;
    const ok = await postJson(`${s.url.ag}/verify`, row("Q", "42", "so \\boxed{42}"));
    expect([ok.json.reward, ok.json.library_reward, ok.json.judge_evaluations]).toEqual([1, 1, null]);
    expect(seen.length).toBe(before);

    answers.push("\\boxed{Correct}");
    const miss = await postJson(`${s.url.ag}/verify`, row("What is the set?", "\\{1,2\\}", "thus \\boxed{\\{1, 3\\}}"));
    expect(miss.json.library_reward).toBe(0);
    expect(miss.json.reward).toBe(1);
    expect(miss.json.judge_evaluations).toHaveLength(1);
    expect(seen.length - before).toBe(1);
    const sent = seen[before]!.input;
    expect(sent.map((m) => m.role)).toEqual(["user"]);
    expect(sent[0]!.content).toContain("Problem: What is the set?\nModel Solution: \\{1, 3\\}\nGolden Answer: \\{1,2\\}");
  });
});
