/**
 * Hendrycks MATH test split, 5000 problems (upstream benchmarks/hendrycks_math/prepare.py, NeMo
 * Skills' `save_data_from_qwen("math", "test")`): Qwen2.5-Math's copy, every field kept,
 * `answer` → `expected_answer`, `problem` (or `question`) → `question`, in Python's dict order
 * (popped keys re-added last); `json.dumps` with ASCII escapes.
 */
import { parseJsonlRows } from "../dataset/formats/jsonl.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** Move `from` to the end of `row` under the name `to` (Python's `row[to] = row.pop(from)`). */
function popInto(row: Record<string, unknown>, from: string, to: string): void {
  const v = row[from];
  delete row[from];
  delete row[to];
  row[to] = v;
}

/** The hendrycks_math preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "hendrycks_math",
  server: "math_with_judge",
  sources: [{ kind: "url", url: "https://raw.githubusercontent.com/QwenLM/Qwen2.5-Math/refs/heads/main/evaluation/data/math/test.jsonl", file: "test.jsonl" }],
  prepare(files) {
    const file = files[0]![0]!;
    return parseJsonlRows(new TextDecoder().decode(file.bytes), file.name).map(({ row: entry, line }) => {
      const row: Record<string, unknown> = { ...entry };
      if (Object.hasOwn(row, "answer")) popInto(row, "answer", "expected_answer");
      if (!Object.hasOwn(row, "problem")) {
        if (!Object.hasOwn(row, "question")) throw new SourceFormatError(`${file.name}:${line}`, "expected `problem` or `question` in a MATH row");
        popInto(row, "question", "problem");
      }
      popInto(row, "problem", "question");
      return pyDumps(row);
    });
  },
};
