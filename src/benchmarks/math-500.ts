/**
 * MATH-500 (upstream benchmarks/math-500/prepare.py): every original field kept, plus
 * `question` (= `problem`), `answer` → `expected_answer`, `solution` → `reference_solution`;
 * written with `ensure_ascii=False` as upstream does.
 */
import { parseJsonlRows } from "../dataset/formats/jsonl.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** The MATH-500 preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "math-500",
  server: "math_with_judge",
  sources: [{ kind: "url", url: "https://github.com/openai/prm800k/raw/main/prm800k/math_splits/test.jsonl", file: "test.jsonl" }],
  prepare(files) {
    const file = files[0]![0]!;
    return parseJsonlRows(new TextDecoder().decode(file.bytes), file.name).map(({ row: entry, line }) => {
      const problem = entry.problem ?? entry.question;
      if (problem === undefined || problem === null) throw new SourceFormatError(`${file.name}:${line}`, "expected `problem` or `question` in a Math-500 row");
      for (const k of ["answer", "solution"]) if (!Object.hasOwn(entry, k)) throw new SourceFormatError(`${file.name}:${line}`, `the row has no '${k}' field`);
      // Key order as Python's dict ops leave it: question/problem set in place or appended, popped keys re-added last.
      const row: Record<string, unknown> = { ...entry };
      row.question = problem;
      row.problem = problem;
      const answer = row.answer;
      delete row.answer;
      row.expected_answer = answer;
      const solution = row.solution;
      delete row.solution;
      row.reference_solution = solution;
      return pyDumps(row, false);
    });
  },
};
