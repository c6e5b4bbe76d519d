/**
 * Judge answers that a rollouts file keeps as TEXT rather than as calls (D26 for verifiers that
 * record what the judge said, not what it was asked): a rubric item's `judge_prompt` /
 * `judge_response` (multichallenge, inverse_if) answer that exact prompt; a row's `judge_output` /
 * `judge_raw` (simpleqa, omniscience, abstention, frontierscience_judge, longmemeval) answer a judge
 * prompt that quotes the row's question and the policy's answer. scripted_model falls back to
 * these when no recorded call matches, so `gym env test` can replay such servers.
 */
type Obj = Record<string, unknown>;

interface TextEntry {
  /** The prompt must equal this (rubric items). */
  exact?: string;
  /** Or contain every one of these (rows). */
  needles?: string[];
  text: string;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The policy's answer as the row's verifier saw it: the recorded extracted answer or generation when present. */
function answerOf(row: Obj): string | undefined {
  return str(row.extracted_answer) ?? str(row.generation) ?? str(row.model_response_text);
}

/** Text-only judge recordings of one rollouts file. */
export class JudgeTextBook {
  private readonly entries: TextEntry[] = [];

  /** Index one recorded row (rows without judge text add nothing). */
  add(row: Obj): void {
    if (Array.isArray(row.rubric_evaluations)) {
      for (const e of row.rubric_evaluations as Obj[]) {
        const prompt = str(e?.judge_prompt);
        if (prompt && typeof e.judge_response === "string") this.entries.push({ exact: prompt, text: e.judge_response });
      }
    }
    const text = typeof row.judge_output === "string" ? row.judge_output : typeof row.judge_raw === "string" ? row.judge_raw : undefined;
    if (text === undefined) return;
    const md = row.verifier_metadata as Obj | undefined;
    const needles = [str(row.question) ?? str(md?.question), answerOf(row)].filter((n): n is string => n !== undefined);
    if (needles.length > 0) this.entries.push({ needles, text });
  }

  /** Number of entries. */
  get size(): number {
    return this.entries.length;
  }

  /** The recorded judge text for a prompt: an exact rubric prompt first, else the most specific row whose needles it contains. */
  answer(prompt: string): string | undefined {
    let best: { text: string; weight: number } | undefined;
    for (const e of this.entries) {
      if (e.exact !== undefined) {
        if (e.exact === prompt) return e.text;
        continue;
      }
      if (!e.needles!.every((n) => prompt.includes(n))) continue;
      const weight = e.needles!.reduce((a, n) => a + n.length, 0);
      if (!best || weight > best.weight) best = { text: e.text, weight };
    }
    return best?.text;
  }
}

/** The last message's text content of a Responses `input` or chat `messages` list. */
export function lastPromptText(items: unknown): string | undefined {
  if (typeof items === "string") return items;
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const last = items[items.length - 1] as Obj | undefined;
  if (typeof last?.content === "string") return last.content;
  if (Array.isArray(last?.content)) return (last.content as Obj[]).map((c) => (typeof c?.text === "string" ? c.text : "")).join("");
  return undefined;
}
