/**
 * MMLU-ProX (upstream benchmarks/mmlu_prox/prepare.py): 29 languages of `li-lab/MMLU-ProX` (split
 * `test`, in upstream's order), each row's question built from lm-evaluation-harness' pinned
 * `lang_libs.py` (read as Python literals, checked against upstream's sha256), ten options A–J, a
 * per-row language-specific `template_metadata.output_regex` (mcqa, grading_mode null), and a uuid5 of
 * the sorted ASCII JSON of question, options and language.
 */
import { createHash } from "node:crypto";
import { readParquet } from "../dataset/formats/parquet.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyFormat } from "../util/py-format.ts";
import { readPyAssignments } from "../util/py-literal.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { pyStr } from "../util/py-str-of.ts";
import { pyStrip } from "../util/py-str.ts";
import { NAMESPACE_URL, uuid5 } from "../util/uuid5.ts";
import { optionLetters } from "./_mcq.ts";
import type { BenchmarkPreparer, SourceFile } from "./types.ts";

const LANGUAGES = ["af", "ar", "bn", "cs", "de", "en", "es", "fr", "hi", "hu", "id", "it", "ja", "ko", "mr", "ne", "pt", "ru", "sr", "sw", "te", "th", "uk", "ur", "vi", "wo", "yo", "zh", "zu"];
const LANG_LIBS_COMMIT = "f4d4b3de3ee6741a7151a9fe74945ee515262f4c";
const LANG_LIBS_SHA256 = "582a892b4e8419c16384552b369d7ba828418c57768ccdd82d61172116b3da55";
const LETTERS = optionLetters(10);

type LangLibs = Record<string, string[]>;
type LangSubjects = Record<string, Record<string, string>>;

/** LANG_LIBS and LANG_SUBJECTS of the pinned lang_libs.py, or an error naming the file. */
function readLangLibs(file: SourceFile): { libs: LangLibs; subjects: LangSubjects } {
  const sha = createHash("sha256").update(file.bytes).digest("hex");
  if (sha !== LANG_LIBS_SHA256) throw new SourceFormatError(file.name, `lang_libs.py checksum mismatch: expected ${LANG_LIBS_SHA256}, got ${sha}; delete it from the data folder and prepare again`);
  let module: Record<string, unknown>;
  try {
    module = readPyAssignments(new TextDecoder().decode(file.bytes));
  } catch (e) {
    throw new SourceFormatError(file.name, (e as Error).message);
  }
  const { LANG_LIBS: libs, LANG_SUBJECTS: subjects } = module;
  if (typeof libs !== "object" || libs === null || typeof subjects !== "object" || subjects === null) throw new SourceFormatError(file.name, "LANG_LIBS or LANG_SUBJECTS not found in lang_libs.py");
  return { libs: libs as LangLibs, subjects: subjects as LangSubjects };
}

/** `template.format(arg)` for a template holding exactly one positional `{}` and no other braces. */
function formatOne(template: string, arg: string, where: string): string {
  const parts = template.split("{}");
  if (parts.length !== 2 || /[{}]/.test(parts.join(""))) throw new SourceFormatError(where, `answer format ${JSON.stringify(template)} is not a single '{}' template`);
  return parts[0] + arg + parts[1];
}

/** `s.lstrip(chars)`. */
function lstrip(s: string, chars: string): string {
  let a = 0;
  while (a < s.length && chars.includes(s[a]!)) a++;
  return s.slice(a);
}

/** One Hub row as upstream's `_format_entry` writes it. */
function formatEntry(entry: Record<string, unknown>, language: string, libs: LangLibs, subjects: LangSubjects, where: string): string {
  if (typeof entry.category !== "string") throw new SourceFormatError(where, "the row's 'category' is not a string");
  const category = entry.category.replaceAll(" ", "_");
  const choices = LETTERS.map((_, i) => entry[`option_${i}`]);
  const lib = libs[language];
  const subject = subjects[language]?.[category];
  if (!lib || lib.length < 6) throw new SourceFormatError(where, `lang_libs.py has no LANG_LIBS entry for '${language}'`);
  if (subject === undefined) throw new SourceFormatError(where, `lang_libs.py has no subject for category '${category}' in '${language}'`);
  const description = `${pyFormat(lib[3]!, { subject, ans_suffix: formatOne(lib[5]!, "X", where) })}\n`;
  const optionsText = LETTERS.map((l, i) => `${l}. ${pyStr(choices[i])}`).join("\n");
  const question = `${description}${lib[0]}\n${pyStr(entry.question)}\n${lib[1]}\n${optionsText}\n`;
  let regex = lib[5]!.replaceAll("({})", "\\(?([ABCDEFGHIJ])\\)?");
  if (language === "en") {
    // Upstream's `lstrip("the")` strips the characters t, h, e (not the word), then whitespace.
    regex = pyStrip(lstrip(regex, "the")).replaceAll("\\(", "\\**\\(").replaceAll("\\)?", "\\)?\\**");
  }
  // json.dumps(sort_keys=True) (ASCII): language, options, question.
  const seed = pyDumps({ language, options: choices, question: entry.question });
  return pyDumps({
    question,
    options: LETTERS.map((l, i) => ({ [l]: choices[i] })),
    expected_answer: entry.answer,
    template_metadata: { output_regex: regex },
    language,
    category,
    uuid: uuid5(NAMESPACE_URL, seed),
  });
}

/** The MMLU-ProX preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "mmlu_prox",
  server: "mcqa",
  sources: [
    { kind: "url", url: `https://raw.githubusercontent.com/EleutherAI/lm-evaluation-harness/${LANG_LIBS_COMMIT}/lm_eval/tasks/mmlu_prox/lang_libs.py`, file: "lang_libs.py" },
    ...LANGUAGES.map((l) => ({ kind: "hf-parquet" as const, repo: "li-lab/MMLU-ProX", config: l, split: "test" })),
  ],
  async prepare(files) {
    const { libs, subjects } = readLangLibs(files[0]![0]!);
    const lines: string[] = [];
    for (const [s, language] of LANGUAGES.entries()) {
      for (const file of files[s + 1]!) {
        const rows = await readParquet(file.bytes, file.name);
        rows.forEach((entry, i) => lines.push(formatEntry(entry, language, libs, subjects, `${file.name}: row ${i + 1}`)));
      }
    }
    return lines;
  },
};
