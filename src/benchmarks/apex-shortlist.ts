/** APEX Shortlist (upstream benchmarks/apex_shortlist/prepare.py): `MathArena/apex-shortlist`, train split → question / expected_answer. */
import { problemAnswerBenchmark } from "./_problem-answer.ts";

/** The apex_shortlist preparer. */
export const benchmark = problemAnswerBenchmark("apex_shortlist", "MathArena/apex-shortlist");
