/**
 * MMLU-Pro test split (upstream benchmarks/mmlu_pro/prepare.py): up to ten options lettered
 * A–J, `problem` = question + options text, `category` kept, and a uuid5 of the question and
 * options together (the set repeats questions with different options).
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { NAMESPACE_URL, uuid5 } from "../util/uuid5.ts";
import { field, optionLetters } from "./_mcq.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** Python's `str.strip("\n")`. */
function stripNewlines(s: string): string {
  return s.replace(/^\n+|\n+$/g, "");
}

/** The MMLU-Pro preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "mmlu_pro",
  server: "mcqa",
  sources: [{ kind: "hf-file", repo: "TIGER-Lab/MMLU-Pro", path: "data/test-00000-of-00001.parquet" }],
  async prepare(files) {
    const lines: string[] = [];
    for (const file of files[0]!) {
      const rows = await readParquet(file.bytes, file.name);
      rows.forEach((ex, i) => {
        const where = `${file.name}: row ${i + 1}`;
        const question = field(ex, "question", where);
        const options = ex.options;
        if (!Array.isArray(options) || options.some((o) => typeof o !== "string") || options.length > 10) {
          throw new SourceFormatError(where, "'options' must be a list of at most 10 strings");
        }
        const choices = options as string[];
        const letters = optionLetters(choices.length);
        const optionsText = choices.map((c, j) => `${letters[j]}) ${c}`).join("\n");
        // json.dumps(..., sort_keys=True): "options" sorts before "question".
        const seed = pyDumps({ options: choices, question });
        lines.push(
          pyDumps({
            question,
            options_text: optionsText,
            problem: `${stripNewlines(question)}\n\n${optionsText}`,
            options: choices.map((c, j) => ({ [letters[j]!]: c })),
            expected_answer: field(ex, "answer", where),
            category: field(ex, "category", where),
            uuid: uuid5(NAMESPACE_URL, seed),
          }),
        );
      });
    }
    return lines;
  },
};
