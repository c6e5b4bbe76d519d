/** HumanEval+ (upstream benchmarks/human_eval): 164 tasks of evalplus' HumanEvalPlus v0.1.10 release. */
import { evalplusPreparer } from "./_evalplus.ts";

/** The human_eval preparer. */
export const benchmark = evalplusPreparer("human_eval", "humaneval");
