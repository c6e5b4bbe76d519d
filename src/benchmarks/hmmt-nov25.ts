/** HMMT November 2025 (upstream benchmarks/hmmt_nov25/prepare.py): `MathArena/hmmt_nov_2025`, train split → question / expected_answer. */
import { problemAnswerBenchmark } from "./_problem-answer.ts";

/** The hmmt_nov25 preparer. */
export const benchmark = problemAnswerBenchmark("hmmt_nov25", "MathArena/hmmt_nov_2025");
