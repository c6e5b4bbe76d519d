/**
 * proof_genselect: upstream's only test is that the server starts; these cases pin the extraction
 * rules of its extract_best_solution (text after the last `</think>`, first tag pair, Python int(),
 * 1 or 2 only) and verify over a real server, with and without assert_think_end.
 */
import { expect, test } from "bun:test";
import { extractBestSolution } from "../../src/verify/proof/genselect.ts";
import { postJson, startStack } from "../servers/_stack.ts";

// [response, assert_think_end, index, reason]
const CASES: [string, boolean, number | null, string | null][] = [
  ["<analysis>a</analysis><best_solution>1</best_solution>", false, 1, null],
  ["<best_solution> 2 </best_solution>", false, 2, null],
  ["<best_solution>+2</best_solution>", false, 2, null],
  ["<best_solution>02</best_solution>", false, 2, null],
  ["<think>maybe <best_solution>1</best_solution></think> final <best_solution>2</best_solution>", false, 2, null],
  ["<think>only inside <best_solution>1</best_solution></think> nothing after", false, null, "missing_best_solution_tag"],
  ["no think but <best_solution>1</best_solution>", true, null, "missing_think_end"],
  ["<think>x</think><best_solution>1</best_solution>", true, 1, null],
  ["<best_solution>one</best_solution>", false, null, "invalid_best_solution_value"],
  ["<best_solution>1.0</best_solution>", false, null, "invalid_best_solution_value"],
  ["<best_solution>3</best_solution>", false, null, "best_solution_out_of_range"],
  ["<best_solution>1</best_solution><best_solution>2</best_solution>", false, 1, null],
  ["<best_solution>1", false, null, "missing_best_solution_tag"],
];
test.each(CASES)("extractBestSolution(%p, assert_think_end=%p) = %p (%p)", (text, assertEnd, index, reason) => expect(extractBestSolution(text, assertEnd) as unknown).toEqual({ index, reason }));

test("verify over a real server: reward for the right pick, 0 for an empty answer, 422 without correct_index", async () => {
  await using s = await startStack([
    { name: "gs", serverType: "resources_servers", impl: "proof_genselect", leaf: { assert_think_end: false } },
    { name: "gt", serverType: "resources_servers", impl: "proof_genselect", leaf: { assert_think_end: true } },
  ]);
  const body = (text: string, correct: number) => ({
    responses_create_params: { input: [{ role: "user", content: "pick" }] },
    response: { id: "r", created_at: 0, model: "m", object: "response", output: text ? [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }] : [], parallel_tool_calls: true, tool_choice: "auto", tools: [] },
    problem: "p", proof_1: "a", proof_2: "b", correct_index: correct, score_1: 7, score_2: 0,
  });
  const reward = async (name: string, text: string, correct: number) => (await postJson(`${s.url[name]}/verify`, body(text, correct))).json;
  expect(await reward("gs", "<best_solution>2</best_solution>", 2)).toMatchObject({ reward: 1 });
  expect(await reward("gs", "<best_solution>2</best_solution>", 1)).toMatchObject({ reward: 0 });
  expect(await reward("gs", "", 1)).toMatchObject({ reward: 0 });
  expect(await reward("gt", "<best_solution>2</best_solution>", 2)).toMatchObject({ reward: 0 });
  expect(await reward("gt", "<think>…</think><best_solution>2</best_solution>", 2)).toMatchObject({ reward: 1 });
  const { correct_index: _, ...missing } = body("<best_solution>1</best_solution>", 1);
  expect((await postJson(`${s.url.gs}/verify`, missing)).status).toBe(422);
}, 60_000);
