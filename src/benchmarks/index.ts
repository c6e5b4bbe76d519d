/** Registers every built-in benchmark preparer (one line each; append new ones at the end). */
import { registerBenchmark } from "./registry.ts";

registerBenchmark("gsm8k", async () => (await import("./gsm8k.ts")).benchmark);
registerBenchmark("math-500", async () => (await import("./math-500.ts")).benchmark);
registerBenchmark("ifeval", async () => (await import("./ifeval.ts")).benchmark);
registerBenchmark("gpqa", async () => (await import("./gpqa.ts")).benchmark);
registerBenchmark("mmlu_pro", async () => (await import("./mmlu-pro.ts")).benchmark);
registerBenchmark("mmlu", async () => (await import("./mmlu.ts")).benchmark);
registerBenchmark("livecodebench/v5_2408_2502", async () => (await import("./livecodebench-v5.ts")).benchmark);
registerBenchmark("livecodebench/v6_2408_2505", async () => (await import("./livecodebench-v6.ts")).benchmark);
registerBenchmark("livecodebench-x", async () => (await import("./livecodebench-x.ts")).benchmark);
registerBenchmark("human_eval", async () => (await import("./human-eval.ts")).benchmark);
registerBenchmark("mbpp", async () => (await import("./mbpp.ts")).benchmark);
registerBenchmark("human_eval_infilling", async () => (await import("./human-eval-infilling.ts")).benchmark);
