/**
 * math_with_judge's judge fallback (upstream `_verify_answer_with_judge`): an Arena-Hard-style prompt asks
 * whether two answers are equal; pass 1 puts the gold first, and only an "equal" verdict earns pass 2
 * with the order swapped. The earlier label in the last output_text decides; no label (or a final item
 * that is not a message with output_text) counts as "not equal". Transport failures surface as JudgeError.
 */
import { judgeMessages, type JudgeClient, type JudgeEvaluation } from "../../../verify/judge/judge-client.ts";

type Obj = Record<string, unknown>;

/** Upstream's system message (adapted from Arena Hard), verbatim: the judge's behaviour depends on it. */
export const MATH_JUDGE_SYSTEM = `Please act as an impartial judge and evaluate the equivalence of the solutions given by two AI assistants to the mathematical problem displayed below. You will be given AI assistant A's answer and AI assistant B's answer. Your job is to evaluate whether assistant A's answer is equivalent to assistant B's answer.

Consider the mathematical equivalence of the AI assistants' answers above all other considerations. If the problem requests special formatting instructions, you may disregard any formatting considerations when evaluating the answers -- consider only mathematical equivalence.

After evaluating both answers for equivalence, you must output only one of the following choices as your final verdict with a label:

1.  The AI assistants' answers are equivalent: [[A=B]]
2.  The AI assistants' answers are different: [[A!=B]]

Example output: "My final verdict is different [[A!=B]]".`;

const EQUAL = "[[A=B]]";
const NOT_EQUAL = "[[A!=B]]";

/** The user prompt with both answers. */
export function mathJudgePrompt(question: string, first: string, second: string): string {
  return `<|Problem|>\n${question}\n\n<|Start of Assistant A's Answer|>\n${first}\n<|End of Assistant A's Answer|>\n\n<|Start of Assistant B's Answer|>\n${second}\n<|End of Assistant B's Answer|>`;
}

/** True when the judge's answer says "equal" before (or without) "not equal". */
export function judgedEqual(response: Obj): boolean {
  const output = response.output;
  if (!Array.isArray(output) || output.length === 0) return false;
  const last = output[output.length - 1] as Obj;
  if (last?.type !== "message" || !Array.isArray(last.content) || last.content.length === 0) return false;
  const part = last.content[last.content.length - 1] as Obj;
  if (part?.type !== "output_text" || typeof part.text !== "string") return false;
  const eq = part.text.indexOf(EQUAL);
  const neq = part.text.indexOf(NOT_EQUAL);
  return eq >= 0 && (neq < 0 || eq < neq);
}

/** Both passes as upstream runs them: `{reward, judge_evaluations}`. */
export async function judgeMath(judge: JudgeClient, question: string, expected: string, generated: string): Promise<{ reward: number; evaluations: JudgeEvaluation[] }> {
  const ask = async (a: string, b: string) => {
    const call = await judge.respond(judgeMessages(mathJudgePrompt(question, a, b), MATH_JUDGE_SYSTEM));
    return [judgedEqual(call.response), call] as const;
  };
  const [firstEqual, first] = await ask(expected, generated);
  if (!firstEqual) return { reward: 0.0, evaluations: [first] };
  const [secondEqual, second] = await ask(generated, expected);
  return { reward: secondEqual ? 1.0 : 0.0, evaluations: [first, second] };
}
