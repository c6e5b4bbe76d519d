/** scripted_model's text-only judge recordings: which recorded judge text answers which prompt. */
import { describe, expect, test } from "bun:test";
import { JudgeTextBook, lastPromptText } from "../../src/components/models/_scripted-judge-text.ts";
import { ReplayBook } from "../../src/components/models/_scripted-replay.ts";

const resp = (text: string) => ({ output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text }] }] });

describe("JudgeTextBook", () => {
  const book = new JudgeTextBook();
  book.add({ rubric_evaluations: [{ judge_prompt: "P1 exact", judge_response: "```json\n{\"result\": \"PASS\"}\n```" }, { judge_prompt: "P2", judge_response: "FAIL" }] });
  book.add({ question: "What is 2+2?", extracted_answer: "4", judge_output: "Judgement: YES" });
  book.add({ question: "What is 2+2?", extracted_answer: "42", judge_output: "Judgement: NO" });
  book.add({ verifier_metadata: { question: "Where do I live?" }, generation: "Paris", judge_raw: "yes" });
  book.add({ question: "no judge text here" });

  test.each([
    ["P1 exact", '```json\n{"result": "PASS"}\n```'],
    ["P2", "FAIL"],
    ["P1 exact plus more", undefined],
    ["Problem: What is 2+2?\nAnswer: 4\n", "Judgement: YES"],
    // Both rows' needles occur ("4" inside "42"): the more specific row wins.
    ["Problem: What is 2+2?\nAnswer: 42\n", "Judgement: NO"],
    ["Question: Where do I live?\n\nModel Response: Paris", "yes"],
    ["Question: Where do I live?\n\nModel Response: Rome", undefined],
  ])("%p → %p", (prompt, want) => {
    expect(book.answer(prompt)).toBe(want);
  });

  test("the prompt is the last message's text", () => {
    expect(lastPromptText([{ role: "system", content: "s" }, { role: "user", content: "u" }])).toBe("u");
    expect(lastPromptText([{ role: "user", content: [{ type: "input_text", text: "a" }, { type: "input_text", text: "b" }] }])).toBe("ab");
    expect(lastPromptText("plain")).toBe("plain");
    expect(lastPromptText([])).toBeUndefined();
  });

  test("a replay book answers a judge prompt no recorded call matches from the rows' judge text; other prompts still 404", () => {
    const row = { responses_create_params: { input: [{ role: "user", content: "What is 2+2?" }] }, response: resp("4"), question: "What is 2+2?", extracted_answer: "4", judge_output: "Judgement: YES" };
    const replay = new ReplayBook("r.jsonl", JSON.stringify(row) + "\n");
    expect(replay.next([{ role: "user", content: "What is 2+2?" }]).output[0]!.content).toEqual([{ type: "output_text", text: "4" }]);
    const judged = replay.next([{ role: "user", content: "Grade.\nProblem: What is 2+2?\nAttempt: 4" }]);
    expect((judged.output[0]!.content as { text: string }[])[0]!.text).toBe("Judgement: YES");
    expect(() => replay.next([{ role: "user", content: "something else" }])).toThrow(/no recorded rollout/);
  });
});
