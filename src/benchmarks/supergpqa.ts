/**
 * SuperGPQA (upstream benchmarks/supergpqa/prepare.py): the Hub's `train` split, options cleaned
 * (stripped, double spaces halved) and shuffled with ONE `random.Random(42)` over the whole set in
 * order, `A: …` option lines, uuid5 of the sorted JSON of the row's uuid, split and shuffled choices.
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { PyRandom } from "../util/py-random.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { pyStrip } from "../util/py-str.ts";
import { NAMESPACE_URL, uuid5 } from "../util/uuid5.ts";
import { field, optionLetters } from "./_mcq.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** `_preprocess`: None → " ", else stripped with each "  " replaced by " " (one pass, as str.replace). */
function clean(option: unknown): string {
  if (option === null || option === undefined) return " ";
  return pyStrip(String(option)).replaceAll("  ", " ");
}

/** The SuperGPQA preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "supergpqa",
  server: "mcqa",
  sources: [{ kind: "hf-parquet", repo: "m-a-p/SuperGPQA", config: "default", split: "train" }],
  async prepare(files) {
    const rng = new PyRandom(42);
    const lines: string[] = [];
    for (const file of files[0]!) {
      const rows = await readParquet(file.bytes, file.name);
      rows.forEach((ex, i) => {
        const where = `${file.name}: row ${i + 1}`;
        if (!Array.isArray(ex.options)) throw new SourceFormatError(where, "'options' must be a list");
        const choices = ex.options.map(clean);
        if (new Set(choices).size !== choices.length) throw new SourceFormatError(where, `choices are not unique: ${JSON.stringify(choices)}`);
        const answerLetter = pyStrip(field(ex, "answer_letter", where)).toUpperCase();
        const correct = choices[answerLetter.charCodeAt(0) - 65];
        if (answerLetter.length !== 1 || correct === undefined) throw new SourceFormatError(where, `answer_letter ${JSON.stringify(answerLetter)} names no option`);
        const shuffled = [...choices];
        rng.shuffle(shuffled);
        const letters = optionLetters(shuffled.length);
        const question = field(ex, "question", where);
        // json.dumps(sort_keys=True, ensure_ascii=False): choices, split, uuid.
        const seed = pyDumps({ choices: shuffled, split: "test", uuid: ex.uuid }, false);
        lines.push(
          pyDumps(
            {
              question,
              problem: `${question}\n\n${shuffled.map((c, j) => `${letters[j]}: ${c}`).join("\n")}`,
              options: shuffled.map((c, j) => ({ [letters[j]!]: c })),
              expected_answer: letters[shuffled.indexOf(correct)],
              uuid: uuid5(NAMESPACE_URL, seed),
              subset_for_metrics: ex.discipline,
              discipline: ex.discipline,
              field: ex.field,
              subfield: ex.subfield,
              difficulty: ex.difficulty,
              is_calculation: ex.is_calculation,
            },
            false,
          ),
        );
      });
    }
    return lines;
  },
};
