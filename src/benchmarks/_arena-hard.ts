/**
 * Arena-Hard question sets (upstream benchmarks/arena_hard and arena_hard_v2 prepare.py): arena-hard-auto's
 * `question.jsonl` joined by `uid` with a baseline model's answers. Each row keeps its fields in order,
 * `prompt` moves to the end as `question`, and `baseline_answer` (the baseline's assistant message:
 * a string, or the `answer` of an object) follows. A question without a baseline answer stops the
 * preparation, as upstream's KeyError does: a silent skip would shrink the set.
 */
import { parseJsonlRows } from "../dataset/formats/jsonl.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { SourceFile } from "./types.ts";

type Row = Record<string, unknown>;

/** arena-hard-auto's raw files of one release (`data/<release>/…`). */
export function arenaUrl(release: string, path: string): string {
  return `https://raw.githubusercontent.com/lmarena/arena-hard-auto/main/data/${release}/${path}`;
}

/** uid → the baseline's answer text, from one model_answer JSONL. */
export function baselineAnswers(file: SourceFile): Map<string, string> {
  const out = new Map<string, string>();
  for (const { row, line } of parseJsonlRows(new TextDecoder().decode(file.bytes), file.name)) {
    const where = `${file.name}:${line}`;
    const messages = row.messages;
    if (typeof row.uid !== "string" || !Array.isArray(messages)) throw new SourceFormatError(where, "needs a string 'uid' and a 'messages' list");
    const msg = (messages as Row[]).find((m) => m?.role === "assistant");
    if (!msg) throw new SourceFormatError(where, "No assistant message found in the baseline row.");
    const c = msg.content;
    const text = c && typeof c === "object" && !Array.isArray(c) ? (c as Row).answer : c;
    if (typeof text !== "string") throw new SourceFormatError(where, "the assistant content must be a string or an object with a string 'answer'");
    out.set(row.uid, text);
  }
  return out;
}

/**
 * The benchmark lines: each question with `question` (from `prompt`) and the baseline answer chosen by
 * `pick(row, uid)`; `dropCategory` removes the release-name `category` v0.1 carries.
 */
export function arenaLines(questions: SourceFile, pick: (row: Row, where: string) => string, dropCategory: boolean): string[] {
  return parseJsonlRows(new TextDecoder().decode(questions.bytes), questions.name).map(({ row, line }) => {
    const where = `${questions.name}:${line}`;
    if (!Object.hasOwn(row, "prompt")) throw new SourceFormatError(where, "needs a 'prompt' field");
    const { prompt, ...rest } = row;
    if (dropCategory) delete rest.category;
    const out: Row = { ...rest, question: prompt };
    out.baseline_answer = pick(row, where);
    return pyDumps(out);
  });
}
