/**
 * HumanEval-Infilling (upstream benchmarks/human_eval_infilling, Skills' clean_data): rows
 * `{task_id, prefix, suffix, canonical_solution, language, split, comment_delimiter, verifier_metadata}`
 * for the random_span split (the config's jsonl_fpath), single_line and multi_line written beside it;
 * every split's problem file (with its tests) is left in `<output root>/human_eval_infilling/` for the
 * code_fim server, which upstream downloads at start-up instead.
 */
import { gunzip } from "../dataset/formats/gzip.ts";
import { parseJsonlRows } from "../dataset/formats/jsonl.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { FIM_DATA_DIR, FIM_SPLIT_FILES } from "../components/resources/code-fim.ts";
import type { BenchmarkPreparer, PreparedOutput } from "./types.ts";

const SPLITS = Object.keys(FIM_SPLIT_FILES) as (keyof typeof FIM_SPLIT_FILES)[];
const WRITTEN = ["single_line", "multi_line", "random_span"] as const;

function rowsOf(split: string, text: string, name: string): string[] {
  return parseJsonlRows(text, name).map(({ row, line }) => {
    for (const k of ["task_id", "prompt", "suffix", "canonical_solution"]) {
      if (typeof row[k] !== "string") throw new SourceFormatError(`${name}:${line}`, `the row's '${k}' is missing or not a string`);
    }
    return pyDumps({ task_id: row.task_id, prefix: row.prompt, suffix: row.suffix, canonical_solution: row.canonical_solution, language: "python", split, comment_delimiter: "#", verifier_metadata: { task_id: row.task_id } });
  });
}

/** The human_eval_infilling preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "human_eval_infilling",
  server: "code_fim",
  sources: SPLITS.map((s) => ({ kind: "url", url: `https://github.com/openai/human-eval-infilling/raw/master/data/${FIM_SPLIT_FILES[s]}.jsonl.gz`, file: `${FIM_SPLIT_FILES[s]}.jsonl.gz` })),
  prepare(files): PreparedOutput {
    const texts = new Map(SPLITS.map((s, i) => [s, new TextDecoder().decode(gunzip(files[i]![0]!.bytes, files[i]![0]!.name))]));
    const extra: PreparedOutput["extra"] = SPLITS.map((s) => ({ path: `${FIM_DATA_DIR}/${FIM_SPLIT_FILES[s]}.jsonl`, bytes: new TextEncoder().encode(texts.get(s)!) }));
    let lines: string[] = [];
    for (const s of WRITTEN) {
      const out = rowsOf(s, texts.get(s)!, `${FIM_SPLIT_FILES[s]}.jsonl.gz`);
      if (s === "random_span") lines = out;
      else extra.push({ path: `benchmarks/human_eval_infilling/data/${s}.jsonl`, bytes: new TextEncoder().encode(out.map((l) => `${l}\n`).join("")) });
    }
    return { lines, extra };
  },
};
