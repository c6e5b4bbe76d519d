/**
 * GPQA Diamond (upstream benchmarks/gpqa/prepare.py): a gated Hub dataset read from its parquet
 * conversion; the four answers are shuffled with Python's `random.Random(md5(question))`, so the
 * correct letter matches upstream's row for row; `uuid` is uuid5(NAMESPACE_URL, question).
 */
import { createHash } from "node:crypto";
import { readParquet } from "../dataset/formats/parquet.ts";
import { PyRandom } from "../util/py-random.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { NAMESPACE_URL, uuid5 } from "../util/uuid5.ts";
import { field, optionLetters } from "./_mcq.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** The GPQA Diamond preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "gpqa",
  server: "mcqa",
  sources: [{ kind: "hf-parquet", repo: "Idavidrein/gpqa", config: "gpqa_diamond", split: "train", gated: true }],
  async prepare(files) {
    const lines: string[] = [];
    const letters = optionLetters(4);
    for (const file of files[0]!) {
      const rows = await readParquet(file.bytes, file.name);
      rows.forEach((ex, i) => {
        const where = `${file.name}: row ${i + 1}`;
        const question = field(ex, "Question", where);
        const correct = field(ex, "Correct Answer", where);
        const choices = [correct, field(ex, "Incorrect Answer 1", where), field(ex, "Incorrect Answer 2", where), field(ex, "Incorrect Answer 3", where)];
        new PyRandom(BigInt(`0x${createHash("md5").update(question, "utf8").digest("hex")}`)).shuffle(choices);
        const correctLetter = letters[choices.indexOf(correct)]!;
        const optionsText = choices.map((c, j) => `${letters[j]}: ${c}`).join("\n");
        lines.push(
          pyDumps({
            question,
            options_text: optionsText,
            problem: `${question}\n${optionsText}`,
            options: choices.map((c, j) => ({ [letters[j]!]: c })),
            expected_answer: correctLetter,
            uuid: uuid5(NAMESPACE_URL, question),
          }),
        );
      });
    }
    return lines;
  },
};
