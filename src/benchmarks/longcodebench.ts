/**
 * LongCodeBench's LongCodeQA (upstream benchmarks/longcodebench/prepare.py, default variant):
 * `load_dataset("json", data_files="hf://datasets/Steefano/LCB/LongCodeQA.zip")`, i.e. every JSON /
 * JSON Lines file of the archive in the order `datasets` walks an extracted folder; each prompt
 * stripped plus the `\boxed{X}` postfix, `n_tokens` by tiktoken's `o200k_base`, no length filter,
 * four empty-text options for mcqa's `strict_single_letter_boxed`, uuid5 of the question.
 */
import { readZip } from "../dataset/formats/zip.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { pyStrip } from "../util/py-str.ts";
import { NAMESPACE_URL, uuid5 } from "../util/uuid5.ts";
import { field } from "./_mcq.ts";
import { o200kCounter } from "./_o200k.ts";
import type { BenchmarkPreparer } from "./types.ts";

const POSTFIX = "\n\nThe last line of your response should be in the following format: 'Answer: \\boxed{A/B/C/D}' (e.g. 'Answer: \\boxed{A}').";

/**
 * Archive paths in the order `datasets` iterates an extracted archive (os.walk, top-down): at each
 * folder its files sorted, then its sub-folders sorted; names starting with `.` or `__` skipped.
 */
export function datasetsWalkOrder(paths: string[]): string[] {
  const hidden = (part: string) => part.startsWith(".") || part.startsWith("__");
  const visible = paths.filter((p) => !p.split("/").some(hidden));
  const walk = (prefix: string): string[] => {
    const here = visible.filter((p) => p.startsWith(prefix));
    const files = here.filter((p) => !p.slice(prefix.length).includes("/")).sort(cmp);
    const dirs = [...new Set(here.filter((p) => p.slice(prefix.length).includes("/")).map((p) => p.slice(prefix.length).split("/")[0]!))].sort(cmp);
    return [...files, ...dirs.flatMap((d) => walk(`${prefix}${d}/`))];
  };
  return walk("");
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The rows of one data file: JSON Lines, or else one JSON array of objects (datasets' json builder). */
function jsonRows(bytes: Uint8Array, where: string): Record<string, unknown>[] {
  const text = new TextDecoder().decode(bytes);
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  try {
    const rows = text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as unknown);
    if (rows.every(isObj)) return rows;
  } catch {
    // not JSON Lines: try one JSON document below
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SourceFormatError(where, `neither JSON Lines nor a JSON document (${(e as Error).message})`);
  }
  if (Array.isArray(doc) && doc.every(isObj)) return doc;
  throw new SourceFormatError(where, "expected JSON Lines of objects or a JSON array of objects");
}

/** The LongCodeBench preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "longcodebench",
  server: "mcqa",
  sources: [{ kind: "hf-file", repo: "Steefano/LCB", path: "LongCodeQA.zip" }],
  async prepare(files) {
    const zip = files[0]![0]!;
    const entries = new Map(readZip(zip.bytes, zip.name).map((e) => [e.path, e.data]));
    const count = await o200kCounter();
    const options = ["A", "B", "C", "D"].map((l) => ({ [l]: "" }));
    const lines: string[] = [];
    for (const path of datasetsWalkOrder([...entries.keys()])) {
      jsonRows(entries.get(path)!, `${zip.name}:${path}`).forEach((entry, i) => {
        const where = `${zip.name}:${path}: row ${i + 1}`;
        const question = pyStrip(field(entry, "prompt", where)) + POSTFIX;
        lines.push(
          pyDumps({
            question,
            options,
            expected_answer: entry.correct_letter,
            grading_mode: "strict_single_letter_boxed",
            uuid: uuid5(NAMESPACE_URL, question),
            repo: entry.repo,
            prompt_goal: entry.prompt_goal,
            is_hard: entry.is_hard,
            n_tokens: count(question),
          }),
        );
      });
    }
    return lines;
  },
};
