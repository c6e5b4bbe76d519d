/** Registers every built-in benchmark preparer (one line each; append new ones at the end). */
import { registerBenchmark } from "./registry.ts";

registerBenchmark("gsm8k", async () => (await import("./gsm8k.ts")).benchmark);
registerBenchmark("math-500", async () => (await import("./math-500.ts")).benchmark);
registerBenchmark("ifeval", async () => (await import("./ifeval.ts")).benchmark);
registerBenchmark("gpqa", async () => (await import("./gpqa.ts")).benchmark);
registerBenchmark("mmlu_pro", async () => (await import("./mmlu-pro.ts")).benchmark);
registerBenchmark("mmlu", async () => (await import("./mmlu.ts")).benchmark);
registerBenchmark("supergpqa", async () => (await import("./supergpqa.ts")).benchmark);
registerBenchmark("mmlu-redux", async () => (await import("./mmlu-redux.ts")).benchmark);
registerBenchmark("simpleqa", async () => (await import("./simpleqa.ts")).benchmark);
registerBenchmark("hle", async () => (await import("./hle.ts")).benchmark);
registerBenchmark("financebench", async () => (await import("./financebench.ts")).benchmark);
registerBenchmark("secque", async () => (await import("./secque.ts")).benchmark);
registerBenchmark("frontierscience_olympiad", async () => (await import("./frontierscience-olympiad.ts")).benchmark);
registerBenchmark("omniscience", async () => (await import("./omniscience.ts")).benchmark);
registerBenchmark("xstest", async () => (await import("./xstest.ts")).benchmark);
registerBenchmark("gpqa-x", async () => (await import("./gpqa-x.ts")).benchmark);
registerBenchmark("mmmlu", async () => (await import("./mmmlu.ts")).benchmark);
registerBenchmark("frontierscience_research", async () => (await import("./frontierscience-olympiad.ts")).researchBenchmark);
