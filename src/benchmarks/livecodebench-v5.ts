/** LiveCodeBench v5 window (upstream benchmarks/livecodebench/v5_2408_2502): release_v5, contests 2024-08-01 ≤ date < 2025-03-01. */
import { lcbWindowLines, releaseSources } from "./_livecodebench.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** The livecodebench/v5_2408_2502 preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "livecodebench/v5_2408_2502",
  server: "code_gen",
  sources: releaseSources(5),
  prepare: (files) => lcbWindowLines(files, "2024-08-01", "2025-03-01"),
};
