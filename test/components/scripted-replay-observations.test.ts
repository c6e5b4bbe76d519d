/** scripted_model replay of Gymnasium-style recordings: a user message inside a recorded output is the environment's turn. */
import { expect, test } from "bun:test";
import { ReplayBook } from "../../src/components/models/_scripted-replay.ts";

const msg = (role: string, text: string) => (role === "user" ? { role, content: text, type: "message" } : { type: "message", role, id: `m_${text}`, status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const rec = { responses_create_params: { input: [{ role: "user", content: "q" }] }, response: { id: "r", output: [msg("assistant", "a1"), msg("user", "follow-up"), msg("assistant", "a2")] }, reward: 1 };
const book = new ReplayBook("rec.jsonl", JSON.stringify(rec));

test("turn 1 answers the first model turn only, not the observation after it", () => {
  const out = book.next([{ role: "user", content: "q" }]).output;
  expect(out.map((o) => (o.content as { text: string }[])[0]!.text)).toEqual(["a1"]);
});

test("after the observation comes back as input, turn 2 answers the next model turn", () => {
  const out = book.next([{ role: "user", content: "q" }, msg("assistant", "a1"), { role: "user", content: "follow-up" }]).output;
  expect(out.map((o) => (o.content as { text: string }[])[0]!.text)).toEqual(["a2"]);
});

test("a different observation than recorded is no match (404 naming the closest recording)", () => {
  expect(() => book.next([{ role: "user", content: "q" }, msg("assistant", "a1"), { role: "user", content: "other" }])).toThrow(/no recorded rollout/);
});
