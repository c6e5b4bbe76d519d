/** AA-Omniscience-Public (upstream benchmarks/omniscience/prepare.py): id, domain, topic, question, answer. */
import { readParquet } from "../dataset/formats/parquet.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** The Omniscience preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "omniscience",
  server: "omniscience",
  sources: [{ kind: "hf-parquet", repo: "ArtificialAnalysis/AA-Omniscience-Public", config: "default", split: "train" }],
  async prepare(files) {
    const lines: string[] = [];
    for (const file of files[0]!) {
      for (const e of await readParquet(file.bytes, file.name)) {
        lines.push(pyDumps({ id: e.question_id, domain: e.domain, topic: e.topic, question: e.question, expected_answer: e.answer }, false));
      }
    }
    return lines;
  },
};
