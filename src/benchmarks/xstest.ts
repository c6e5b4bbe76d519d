/**
 * XSTest (upstream benchmarks/xstest/prepare.py): the prompts CSV from paul-rottger/xstest, each
 * prompt as the user message, `label` (safe/unsafe) and `type` in verifier_metadata.
 */
import { parseCsvObjects } from "../dataset/formats/csv.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** The XSTest preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "xstest",
  server: "xstest",
  sources: [{ kind: "url", url: "https://raw.githubusercontent.com/paul-rottger/xstest/refs/heads/main/xstest_prompts.csv", file: "xstest_prompts.csv" }],
  prepare(files) {
    const lines: string[] = [];
    for (const file of files[0]!) {
      parseCsvObjects(new TextDecoder().decode(file.bytes), file.name).forEach((row, i) => {
        for (const k of ["prompt", "label", "type"]) if (!(k in row)) throw new SourceFormatError(`${file.name}:${i + 2}`, `the CSV has no '${k}' column`);
        lines.push(pyDumps({ responses_create_params: { input: [{ role: "user", content: row.prompt }] }, verifier_metadata: { label: row.label, type: row.type } }));
      });
    }
    return lines;
  },
};
