/**
 * SECQUE (upstream benchmarks/secque/prepare.py): SEC-filing Q&A with the filing context in
 * `context`; uuid5 of `secque/<QID>`.
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { pyStr } from "../util/py-str-of.ts";
import { NAMESPACE_URL, uuid5 } from "../util/uuid5.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** The SECQUE preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "secque",
  server: "equivalence_llm_judge",
  sources: [{ kind: "hf-parquet", repo: "nogabenyoash/SecQue", config: "default", split: "train" }],
  async prepare(files) {
    const lines: string[] = [];
    for (const file of files[0]!) {
      for (const item of await readParquet(file.bytes, file.name)) {
        lines.push(
          pyDumps(
            {
              uuid: uuid5(NAMESPACE_URL, `secque/${pyStr(item.QID)}`),
              question: item.Question,
              expected_answer: item.ground_truth_answer,
              context: "context_markdown_with_headers" in item ? item.context_markdown_with_headers : "",
              qid: item.QID,
              question_type: "question_type" in item ? item.question_type : "unknown",
            },
            false,
          ),
        );
      }
    }
    return lines;
  },
};
