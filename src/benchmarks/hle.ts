/**
 * Humanity's Last Exam, text-only (upstream benchmarks/hle/prepare.py without --include-vision):
 * the gated `cais/hle` test split, rows with an image dropped, raw fields kept for the prompt
 * config at rollout time; written with json.dumps' default ASCII escaping.
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** The HLE preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "hle",
  server: "equivalence_llm_judge",
  sources: [{ kind: "hf-parquet", repo: "cais/hle", config: "default", split: "test", gated: true }],
  async prepare(files) {
    const lines: string[] = [];
    for (const file of files[0]!) {
      for (const row of await readParquet(file.bytes, file.name)) {
        if (row.image) continue;
        lines.push(pyDumps({ question: row.question, expected_answer: row.answer, answer_type: row.answer_type, uuid: row.id }));
      }
    }
    return lines;
  },
};
