/**
 * Shared LiveCodeBench preparation (upstream benchmarks/livecodebench/prepare_utils.py): the raw
 * `livecodebench/code_generation_lite` JSONL files at `refs/pr/7`, tests decoded (public: JSON;
 * private: base64 → zlib → pickled JSON string), rows filtered by contest date.
 */
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { decodeCompressedPickledStr } from "../dataset/formats/pickled-str.ts";
import type { SourceFile, SourceSpec } from "./types.ts";

/** The Hub repo and revision every LiveCodeBench preparer reads. */
export const LCB_REPO = "livecodebench/code_generation_lite";
export const LCB_REVISION = "refs/pr/7";

/** The data files of `release_vN`: `test.jsonl`, `test2.jsonl`, … `testN.jsonl` (each release adds one). */
export function releaseFiles(version: number): string[] {
  return Array.from({ length: version }, (_, i) => (i === 0 ? "test.jsonl" : `test${i + 1}.jsonl`));
}

/** The sources of `release_vN` (in file order). */
export function releaseSources(version: number): SourceSpec[] {
  return releaseFiles(version).map((path) => ({ kind: "hf-file", repo: LCB_REPO, path, revision: LCB_REVISION }));
}

/** One example of the raw data set, with where it came from (for messages). */
export interface LcbExample {
  row: Record<string, unknown>;
  where: string;
}

const dec = new TextDecoder();

/**
 * Every row of the fetched release files, in order. Lines are decoded one at a time: the real files
 * are hundreds of MB each, too large to turn into one string.
 */
export function* lcbExamples(files: SourceFile[][]): Generator<LcbExample> {
  for (const file of files.flat()) {
    const b = file.bytes;
    let start = 0;
    let line = 0;
    while (start < b.length) {
      let end = b.indexOf(0x0a, start);
      if (end < 0) end = b.length;
      line++;
      const text = dec.decode(b.subarray(start, end)).replace(/\r$/, "");
      start = end + 1;
      if (text.trim() === "") continue;
      const where = `${file.name}:${line}`;
      let v: unknown;
      try {
        v = JSON.parse(text);
      } catch (e) {
        throw new SourceFormatError(where, `not valid JSON (${(e as Error).message})`);
      }
      if (v === null || typeof v !== "object" || Array.isArray(v)) throw new SourceFormatError(where, "a row is not a JSON object");
      yield { row: v as Record<string, unknown>, where };
    }
  }
}

/** Python's truthiness for the JSON values a row holds. */
function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}

/** Upstream `_decode_test_cases`: JSON first, else the compressed pickle; falsy → no tests. */
export function decodeTestCases(raw: unknown, where: string): { input: string; output: string }[] {
  if (!truthy(raw)) return [];
  let cases: unknown;
  if (typeof raw === "string") {
    try {
      cases = JSON.parse(raw);
    } catch {
      cases = JSON.parse(decodeCompressedPickledStr(raw, where));
    }
  } else cases = raw;
  if (!Array.isArray(cases) || cases.some((c) => c === null || typeof c !== "object" || typeof c.input !== "string" || typeof c.output !== "string")) {
    throw new SourceFormatError(where, "test cases must be a list of {input: str, output: str}");
  }
  return cases as { input: string; output: string }[];
}

/** `example.get(key, fallback)`. */
function get(row: Record<string, unknown>, key: string, fallback: unknown): unknown {
  return Object.hasOwn(row, key) ? row[key] : fallback;
}

/** The `unit_tests` block of one example (public tests first, then private), and its difficulty. */
export function unitTestsOf(ex: LcbExample): { unit_tests: { inputs: string[]; outputs: string[]; fn_name: string | null }; difficulty: unknown } {
  const pub = decodeTestCases(get(ex.row, "public_test_cases", ""), `${ex.where} public_test_cases`);
  const priv = decodeTestCases(get(ex.row, "private_test_cases", ""), `${ex.where} private_test_cases`);
  let meta = get(ex.row, "metadata", null);
  if (!truthy(meta)) meta = {};
  else if (typeof meta === "string") {
    try {
      meta = JSON.parse(meta);
    } catch (e) {
      throw new SourceFormatError(`${ex.where} metadata`, `not valid JSON (${(e as Error).message})`);
    }
  }
  const fn = (meta as Record<string, unknown>)?.func_name;
  return {
    unit_tests: {
      inputs: [...pub, ...priv].map((t) => t.input),
      outputs: [...pub, ...priv].map((t) => t.output),
      fn_name: truthy(fn) ? (fn as string) : null,
    },
    difficulty: get(ex.row, "difficulty", "unknown"),
  };
}

// LiveCodeBench's own instructions (lcb_runner/prompts/code_generation.py), as Skills' prepare uses them.
const WITH_STARTER = "You will use the following starter code to write the solution to the problem and enclose your code within delimiters.";
const WITHOUT_STARTER =
  "Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when the python program runs, it reads the inputs, runs the algorithm and writes output to STDOUT.";

/**
 * `prepare_from_hf_raw`: examples with `date_from <= contest_date < date_to` (string order, as upstream)
 * as JSONL lines (orjson's compact form, which JSON.stringify matches for these string-only rows).
 */
export function lcbWindowLines(files: SourceFile[][], dateFrom: string, dateTo: string): string[] {
  const lines: string[] = [];
  for (const ex of lcbExamples(files)) {
    const date = String(get(ex.row, "contest_date", "") ?? "");
    if (date < dateFrom || date >= dateTo) continue;
    const question = ex.row.question_content;
    if (typeof question !== "string") throw new SourceFormatError(ex.where, "the row's 'question_content' is missing or not a string");
    const { unit_tests, difficulty } = unitTestsOf(ex);
    const starter = get(ex.row, "starter_code", "");
    const hasStarter = truthy(starter);
    lines.push(
      JSON.stringify({
        question_content: question,
        verifier_metadata: { problem_id: get(ex.row, "question_id", ""), difficulty, unit_tests },
        formatting_message: hasStarter ? WITH_STARTER : WITHOUT_STARTER,
        starter_code: hasStarter ? `\`\`\`python\n${String(starter)}\n\`\`\`` : "```python\n# YOUR CODE HERE\n```",
      }),
    );
  }
  return lines;
}
