/**
 * m-ArenaHard (upstream benchmarks/m_arena_hard/prepare.py): every language config the Hub lists for
 * `CohereLabs/m-ArenaHard`, split `test`, one row per (language, question) routed to arena_judge's
 * hard_prompt template (the Hub category kept as `original_category`). The Hub ships no baseline
 * answers: as upstream's `gym eval prepare` path, `baseline_answer` is "" (a full run joins a baseline
 * JSONL with upstream's script). Written with `ensure_ascii=False`.
 */
import { pyDumps } from "../util/py-json-dumps.ts";
import { byConfig, column, hubRows } from "./_hub-configs.ts";
import type { BenchmarkPreparer } from "./types.ts";

const SPLIT = "test";

/** The m_arena_hard preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "m_arena_hard",
  server: "arena_judge",
  sources: [{ kind: "hf-parquet-configs", repo: "CohereLabs/m-ArenaHard", split: SPLIT }],
  async prepare(files) {
    const lines: string[] = [];
    for (const [language, parts] of byConfig(files[0]!, SPLIT, "m_arena_hard")) {
      for (const r of await hubRows(parts)) {
        lines.push(pyDumps({
          uid: column(r, "question_id"),
          question: column(r, "prompt"),
          language,
          category: "hard_prompt",
          original_category: column(r, "category"),
          cluster: column(r, "cluster"),
          subset_for_metrics: language,
          baseline_answer: "",
        }, false));
      }
    }
    return lines;
  },
};
