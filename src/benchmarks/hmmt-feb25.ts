/** HMMT February 2025 (upstream benchmarks/hmmt_feb25/prepare.py): `MathArena/hmmt_feb_2025`, train split → question / expected_answer. */
import { problemAnswerBenchmark } from "./_problem-answer.ts";

/** The hmmt_feb25 preparer. */
export const benchmark = problemAnswerBenchmark("hmmt_feb25", "MathArena/hmmt_feb_2025");
