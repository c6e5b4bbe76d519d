/** LiveCodeBench v6 window (upstream benchmarks/livecodebench/v6_2408_2505): release_v6, contests 2024-08-01 ≤ date < 2025-06-01. */
import { lcbWindowLines, releaseSources } from "./_livecodebench.ts";
import type { BenchmarkPreparer } from "./types.ts";

/** The livecodebench/v6_2408_2505 preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "livecodebench/v6_2408_2505",
  server: "code_gen",
  sources: releaseSources(6),
  prepare: (files) => lcbWindowLines(files, "2024-08-01", "2025-06-01"),
};
