/**
 * The multilingual AIME preparers (upstream benchmarks/aime24-x, aime25-x, ported from NeMo Skills):
 * one Hub split per language, the target-language instruction baked into `question` (the prompt
 * config is a passthrough), the language kept as `subset_for_metrics` and `target_language`;
 * written with `ensure_ascii=False`.
 */
import { pyDumps } from "../util/py-json-dumps.ts";
import { readSplit, strField, textField } from "./_hub-math.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** Languages in upstream's order (each is a split of the source dataset). */
export const AIME_X_LANGUAGES = ["de", "es", "fr", "ja"] as const;

/** The instruction put before each problem, per language (upstream's aime2x_x_utils.py; facts of the data set). */
export const AIME_X_INSTRUCTIONS: Record<(typeof AIME_X_LANGUAGES)[number], string> = {
  de: "Lösen Sie das folgende Mathematikproblem. Stellen Sie sicher, dass Sie die Antwort (und nur die Antwort) in \\boxed{} setzen.",
  es: "Resuelve el siguiente problema matemático. Asegúrate de poner la respuesta (y solo la respuesta) dentro de \\boxed{}.",
  fr: "Résolvez le problème mathématique suivant. Assurez-vous de mettre la réponse (et seulement la réponse) dans \\boxed{}.",
  ja: "以下の数学問題を解いてください。答え（答えのみ）を\\boxed{}の中に入れてください。",
};

/** A multilingual AIME benchmark from `repo` (splits named by language). */
export function aimeXBenchmark(name: string, repo: string): BenchmarkPreparer {
  return {
    name,
    server: "math_with_judge",
    sources: AIME_X_LANGUAGES.map((lang) => ({ kind: "hf-parquet" as const, repo, config: "default", split: lang })),
    async prepare(files) {
      const lines: string[] = [];
      for (const [i, lang] of AIME_X_LANGUAGES.entries()) {
        for (const t of await readSplit(files[i]!)) {
          const problem = textField(t, "problem");
          const row = {
            question: `${AIME_X_INSTRUCTIONS[lang]}\n\n${problem}`,
            problem,
            expected_answer: strField(t, "expected_answer"),
            subset_for_metrics: lang,
            target_language: lang,
          };
          lines.push(pyDumps(row, false));
        }
      }
      return lines;
    },
  };
}
