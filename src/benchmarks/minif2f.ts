/**
 * miniF2F test split for math_formal_lean (upstream benchmarks/minif2f/prepare.py): Goedel-Prover-V2's
 * minif2f.jsonl at a pinned commit; each Lean snippet is split into its header (imports/options, up to
 * the first doc comment or `theorem `) and the theorem, `sorry` is removed and the statement cut after
 * its last `:= by`. Only the 244 `test` rows are kept; any other count stops, as upstream's assert does.
 */
import { parseJsonlRows } from "../dataset/formats/jsonl.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { BenchmarkPreparer } from "./types.ts";

type Row = Record<string, unknown>;
const SOURCE_URL = "https://raw.githubusercontent.com/Goedel-LM/Goedel-Prover-V2/2e9036e118464aa96a8bebaf9f5b9d091aa3585c/dataset/minif2f.jsonl";
const EXPECTED_TEST_ROWS = 244;

/** The statement up to and including its last `:= by`, then a newline; unchanged without one. */
function endAtBy(text: string): string {
  const i = text.lastIndexOf(":= by");
  return i === -1 ? text : `${text.slice(0, i + 5)}\n`;
}

/** `sorry` removed (with the ` by` before it kept), then cut at the last `:= by`. */
export function cleanLeanSnippet(text: string): string {
  return endAtBy(text.replaceAll(" by sorry", " by").replaceAll("by sorry", "by").replaceAll("sorry", ""));
}

/** [header, theorem]: the header ends at the first `/--` or `theorem ` (whichever is first). */
export function splitHeaderAndTheorem(text: string): [string, string] {
  const doc = text.indexOf("/--");
  const thm = text.indexOf("theorem ");
  let end = doc;
  if (end === -1 || (thm !== -1 && thm < end)) end = thm;
  return [end > 0 ? text.slice(0, end) : "", thm !== -1 ? text.slice(thm) : text];
}

/** Python's `d.get(k, default)`. */
const get = (row: Row, k: string, dflt: unknown) => (Object.hasOwn(row, k) ? row[k] : dflt);
/** Python truthiness of a JSON value. */
const truthy = (v: unknown) => !(v === null || v === undefined || v === false || v === 0 || v === "" || (Array.isArray(v) && v.length === 0) || (typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0));

/** One source row as math_formal_lean's task (name, split, informal_prefix, formal_statement, goal, header). */
export function minif2fRow(row: Row, where: string): Row {
  const raw = truthy(row.formal_statement) ? row.formal_statement : truthy(row.lean4_code) ? row.lean4_code : "";
  if (typeof raw !== "string") throw new SourceFormatError(where, "formal_statement / lean4_code must be a string");
  const [header, theorem] = splitHeaderAndTheorem(raw);
  return {
    name: get(row, "name", ""),
    split: get(row, "split", get(row, "category", "")),
    informal_prefix: get(row, "informal_prefix", ""),
    formal_statement: cleanLeanSnippet(theorem),
    goal: get(row, "goal", ""),
    header,
  };
}

/** The minif2f preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "minif2f",
  server: "math_formal_lean",
  sources: [{ kind: "url", url: SOURCE_URL, file: "minif2f-kimina.jsonl" }],
  prepare(files) {
    const src = files[0]![0]!;
    const rows = parseJsonlRows(new TextDecoder().decode(src.bytes), src.name)
      .map(({ row, line }) => minif2fRow(row as Row, `${src.name}:${line}`))
      .filter((r) => r.split === "test");
    if (rows.length !== EXPECTED_TEST_ROWS) throw new SourceFormatError(src.name, `expected ${EXPECTED_TEST_ROWS} test theorems, got ${rows.length}; the source may have drifted`);
    return rows.map((r) => pyDumps(r, false));
  },
};
