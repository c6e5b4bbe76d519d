/**
 * SimpleQA-Verified (upstream benchmarks/simpleqa/prepare.py, after NeMo Skills'
 * format_entry_verified): `id` = the row's `original_index` (a `simpleqa_<n>` tag when the column
 * is absent), the whole source row kept as `metadata`, `question`/`expected_answer` for the server.
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** The SimpleQA preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "simpleqa",
  server: "simpleqa",
  sources: [{ kind: "hf-parquet", repo: "codelion/SimpleQA-Verified", config: "default", split: "train" }],
  async prepare(files) {
    const lines: string[] = [];
    let idx = 0;
    for (const file of files[0]!) {
      for (const entry of await readParquet(file.bytes, file.name)) {
        const id = "original_index" in entry ? entry.original_index : `simpleqa_${idx}`;
        lines.push(pyDumps({ id, metadata: { ...entry }, question: entry.problem, expected_answer: entry.answer }, false));
        idx++;
      }
    }
    return lines;
  },
};
