/**
 * MMLU-Redux 2.0 (upstream benchmarks/mmlu-redux/prepare.py): one Hub config per subject (test
 * split, in upstream's subject order); rows annotated `ok` keep their answer, `wrong_groundtruth`
 * rows take the annotators' correct letter, every other row is dropped. uuid5 of the sorted JSON
 * of subject, question and answer.
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { pyStr } from "../util/py-str-of.ts";
import { pyStrip } from "../util/py-str.ts";
import { NAMESPACE_URL, uuid5 } from "../util/uuid5.ts";
import { field } from "./_mcq.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** Subject → its metrics subset (upstream's SUBCATEGORIES, first entry), in upstream's order. */
const SUBJECTS: [subject: string, subset: string][] = [
  ["abstract_algebra", "math"],
  ["anatomy", "health"],
  ["astronomy", "physics"],
  ["business_ethics", "business"],
  ["clinical_knowledge", "health"],
  ["college_biology", "biology"],
  ["college_chemistry", "chemistry"],
  ["college_computer_science", "computer science"],
  ["college_mathematics", "math"],
  ["college_medicine", "health"],
  ["college_physics", "physics"],
  ["computer_security", "computer science"],
  ["conceptual_physics", "physics"],
  ["econometrics", "economics"],
  ["electrical_engineering", "engineering"],
  ["elementary_mathematics", "math"],
  ["formal_logic", "philosophy"],
  ["global_facts", "other"],
  ["high_school_biology", "biology"],
  ["high_school_chemistry", "chemistry"],
  ["high_school_computer_science", "computer science"],
  ["high_school_european_history", "history"],
  ["high_school_geography", "geography"],
  ["high_school_government_and_politics", "politics"],
  ["high_school_macroeconomics", "economics"],
  ["high_school_mathematics", "math"],
  ["high_school_microeconomics", "economics"],
  ["high_school_physics", "physics"],
  ["high_school_psychology", "psychology"],
  ["high_school_statistics", "math"],
  ["high_school_us_history", "history"],
  ["high_school_world_history", "history"],
  ["human_aging", "health"],
  ["human_sexuality", "culture"],
  ["international_law", "law"],
  ["jurisprudence", "law"],
  ["logical_fallacies", "philosophy"],
  ["machine_learning", "computer science"],
  ["management", "business"],
  ["marketing", "business"],
  ["medical_genetics", "health"],
  ["miscellaneous", "other"],
  ["moral_disputes", "philosophy"],
  ["moral_scenarios", "philosophy"],
  ["nutrition", "health"],
  ["philosophy", "philosophy"],
  ["prehistory", "history"],
  ["professional_accounting", "other"],
  ["professional_law", "law"],
  ["professional_medicine", "health"],
  ["professional_psychology", "psychology"],
  ["public_relations", "politics"],
  ["security_studies", "politics"],
  ["sociology", "culture"],
  ["us_foreign_policy", "politics"],
  ["virology", "health"],
  ["world_religions", "philosophy"],
];
const LETTERS = ["A", "B", "C", "D"];

function expectedAnswer(ex: Record<string, unknown>, where: string): string | null {
  if (ex.error_type === "ok") {
    const n = Number(ex.answer);
    if (!Number.isInteger(n) || n < 0) throw new SourceFormatError(where, `'answer' ${JSON.stringify(ex.answer)} is not an option index`);
    return String.fromCharCode(65 + n);
  }
  if (ex.error_type === "wrong_groundtruth" && typeof ex.correct_answer === "string" && LETTERS.includes(ex.correct_answer)) return ex.correct_answer;
  return null;
}

/** The MMLU-Redux preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "mmlu-redux",
  server: "mcqa",
  sources: SUBJECTS.map(([subject]) => ({ kind: "hf-parquet" as const, repo: "edinburgh-dawg/mmlu-redux-2.0", config: subject, split: "test" })),
  async prepare(files) {
    const lines: string[] = [];
    for (const [s, [subject, subset]] of SUBJECTS.entries()) {
      for (const file of files[s]!) {
        const rows = await readParquet(file.bytes, file.name);
        rows.forEach((ex, i) => {
          const where = `${file.name}: row ${i + 1}`;
          const answer = expectedAnswer(ex, where);
          if (answer === null) return;
          if (!Array.isArray(ex.choices) || ex.choices.length !== 4) throw new SourceFormatError(where, `expected 4 choices for ${subject}, found ${Array.isArray(ex.choices) ? ex.choices.length : "none"}`);
          const choices = ex.choices.map((c) => pyStr(c));
          const question = pyStrip(field(ex, "question", where));
          // json.dumps(sort_keys=True, ensure_ascii=False): answer, question, subject.
          const seed = pyDumps({ answer, question, subject }, false);
          lines.push(
            pyDumps(
              {
                question,
                problem: `${question}\n\n${choices.map((c, j) => `${LETTERS[j]}) ${c}`).join("\n")}`,
                options: choices.map((c, j) => ({ [LETTERS[j]!]: c })),
                expected_answer: answer,
                subset_for_metrics: subset,
                subcategory: subject,
                source: ex.source,
                uuid: uuid5(NAMESPACE_URL, seed),
              },
              false,
            ),
          );
        });
      }
    }
    return lines;
  },
};
