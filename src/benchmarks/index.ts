/** Registers every built-in benchmark preparer (one line each; append new ones at the end). */
import { registerBenchmark } from "./registry.ts";

registerBenchmark("gsm8k", async () => (await import("./gsm8k.ts")).benchmark);
