/**
 * GPQA-X (upstream benchmarks/gpqa-x/prepare.py, after NeMo Skills' gpqa-x): one Hub split per
 * target language (de, es, fr, ja); the question is the language's boxed-answer instruction,
 * problem and options text; each row carries the `\boxed{[A-D]}` extraction regex for mcqa.
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { pyStr } from "../util/py-str-of.ts";
import { NAMESPACE_URL, uuid5 } from "../util/uuid5.ts";
import type { BenchmarkPreparer } from "./types.ts";

const LANGUAGES = ["de", "es", "fr", "ja"];
const EXTRACT_REGEX = "\\\\boxed\\{([A-D])\\}";
const INSTRUCTIONS: Record<string, string> = {
  de: "Lösen Sie das folgende Problem. Stellen Sie sicher, dass Sie die Antwort (und nur die Antwort) in \\boxed{} setzen.",
  es: "Resuelve el siguiente problema. Asegúrate de poner la respuesta (y solo la respuesta) dentro de \\boxed{}.",
  fr: "Résolvez le problème suivant. Assurez-vous de mettre la réponse (et seulement la réponse) dans \\boxed{}.",
  ja: "以下の問題を解いてください。答え（答えのみ）を\\boxed{}の中に入れてください。",
};

/** The GPQA-X preparer (target-language instructions, upstream's default). */
export const benchmark: BenchmarkPreparer = {
  name: "gpqa-x",
  server: "mcqa",
  sources: LANGUAGES.map((lang) => ({ kind: "hf-parquet" as const, repo: "nvidia/Nemotron-Multilinugual-Eval-GPQA", config: "default", split: lang })),
  async prepare(files) {
    const lines: string[] = [];
    for (const [s, lang] of LANGUAGES.entries()) {
      for (const file of files[s]!) {
        for (const e of await readParquet(file.bytes, file.name)) {
          // json.dumps(sort_keys=True, ensure_ascii=False): language, options, problem.
          const seed = pyDumps({ language: lang, options: e.options, problem: e.problem }, false);
          lines.push(
            pyDumps(
              {
                question: `${INSTRUCTIONS[lang]}\n\n${pyStr(e.problem)}\n\n${pyStr(e.options)}`,
                problem: e.problem,
                expected_answer: pyStr(e.expected_answer),
                options: [{ A: e.A }, { B: e.B }, { C: e.C }, { D: e.D }],
                template_metadata: { output_regex: EXTRACT_REGEX },
                A: e.A,
                B: e.B,
                C: e.C,
                D: e.D,
                subset_for_metrics: lang,
                target_language: lang,
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
