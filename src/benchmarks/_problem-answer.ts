/**
 * The preparer shape of aime24/25/26, hmmt_feb25/nov25 and apex_shortlist upstream: the Hub
 * dataset's `train` split, each row written as `{"question": problem, "expected_answer": str(answer)}`
 * with Python's default `json.dumps` (ASCII escapes).
 */
import { pyDumps } from "../util/py-json-dumps.ts";
import { readSplit, strField, textField } from "./_hub-math.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** A math_with_judge benchmark built from `repo`'s train split. */
export function problemAnswerBenchmark(name: string, repo: string): BenchmarkPreparer {
  return {
    name,
    server: "math_with_judge",
    sources: [{ kind: "hf-parquet", repo, config: "default", split: "train" }],
    async prepare(files) {
      const rows = await readSplit(files[0]!);
      return rows.map((t) => pyDumps({ question: textField(t, "problem"), expected_answer: strField(t, "answer") }));
    },
  };
}
