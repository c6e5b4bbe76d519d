/**
 * MMMLU (upstream benchmarks/mmmlu/prepare.py + mmmlu_utils.py): OpenAI's translated MMLU CSVs
 * (14 languages, English left out as upstream's default), read with pandas' default NA cells; the
 * question is simple-evals' multiple-choice template; each row carries the multilingual
 * `Answer:` extraction regexes for mcqa (grading_mode null). An NA option cell is written as the
 * string "nan" where upstream writes a bare NaN token.
 */
import { parsePandasCsv } from "./_pandas-csv.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { pyStr } from "../util/py-str-of.ts";
import { pyStrip } from "../util/py-str.ts";
import { NAMESPACE_URL, uuid5 } from "../util/uuid5.ts";
import type { BenchmarkPreparer } from "./types.ts";

const LANGUAGES = ["AR-XY", "BN-BD", "DE-DE", "ES-LA", "FR-FR", "HI-IN", "ID-ID", "IT-IT", "JA-JP", "KO-KR", "PT-BR", "ZH-CN", "SW-KE", "YO-NG"];

const SUBJECT_TO_CATEGORY: Record<string, string> = {
  "abstract_algebra": "stem",
  "anatomy": "other",
  "astronomy": "stem",
  "business_ethics": "other",
  "clinical_knowledge": "other",
  "college_biology": "stem",
  "college_chemistry": "stem",
  "college_computer_science": "stem",
  "college_mathematics": "stem",
  "college_medicine": "other",
  "college_physics": "stem",
  "computer_security": "stem",
  "conceptual_physics": "stem",
  "econometrics": "social_sciences",
  "electrical_engineering": "stem",
  "elementary_mathematics": "stem",
  "formal_logic": "humanities",
  "global_facts": "other",
  "high_school_biology": "stem",
  "high_school_chemistry": "stem",
  "high_school_computer_science": "stem",
  "high_school_european_history": "humanities",
  "high_school_geography": "social_sciences",
  "high_school_government_and_politics": "social_sciences",
  "high_school_macroeconomics": "social_sciences",
  "high_school_mathematics": "stem",
  "high_school_microeconomics": "social_sciences",
  "high_school_physics": "stem",
  "high_school_psychology": "social_sciences",
  "high_school_statistics": "stem",
  "high_school_us_history": "humanities",
  "high_school_world_history": "humanities",
  "human_aging": "other",
  "human_sexuality": "social_sciences",
  "international_law": "humanities",
  "jurisprudence": "humanities",
  "logical_fallacies": "humanities",
  "machine_learning": "stem",
  "management": "other",
  "marketing": "other",
  "medical_genetics": "other",
  "miscellaneous": "other",
  "moral_disputes": "humanities",
  "moral_scenarios": "humanities",
  "nutrition": "other",
  "philosophy": "humanities",
  "prehistory": "humanities",
  "professional_accounting": "other",
  "professional_law": "humanities",
  "professional_medicine": "other",
  "professional_psychology": "social_sciences",
  "public_relations": "social_sciences",
  "security_studies": "social_sciences",
  "sociology": "social_sciences",
  "us_foreign_policy": "social_sciences",
  "virology": "other",
  "world_religions": "humanities",
};

/** simple-evals' QUERY_TEMPLATE_MULTICHOICE (str.format fields Question, A–D). */
const TEMPLATE = "Answer the following multiple choice question. The last line of your response should be of the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD. Think step by step before answering.\n\n{Question}\n\nA) {A}\nB) {B}\nC) {C}\nD) {D}";

/** The per-language `Answer:` words (upstream MULTILINGUAL_ANSWER_REGEXES), each put into PATTERN. */
const ANSWER_WORDS: string[] = [
  "Answer\\s*:",
  "Answer\\s*:​​​​​​",
  "উত্তর\\s*:",
  "उत्तर\\s*:",
  "উত্তরঃ",
  "উত্তর\\s*:",
  "Antwort\\s*:",
  "답변\\s*:",
  "정답\\s*:",
  "답\\s*:",
  "答案\\s*：",
  "答案\\s*:",
  "答\\s*：",
  "答\\s*:",
  "答复\\s*：",
  "答曰\\s*：",
  "الإجابة:",
  "الجواب:",
  "إجابة:",
  "الإجابة النهائية:",
  "الإجابة الصحيحة:",
  "الإجابة الصحيحة هي:",
  "الإجابة هي:",
  "الجواب النهائي:",
  "Respuesta\\s*:",
  "Risposta\\s*:",
  "答え\\s*:",
  "答え\\s*：",
  "回答\\s*:",
  "回答\\s*：",
  "解答\\s*:",
  "Jawaban\\s*:",
  "Réponse\\s*:",
  "Resposta\\s*:",
  "Jibu\\s*:",
  "Idahun\\s*:",
  "Ìdáhùn\\s*:",
  "Idáhùn\\s*:",
  "Àmọ̀nà\\s*:",
  "Àdáhùn\\s*:",
  "Ànúgọ\\s*:",
  "Àṣàyàn\\s*:"
];
const PATTERN = "(?i){}[ \t]*([A-D]|[أ-د]|[অ]|[ব]|[ড]|[ঢ]|[Ａ]|[Ｂ]|[Ｃ]|[Ｄ])";
const LETTER = "\\b\\(?\\s*([A-D]|[أ-د]|[অ]|[ব]|[ড]|[ঢ]|[Ａ]|[Ｂ]|[Ｃ]|[Ｄ])\\s*\\)?\\.?\\b";
const OUTPUT_REGEX = [...ANSWER_WORDS.map((w) => PATTERN.replace("{}", w)), `[\\s\\S]*${LETTER}`];

/** `str(value)` of a pandas cell (NaN prints as nan). */
function cell(v: unknown): string {
  return typeof v === "number" && Number.isNaN(v) ? "nan" : pyStr(v);
}

/** The MMMLU preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "mmmlu",
  server: "mcqa",
  sources: LANGUAGES.map((l) => ({ kind: "url" as const, url: `https://openaipublic.blob.core.windows.net/simple-evals/mmlu_${l}.csv`, file: `mmlu_${l}.csv` })),
  prepare(files) {
    const lines: string[] = [];
    for (const [s, language] of LANGUAGES.entries()) {
      for (const file of files[s]!) {
        for (const entry of parsePandasCsv(new TextDecoder().decode(file.bytes), file.name, { indexCol: true })) {
          const expected = pyStrip(cell(entry.Answer)).toUpperCase();
          const subject = entry.Subject;
          const category = typeof subject === "string" && subject in SUBJECT_TO_CATEGORY ? SUBJECT_TO_CATEGORY[subject]! : "other";
          // One pass, as str.format: a value holding "{A}" stays as it is.
          const question = TEMPLATE.replace(/\{(Question|A|B|C|D)\}/g, (_, k: string) => cell(entry[k]));
          // json.dumps(sort_keys=True, ensure_ascii=False): answer, language, question.
          const seed = pyDumps({ answer: expected, language, question }, false);
          lines.push(
            pyDumps(
              {
                question,
                // Deviation: pandas' NaN cell would be written as a bare NaN token, which no JSON reader of
                // ours (or a strict one) accepts; the option is written as "nan", the text the prompt shows.
                options: ["A", "B", "C", "D"].map((k) => ({ [k]: cell(entry[k]) })),
                expected_answer: expected,
                template_metadata: { output_regex: OUTPUT_REGEX },
                subset_for_metrics: language,
                category,
                uuid: uuid5(NAMESPACE_URL, seed),
              },
              false,
            ),
          );
        }
      }
    }
    return lines;
  },
};
