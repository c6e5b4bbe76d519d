/** Arena-Hard v0.1 (upstream benchmarks/arena_hard): 500 questions against gpt-4-0314's answers, judged by arena_judge's hard_prompt template. */
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { arenaLines, arenaUrl, baselineAnswers } from "./_arena-hard.ts";
import type { BenchmarkPreparer } from "./types.ts";

const RELEASE = "arena-hard-v0.1";

/** The arena_hard preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "arena_hard",
  server: "arena_judge",
  sources: [
    { kind: "url", url: arenaUrl(RELEASE, "question.jsonl"), file: "question.jsonl" },
    { kind: "url", url: arenaUrl(RELEASE, "model_answer/gpt-4-0314.jsonl"), file: "baseline_gpt-4-0314.jsonl" },
  ],
  prepare(files) {
    const baseline = baselineAnswers(files[1]![0]!);
    // v0.1's `category` is only the release name: dropped so arena_judge uses its default (hard_prompt).
    return arenaLines(files[0]![0]!, (row, where) => {
      const a = baseline.get(String(row.uid));
      if (a === undefined) throw new SourceFormatError(where, `question uid ${JSON.stringify(row.uid)} has no answer in baseline_gpt-4-0314.jsonl`);
      return a;
    }, true);
  },
};
