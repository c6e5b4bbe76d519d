/** AIME 2024 (upstream benchmarks/aime24/prepare.py): `HuggingFaceH4/aime_2024`, train split → question / expected_answer. */
import { problemAnswerBenchmark } from "./_problem-answer.ts";

/** The aime24 preparer. */
export const benchmark = problemAnswerBenchmark("aime24", "HuggingFaceH4/aime_2024");
