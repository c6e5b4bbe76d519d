/**
 * MMLU test split (upstream benchmarks/mmlu/prepare.py): the Berkeley `data.tar`, one header-less
 * CSV per subject (`data/test/<subject>_test.csv`: question, A–D, answer); rows with another
 * field count are skipped as upstream does; `subset_for_metrics` from the subject's category.
 */
import { parseCsvRecords } from "../dataset/formats/csv.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { readTar } from "../dataset/formats/tar.ts";
import { log } from "../log.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { NAMESPACE_URL, uuid5 } from "../util/uuid5.ts";
import type { BenchmarkPreparer } from "./types.ts";

// hendrycks/test categories.py: the first subcategory of each subject (facts of the data set).
const SUBCATEGORY: Record<string, string> = {
  abstract_algebra: "math",
  anatomy: "health",
  astronomy: "physics",
  business_ethics: "business",
  clinical_knowledge: "health",
  college_biology: "biology",
  college_chemistry: "chemistry",
  college_computer_science: "computer science",
  college_mathematics: "math",
  college_medicine: "health",
  college_physics: "physics",
  computer_security: "computer science",
  conceptual_physics: "physics",
  econometrics: "economics",
  electrical_engineering: "engineering",
  elementary_mathematics: "math",
  formal_logic: "philosophy",
  global_facts: "other",
  high_school_biology: "biology",
  high_school_chemistry: "chemistry",
  high_school_computer_science: "computer science",
  high_school_european_history: "history",
  high_school_geography: "geography",
  high_school_government_and_politics: "politics",
  high_school_macroeconomics: "economics",
  high_school_mathematics: "math",
  high_school_microeconomics: "economics",
  high_school_physics: "physics",
  high_school_psychology: "psychology",
  high_school_statistics: "math",
  high_school_us_history: "history",
  high_school_world_history: "history",
  human_aging: "health",
  human_sexuality: "culture",
  international_law: "law",
  jurisprudence: "law",
  logical_fallacies: "philosophy",
  machine_learning: "computer science",
  management: "business",
  marketing: "business",
  medical_genetics: "health",
  miscellaneous: "other",
  moral_disputes: "philosophy",
  moral_scenarios: "philosophy",
  nutrition: "health",
  philosophy: "philosophy",
  prehistory: "history",
  professional_accounting: "other",
  professional_law: "law",
  professional_medicine: "health",
  professional_psychology: "psychology",
  public_relations: "politics",
  security_studies: "politics",
  sociology: "culture",
  us_foreign_policy: "politics",
  virology: "health",
  world_religions: "philosophy",
};

const LETTERS = ["A", "B", "C", "D"];

/** The MMLU preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "mmlu",
  server: "mcqa",
  sources: [{ kind: "url", url: "https://people.eecs.berkeley.edu/~hendrycks/data.tar", file: "data.tar" }],
  prepare(files) {
    const tar = files[0]![0]!;
    // Subjects in archive order; a repeated subject keeps its first position (a Python dict's insertion order).
    const bySubject = new Map<string, string[][]>();
    for (const e of readTar(tar.bytes, tar.name)) {
      if (!e.path.startsWith("data/test/") || !e.path.endsWith(".csv")) continue;
      const base = e.path.slice(e.path.lastIndexOf("/") + 1);
      const subject = base.includes("_") ? base.slice(0, base.lastIndexOf("_")) : base;
      const rows: string[][] = [];
      for (const r of parseCsvRecords(new TextDecoder().decode(e.data), `${tar.name}:${e.path}`)) {
        if (r.length === 6) rows.push(r);
        else log.warn(`mmlu: skipping a row of ${base}: ${r.length} fields, not 6`);
      }
      bySubject.set(subject, rows);
    }
    const lines: string[] = [];
    for (const [subject, rows] of bySubject) {
      const category = SUBCATEGORY[subject];
      if (!category) throw new SourceFormatError(`${tar.name}: data/test/${subject}_test.csv`, `unknown MMLU subject '${subject}'`);
      rows.forEach((r, i) => {
        const expected = r[5]!.trim().toUpperCase();
        if (!LETTERS.includes(expected)) throw new SourceFormatError(`${tar.name}: data/test/${subject}_test.csv: record ${i + 1}`, `unexpected answer ${JSON.stringify(expected)}`);
        const question = r[0]!.trim();
        const optionsText = LETTERS.map((l, j) => `${l}) ${r[j + 1]}`).join("\n");
        // json.dumps(..., sort_keys=True, ensure_ascii=False): answer, question, subject.
        const seed = pyDumps({ answer: expected, question, subject }, false);
        lines.push(
          pyDumps(
            {
              question,
              problem: `${question}\n\n${optionsText}`,
              options: LETTERS.map((l, j) => ({ [l]: r[j + 1] })),
              expected_answer: expected,
              subset_for_metrics: category,
              subject,
              uuid: uuid5(NAMESPACE_URL, seed),
            },
            false,
          ),
        );
      });
    }
    return lines;
  },
};
