/**
 * m-ArenaHard v2.0 (upstream benchmarks/m_arena_hard_v2/prepare.py): every language config of
 * `CohereLabs/m-ArenaHard-v2.0`, split `test`, each row keeping its category (hard_prompt or
 * creative_writing) and its subcategory when set; `baseline_answer` "" as upstream's prepare path
 * (no baseline file). Written with `ensure_ascii=False`.
 */
import { pyDumps } from "../util/py-json-dumps.ts";
import { byConfig, column, hubRows } from "./_hub-configs.ts";
import type { BenchmarkPreparer } from "./types.ts";

const SPLIT = "test";

/** The m_arena_hard_v2 preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "m_arena_hard_v2",
  server: "arena_judge",
  sources: [{ kind: "hf-parquet-configs", repo: "CohereLabs/m-ArenaHard-v2.0", split: SPLIT }],
  async prepare(files) {
    const lines: string[] = [];
    for (const [language, parts] of byConfig(files[0]!, SPLIT, "m_arena_hard_v2")) {
      for (const r of await hubRows(parts)) {
        const entry: Record<string, unknown> = {
          uid: column(r, "question_id"),
          question: column(r, "prompt"),
          baseline_answer: "",
          category: column(r, "category"),
          language,
          subset_for_metrics: language,
        };
        // `row.get("subcategory")` and only when truthy.
        if (r.row.subcategory) entry.subcategory = r.row.subcategory;
        lines.push(pyDumps(entry, false));
      }
    }
    return lines;
  },
};
