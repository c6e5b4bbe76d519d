/**
 * IFEval (upstream benchmarks/ifeval/prepare.py): the prompt pre-rendered as the user message,
 * and the instruction ids and kwargs under `verifier_metadata` with `grading_mode: "binary"`.
 */
import { parseJsonlRows } from "../dataset/formats/jsonl.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** The IFEval preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "ifeval",
  server: "instruction_following",
  sources: [
    {
      kind: "url",
      url: "https://raw.githubusercontent.com/google-research/google-research/master/instruction_following_eval/data/input_data.jsonl",
      file: "input_data.jsonl",
    },
  ],
  prepare(files) {
    const file = files[0]![0]!;
    return parseJsonlRows(new TextDecoder().decode(file.bytes), file.name).map(({ row: entry, line }, idx) => {
      for (const k of ["prompt", "instruction_id_list", "kwargs"]) if (!Object.hasOwn(entry, k)) throw new SourceFormatError(`${file.name}:${line}`, `the row has no '${k}' field`);
      return pyDumps({
        id: idx,
        responses_create_params: { input: [{ role: "user", content: entry.prompt }], tools: [], parallel_tool_calls: false },
        verifier_metadata: { prompt: entry.prompt, instruction_id_list: entry.instruction_id_list, kwargs: entry.kwargs, grading_mode: "binary" },
      });
    });
  },
};
