/**
 * AA-LCR (upstream benchmarks/aalcr/prepare.py): the `ArtificialAnalysis/AA-LCR` test split (the
 * Hub's parquet conversion) and its extracted-text archive; each question's documents, looked up
 * under the archive names Python's `zipfile` reads (CP437 mojibake, matched through upstream's
 * `_dirty_filename` replacements), are inlined into one user message; `input_tokens_band` buckets
 * the row's `input_tokens`. Written with json.dumps' ASCII default.
 */
import { readParquet } from "../dataset/formats/parquet.ts";
import { readZip } from "../dataset/formats/zip.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { pyStr } from "../util/py-str-of.ts";
import { decodeUtf8Ignore } from "../util/py-utf8-ignore.ts";
import { field } from "./_mcq.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** Clean name fragments and the CP437 mojibake the archive's names carry instead (upstream's table, in its order). */
const ARTIFACTS: [clean: string, artifact: string][] = [
  ["'", "ΓÇÖ"],
  ["\u2019", "ΓÇÖ"],
  ["\u2018", "ΓÇÖ"],
  ["—", "ΓÇö"],
  ["–", "ΓÇô"],
  ["ş", "s╠º"],
];

/** A document path as the archive names it (upstream `_dirty_filename`). */
export function dirtyFilename(name: string): string {
  let out = name;
  for (const [clean, artifact] of ARTIFACTS) out = out.replaceAll(clean, artifact);
  return out;
}

/** Upstream's token bands. */
function band(tokens: number): string {
  if (tokens < 80000) return "<80k";
  if (tokens < 100000) return "80k-100k";
  if (tokens < 110000) return "100k-110k";
  if (tokens < 128000) return "110k-128k";
  return "128k+";
}

/** The AA-LCR preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "aalcr",
  server: "aalcr",
  sources: [
    { kind: "hf-parquet", repo: "ArtificialAnalysis/AA-LCR", config: "default", split: "test" },
    { kind: "hf-file", repo: "ArtificialAnalysis/AA-LCR", path: "extracted_text/AA-LCR_extracted-text.zip" },
  ],
  async prepare(files) {
    const zip = files[1]![0]!;
    const docs = new Map<string, string>();
    for (const e of readZip(zip.bytes, zip.name)) if (e.path.endsWith(".txt")) docs.set(e.path, decodeUtf8Ignore(e.data));
    if (docs.size === 0) throw new SourceFormatError(zip.name, "the archive holds no .txt document");
    const lines: string[] = [];
    for (const file of files[0]!) {
      const rows = await readParquet(file.bytes, file.name);
      rows.forEach((row, i) => {
        const where = `${file.name}: row ${i + 1}`;
        const texts = field(row, "data_source_filenames", where)
          .split(";")
          .map((doc) => {
            const path = dirtyFilename(`lcr/${pyStr(row.document_category)}/${pyStr(row.document_set_id)}/${doc}`);
            const text = docs.get(path);
            if (text === undefined) throw new SourceFormatError(where, `document '${path}' is not in ${zip.name}`);
            return text;
          });
        const documents = texts.map((t, j) => `BEGIN DOCUMENT ${j + 1}:\n${t}\nEND DOCUMENT ${j + 1}`).join("\n\n");
        const prompt = `BEGIN INPUT DOCUMENTS\n\n${documents}\n\nEND INPUT DOCUMENTS\n\nAnswer the following question using the input documents provided above.\n\nSTART QUESTION\n\n${pyStr(row.question)}\n\nEND QUESTION\n`;
        const tokens = row.input_tokens;
        if (typeof tokens !== "number") throw new SourceFormatError(where, `the row's 'input_tokens' is not a number (${JSON.stringify(tokens)})`);
        lines.push(
          pyDumps({
            responses_create_params: { input: [{ role: "user", content: prompt }] },
            document_category: row.document_category,
            document_set_id: row.document_set_id,
            question_id: row.question_id,
            question: row.question,
            answer: row.answer,
            data_source_filenames: row.data_source_filenames,
            data_source_urls: row.data_source_urls,
            input_tokens: tokens,
            input_tokens_band: band(tokens),
          }),
        );
      });
    }
    return lines;
  },
};
