/**
 * Judge answers that a rollouts file keeps as TEXT rather than as calls (D26 for verifiers that
 * record what the judge said, not what it was asked): a rubric item's `judge_prompt` /
 * `judge_response` (multichallenge, inverse_if) answer that exact prompt; a row's `judge_output` /
 * `judge_raw` (simpleqa, omniscience, abstention, frontierscience_judge, longmemeval) answer a judge
 * prompt that quotes the row's question and the policy's answer; arena_judge's `judgement_gen_base` /
 * `judgement_base_gen` answer the prompt quoting question, candidate and baseline in that order (or
 * swapped). scripted_model falls back to
 * these when no recorded call matches, so `gym env test` can replay such servers.
 */
type Obj = Record<string, unknown>;

interface TextEntry {
  /** The prompt must equal this (rubric items). */
  exact?: string;
  /** Or contain every one of these (rows). */
  needles?: string[];
  /** Or contain these one after another (arena_judge's two directions). */
  ordered?: string[];
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
    this.addArena(row);
    const text = typeof row.judge_output === "string" ? row.judge_output : typeof row.judge_raw === "string" ? row.judge_raw : undefined;
    if (text === undefined) return;
    const md = row.verifier_metadata as Obj | undefined;
    const needles = [str(row.question) ?? str(md?.question), answerOf(row)].filter((n): n is string => n !== undefined);
    if (needles.length > 0) this.entries.push({ needles, text });
  }

  /** arena_judge: each direction's judgement answers the prompt quoting its two answers in that order. */
  private addArena(row: Obj): void {
    const question = str(row.question);
    const baseline = str(row.baseline_answer);
    const candidate = str(messageText(row.response));
    if (!question || !baseline || !candidate) return;
    if (typeof row.judgement_gen_base === "string") this.entries.push({ ordered: [question, candidate, baseline], text: row.judgement_gen_base });
    if (typeof row.judgement_base_gen === "string") this.entries.push({ ordered: [question, baseline, candidate], text: row.judgement_base_gen });
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
      const parts = e.ordered ?? e.needles!;
      if (e.ordered ? !inOrder(prompt, e.ordered) : !parts.every((n) => prompt.includes(n))) continue;
      const weight = parts.reduce((a, n) => a + n.length, 0);
      if (!best || weight > best.weight) best = { text: e.text, weight };
    }
    return best?.text;
  }
}

/** Whether `text` contains `parts` one after another. */
function inOrder(text: string, parts: string[]): boolean {
  let at = 0;
  for (const p of parts) {
    const i = text.indexOf(p, at);
    if (i < 0) return false;
    at = i + p.length;
  }
  return true;
}

/** Every message item's output_text of a recorded Responses answer, concatenated. */
function messageText(response: unknown): string {
  const parts: string[] = [];
  for (const o of (((response as Obj | undefined)?.output ?? []) as Obj[])) {
    if (o?.type === "message" && Array.isArray(o.content)) for (const c of o.content as Obj[]) if (c?.type === "output_text" && typeof c.text === "string") parts.push(c.text);
  }
  return parts.join("");
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
