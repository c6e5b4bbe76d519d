/**
 * LiveCodeBench-X (upstream benchmarks/livecodebench-x, Skills' multilingual LCB): the translated
 * statements of `nvidia/Nemotron-Multilinugual-Eval-LCB` (configs v5/v6, one split per language)
 * joined on `task_id` with the canonical tests of `code_generation_lite` release_v5/release_v6.
 * Defaults only (all four languages, both versions, target-language instruction): upstream's
 * `--languages/--versions/--prompt_language` flags are not preparer arguments here.
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { lcbExamples, releaseFiles, releaseSources, unitTestsOf } from "./_livecodebench.ts";
import type { BenchmarkPreparer, SourceSpec } from "./types.ts";

const MULTILINGUAL_REPO = "nvidia/Nemotron-Multilinugual-Eval-LCB";
const LANGUAGES = ["de", "es", "fr", "ja"] as const;
const VERSIONS = [5, 6] as const;

// Skills' livecodebench_x_utils.py instruction prefixes (data the prompt depends on).
const INSTRUCTIONS: Record<(typeof LANGUAGES)[number], string> = {
  de: "Hier ist ein Problem, für das Sie ausführbaren Code in der Programmiersprache Python generieren müssen.",
  es: "Aquí tienes un problema para el cual necesitas generar un código ejecutable en el lenguaje de programación Python.",
  fr: "Voici un problème pour lequel vous devez générer du code exécutable en langage de programmation Python.",
  ja: "以下は、Pythonプログラミング言語で実行可能なコードを生成する必要がある問題です。",
};

const multilingual: SourceSpec[] = VERSIONS.flatMap((v) => LANGUAGES.map((lang): SourceSpec => ({ kind: "hf-parquet", repo: MULTILINGUAL_REPO, config: `v${v}`, split: lang })));

/** The livecodebench-x preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "livecodebench-x",
  server: "code_gen",
  // release_v6's files include release_v5's; each version's index reads its own prefix of them.
  sources: [...releaseSources(6), ...multilingual],
  async prepare(files) {
    const lines: string[] = [];
    const lcbCount = releaseFiles(6).length;
    let m = lcbCount;
    for (const version of VERSIONS) {
      const index = new Map<string, ReturnType<typeof unitTestsOf>>();
      for (const ex of lcbExamples(files.slice(0, releaseFiles(version).length))) {
        const id = ex.row.question_id;
        if (id === undefined || id === null || id === "") continue;
        index.set(String(id), unitTestsOf(ex));
      }
      for (const lang of LANGUAGES) {
        for (const file of files[m++]!) {
          const rows = await readParquet(file.bytes, file.name);
          rows.forEach((entry, i) => {
            const where = `${file.name}: row ${i + 1}`;
            const taskId = entry.task_id;
            if (typeof taskId !== "string") throw new SourceFormatError(where, "the row's 'task_id' is missing or not a string");
            const canonical = index.get(taskId);
            if (!canonical) return; // upstream drops rows without a canonical match
            if (typeof entry.question !== "string") throw new SourceFormatError(where, "the row's 'question' is missing or not a string");
            lines.push(
              pyDumps(
                {
                  question: `${INSTRUCTIONS[lang]}\n\n${entry.question}`,
                  problem: entry.question,
                  task_id: taskId,
                  release_version: entry.release_version,
                  subset_for_metrics: lang,
                  target_language: lang,
                  verifier_metadata: { unit_tests: canonical.unit_tests, difficulty: canonical.difficulty },
                },
                false,
              ),
            );
          });
        }
      }
    }
    return lines;
  },
};
