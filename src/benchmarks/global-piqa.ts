/**
 * Global-PIQA (upstream benchmarks/global-piqa/prepare.py): every language config the Hub lists for
 * `mrlbenchmarks/global-piqa-nonparallel` (`get_dataset_config_names`, the card's order), split
 * `test`; two options A/B from `solution0`/`solution1`, the label digit as a letter, four
 * per-row `output_regex`es (mcqa, grading_mode null), and a uuid5 of the sorted, non-ASCII JSON of
 * the row. Written with `ensure_ascii=False`.
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { pyStrip } from "../util/py-str.ts";
import { NAMESPACE_URL, uuid5 } from "../util/uuid5.ts";
import { field } from "./_mcq.ts";
import { byConfig } from "./_hub-configs.ts";
import type { BenchmarkPreparer } from "./types.ts";

const SPLIT = "test";

/** Upstream's EXTRACT_REGEX (Python `re` patterns; mcqa takes the last match of any). */
const EXTRACT_REGEX = [
  String.raw`(?i)[Tt]he (?:[Bb]est [Aa]nswer|[Ff]inal [Aa]nswer|[Aa]nswer)[^A-B]*([A-B])`,
  String.raw`(?i)[Aa]nswer\s*:[^A-B]*([A-B])`,
  String.raw`(?i)\\boxed\{([A-B])\}`,
  String.raw`[\s\S]*\b\(?\s*([A-B])\s*\)?\.?\b`,
];

/** `int(label)` as Python reads an int, a bool or a decimal string; anything else is an error. */
function labelDigit(label: unknown, where: string): number {
  if (typeof label === "number" && Number.isInteger(label)) return label;
  if (typeof label === "boolean") return label ? 1 : 0;
  if (typeof label === "string" && /^\s*[+-]?\d+\s*$/.test(label)) return Number.parseInt(label, 10);
  throw new SourceFormatError(where, `the row's 'label' is not an integer (${JSON.stringify(label)})`);
}

/** One Hub row as upstream's `_to_row` writes it. */
function toRow(entry: Record<string, unknown>, language: string, where: string): string {
  const question = pyStrip(field(entry, "prompt", where));
  const a = pyStrip(field(entry, "solution0", where));
  const b = pyStrip(field(entry, "solution1", where));
  if (!("label" in entry)) throw new SourceFormatError(where, "the row has no 'label'");
  const digit = labelDigit(entry.label, where);
  // json.dumps(sort_keys=True, ensure_ascii=False): keys already in sorted order.
  const seed = pyDumps({ label: entry.label, language, prompt: question, solution0: a, solution1: b }, false);
  return pyDumps(
    {
      question,
      problem: question,
      A: a,
      B: b,
      options: [{ A: a }, { B: b }],
      // chr(ord("A") + digit): upstream writes whatever character that is.
      expected_answer: String.fromCodePoint(65 + digit),
      template_metadata: { output_regex: EXTRACT_REGEX },
      subset_for_metrics: language,
      target_language: language,
      uuid: uuid5(NAMESPACE_URL, seed),
    },
    false,
  );
}

/** The Global-PIQA preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "global-piqa",
  server: "mcqa",
  sources: [{ kind: "hf-parquet-configs", repo: "mrlbenchmarks/global-piqa-nonparallel", split: SPLIT }],
  async prepare(files) {
    const lines: string[] = [];
    for (const [language, parts] of byConfig(files[0]!, SPLIT, "global-piqa")) {
      for (const file of parts) {
        const rows = await readParquet(file.bytes, file.name);
        rows.forEach((entry, i) => lines.push(toRow(entry, language, `${file.name}: row ${i + 1}`)));
      }
    }
    return lines;
  },
};
