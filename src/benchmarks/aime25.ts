/** AIME 2025 (upstream benchmarks/aime25/prepare.py): `MathArena/aime_2025`, train split → question / expected_answer. */
import { problemAnswerBenchmark } from "./_problem-answer.ts";

/** The aime25 preparer. */
export const benchmark = problemAnswerBenchmark("aime25", "MathArena/aime_2025");
