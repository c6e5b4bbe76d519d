/** MBPP+ (upstream benchmarks/mbpp): 378 tasks of evalplus' MbppPlus v0.2.0 release. */
import { evalplusPreparer } from "./_evalplus.ts";

/** The mbpp preparer. */
export const benchmark = evalplusPreparer("mbpp", "mbpp");
