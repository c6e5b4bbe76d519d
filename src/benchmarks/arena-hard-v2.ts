/**
 * Arena-Hard v2.0 (upstream benchmarks/arena_hard_v2): questions of two categories, each judged against
 * its own baseline — hard_prompt against o3-mini-2025-01-31, creative_writing against gemini-2.0-flash-001.
 */
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { arenaLines, arenaUrl, baselineAnswers } from "./_arena-hard.ts";
import type { BenchmarkPreparer } from "./types.ts";

const RELEASE = "arena-hard-v2.0";
const CATEGORIES = ["hard_prompt", "creative_writing"] as const;

/** The arena_hard_v2 preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "arena_hard_v2",
  server: "arena_judge",
  sources: [
    { kind: "url", url: arenaUrl(RELEASE, "question.jsonl"), file: "question.jsonl" },
    { kind: "url", url: arenaUrl(RELEASE, "model_answer/o3-mini-2025-01-31.jsonl"), file: "baseline_hard_prompt.jsonl" },
    { kind: "url", url: arenaUrl(RELEASE, "model_answer/gemini-2.0-flash-001.jsonl"), file: "baseline_creative_writing.jsonl" },
  ],
  prepare(files) {
    const byCategory = new Map(CATEGORIES.map((c, i) => [c as string, baselineAnswers(files[i + 1]![0]!)]));
    return arenaLines(files[0]![0]!, (row, where) => {
      const answers = byCategory.get(String(row.category));
      const a = answers?.get(String(row.uid));
      if (a === undefined) throw new SourceFormatError(where, `no ${JSON.stringify(row.category)} baseline answer for question uid ${JSON.stringify(row.uid)}`);
      return a;
    }, false);
  },
};
