/**
 * ProofNet test split for math_formal_lean (upstream benchmarks/proofnet/prepare.py): DeepSeek-Prover-V1.5's
 * proofnet.jsonl at a pinned commit, rows with `split == "test"` kept as they are (json.dumps, ASCII);
 * any count but 186 stops, as upstream's assert does.
 */
import { parseJsonlRows } from "../dataset/formats/jsonl.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { BenchmarkPreparer } from "./types.ts";

const SOURCE_URL = "https://raw.githubusercontent.com/deepseek-ai/DeepSeek-Prover-V1.5/2c4ba9119eef74d0d611f494261b2c5bae98c69a/datasets/proofnet.jsonl";
const EXPECTED_TEST_ROWS = 186;

/** The proofnet preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "proofnet",
  server: "math_formal_lean",
  sources: [{ kind: "url", url: SOURCE_URL, file: "proofnet.jsonl" }],
  prepare(files) {
    const src = files[0]![0]!;
    const rows = parseJsonlRows(new TextDecoder().decode(src.bytes), src.name).map(({ row }) => row as Record<string, unknown>).filter((r) => r.split === "test");
    if (rows.length !== EXPECTED_TEST_ROWS) throw new SourceFormatError(src.name, `expected ${EXPECTED_TEST_ROWS} test rows, got ${rows.length}; the source may have drifted`);
    return rows.map((r) => pyDumps(r));
  },
};
