/** critpt_agent's pure steps: strip the turn-1 reasoning, then build the turn-2 "fill the template" input. */
import { pyStrip } from "../../util/py-str.ts";

type Obj = Record<string, unknown>;
/** `<think>…</think>` / `<thinking>…</thinking>` blocks, non-greedy, across lines; an unclosed tag is left alone. */
const THINK_BLOCK = /<think>[\s\S]*?<\/think>|<thinking>[\s\S]*?<\/thinking>/g;

/** The turn-1 text without its reasoning blocks, stripped (Python `str.strip`). */
export function stripThinkingBlocks(text: string): string {
  return pyStrip(text.replace(THINK_BLOCK, ""));
}

/**
 * Turn 2's create params: turn 1's params with the conversation extended by the model's
 * (reasoning-free) turn-1 answer and the user message asking it to populate the template.
 */
export function turn2Params(turn1Params: Obj, turn1Text: string, turn2UserMessage: string): Obj {
  const prior = typeof turn1Params.input === "string" ? [{ role: "user", content: turn1Params.input }] : ((turn1Params.input as unknown[] | undefined) ?? []);
  return { ...turn1Params, input: [...prior, { role: "assistant", content: turn1Text }, { role: "user", content: turn2UserMessage }] };
}
