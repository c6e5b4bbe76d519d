/** Registers every built-in benchmark preparer (one line each; append new ones at the end). */
import { registerBenchmark } from "./registry.ts";

registerBenchmark("gsm8k", async () => (await import("./gsm8k.ts")).benchmark);
registerBenchmark("math-500", async () => (await import("./math-500.ts")).benchmark);
registerBenchmark("ifeval", async () => (await import("./ifeval.ts")).benchmark);
registerBenchmark("gpqa", async () => (await import("./gpqa.ts")).benchmark);
registerBenchmark("mmlu_pro", async () => (await import("./mmlu-pro.ts")).benchmark);
registerBenchmark("mmlu", async () => (await import("./mmlu.ts")).benchmark);
registerBenchmark("hendrycks_math", async () => (await import("./hendrycks-math.ts")).benchmark);
registerBenchmark("aime24", async () => (await import("./aime24.ts")).benchmark);
registerBenchmark("aime25", async () => (await import("./aime25.ts")).benchmark);
registerBenchmark("aime26", async () => (await import("./aime26.ts")).benchmark);
registerBenchmark("hmmt_feb25", async () => (await import("./hmmt-feb25.ts")).benchmark);
registerBenchmark("hmmt_nov25", async () => (await import("./hmmt-nov25.ts")).benchmark);
registerBenchmark("apex_shortlist", async () => (await import("./apex-shortlist.ts")).benchmark);
registerBenchmark("aime24-x", async () => (await import("./aime24-x.ts")).benchmark);
registerBenchmark("aime25-x", async () => (await import("./aime25-x.ts")).benchmark);
registerBenchmark("livecodebench/v5_2408_2502", async () => (await import("./livecodebench-v5.ts")).benchmark);
registerBenchmark("livecodebench/v6_2408_2505", async () => (await import("./livecodebench-v6.ts")).benchmark);
registerBenchmark("livecodebench-x", async () => (await import("./livecodebench-x.ts")).benchmark);
registerBenchmark("human_eval", async () => (await import("./human-eval.ts")).benchmark);
registerBenchmark("mbpp", async () => (await import("./mbpp.ts")).benchmark);
