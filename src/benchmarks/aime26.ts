/** AIME 2026 (upstream benchmarks/aime26/prepare.py): `MathArena/aime_2026`, train split → question / expected_answer. */
import { problemAnswerBenchmark } from "./_problem-answer.ts";

/** The aime26 preparer. */
export const benchmark = problemAnswerBenchmark("aime26", "MathArena/aime_2026");
