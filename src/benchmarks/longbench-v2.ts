/**
 * LongBench-v2 (upstream benchmarks/longbench_v2/prepare.py, default variant): `THUDM/LongBench-v2`'s
 * `train` split (the whole eval set), every field kept under upstream's names, `context_tokens` counted
 * with tiktoken's `o200k_base` (special-token text counted as ordinary text, as `disallowed_special=()`),
 * no length filter, plus `options` and `grading_mode: strict_single_letter_boxed` for mcqa.
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { field } from "./_mcq.ts";
import { o200kCounter } from "./_o200k.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** The LongBench-v2 preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "longbench_v2",
  server: "mcqa",
  sources: [{ kind: "hf-parquet", repo: "THUDM/LongBench-v2", config: "default", split: "train" }],
  async prepare(files) {
    const count = await o200kCounter();
    const lines: string[] = [];
    for (const file of files[0]!) {
      const rows = await readParquet(file.bytes, file.name);
      rows.forEach((e, i) => {
        const where = `${file.name}: row ${i + 1}`;
        const context = field(e, "context", where);
        const choices = ["A", "B", "C", "D"].map((l) => e[`choice_${l}`]);
        lines.push(
          pyDumps(
            {
              index: e._id,
              context,
              question: e.question,
              choice_A: choices[0],
              choice_B: choices[1],
              choice_C: choices[2],
              choice_D: choices[3],
              expected_answer: e.answer,
              domain: e.domain,
              sub_domain: e.sub_domain,
              difficulty: e.difficulty,
              length: e.length,
              context_tokens: count(context),
              options: ["A", "B", "C", "D"].map((l, j) => ({ [l]: choices[j] })),
              grading_mode: "strict_single_letter_boxed",
            },
            false,
          ),
        );
      });
    }
    return lines;
  },
};
