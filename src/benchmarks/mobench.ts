/**
 * MOBench for math_formal_lean (upstream benchmarks/mobench/prepare.py): Goedel-Prover-V2's MOBench.jsonl at
 * a pinned commit. Each statement keeps its prelude (text before the first `theorem` line) and is cut after
 * its first `:= by`, a trailing `sorry` dropped; every row gets upstream's fixed Lean 4 header. Any count
 * but 360 stops, as upstream's assert does. Regexes keep Python's whitespace and Unicode `\b`.
 */
import { parseJsonlRows } from "../dataset/formats/jsonl.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { PY_SPACE_CLASS, pyStrip } from "../util/py-str.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { BenchmarkPreparer } from "./types.ts";

type Row = Record<string, unknown>;
const SOURCE_URL = "https://raw.githubusercontent.com/Goedel-LM/Goedel-Prover-V2/2e9036e118464aa96a8bebaf9f5b9d091aa3585c/dataset/MOBench.jsonl";
const EXPECTED_ROWS = 360;
const LEAN4_HEADER = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 0\n\nopen BigOperators Real Nat Topology Rat\n\n";
const S = `[${PY_SPACE_CLASS}]`;
const W = "[\\p{L}\\p{N}\\p{Mn}\\p{Pc}]";
const THEOREM_LINE = new RegExp(`^${S}*theorem${S}`, "mu");
const TRAILING_SORRY = new RegExp(`(:=${S}*by)${S}*sorry${S}*$`, "u");
// `\b` after `by`: Python's is Unicode-aware, so the next character must not be a word character.
const FIRST_BY = new RegExp(`^([\\s\\S]*?:=${S}*by)(?!${W})`, "u");
const ANY_BY = new RegExp(`:=${S}*by`, "u");
const TRAIL = new RegExp(`${S}+$`, "u");

/** [prelude, theorem block] split at the first line that starts a `theorem` (both stripped). */
function splitPrelude(code: string): [string, string] {
  const m = THEOREM_LINE.exec(code);
  if (!m) return ["", code];
  return [pyStrip(code.slice(0, m.index)), pyStrip(code.slice(m.index))];
}

/** The theorem up to its first `:= by` (a trailing `sorry` removed first), then a newline. */
function theoremBy(block: string): string {
  const cleaned = pyStrip(block).replace(TRAILING_SORRY, "$1");
  const m = FIRST_BY.exec(cleaned);
  if (m) return `${m[1]!.replace(TRAIL, "")}\n`;
  const m2 = ANY_BY.exec(cleaned);
  return `${m2 ? cleaned.slice(0, m2.index + m2[0].length).replace(TRAIL, "") : `${cleaned.replace(TRAIL, "")} := by`}\n`;
}

const truthy = (v: unknown) => !(v === null || v === undefined || v === false || v === 0 || v === "" || (Array.isArray(v) && v.length === 0) || (typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0));
const get = (row: Row, k: string, dflt: unknown) => (Object.hasOwn(row, k) ? row[k] : dflt);

/** One MOBench row as math_formal_lean's task. */
export function mobenchRow(row: Row, where: string): Row {
  const candidate = truthy(row.full_formal_statement) ? row.full_formal_statement : truthy(row.formal_statement) ? row.formal_statement : "";
  if (typeof candidate !== "string") throw new SourceFormatError(where, "full_formal_statement / formal_statement must be a string");
  const [prelude, block] = splitPrelude(candidate);
  const by = theoremBy(block || candidate);
  return { name: get(row, "name", ""), split: get(row, "split", "test"), informal_prefix: get(row, "informal_prefix", ""), formal_statement: prelude ? `${prelude}\n\n${by}` : by, goal: "", header: LEAN4_HEADER };
}

/** The mobench preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "mobench",
  server: "math_formal_lean",
  sources: [{ kind: "url", url: SOURCE_URL, file: "MOBench.jsonl" }],
  prepare(files) {
    const src = files[0]![0]!;
    const rows = parseJsonlRows(new TextDecoder().decode(src.bytes), src.name).map(({ row, line }) => mobenchRow(row as Row, `${src.name}:${line}`));
    if (rows.length !== EXPECTED_ROWS) throw new SourceFormatError(src.name, `expected ${EXPECTED_ROWS} rows, got ${rows.length}; the source may have drifted`);
    return rows.map((r) => pyDumps(r));
  },
};
