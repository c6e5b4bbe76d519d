/** Shared builders for the submit tests: a minimal valid config and a validate shortcut. */
import { validateSubmit, type Validated } from "../../src/submit/validate.ts";

/** A minimal valid submit config (one vLLM policy, one benchmark, collector off). */
export function baseConfig(): Record<string, any> {
  return {
    services: { policy: { type: "vllm", container: "vllm:latest", model: "m" } },
    compute: { cluster: { type: "slurm", account: "acct", node_pools: { gpu: { partition: "batch", gpus_per_node: 1 } } } },
    driver: { policy_model: "policy", benchmarks: { b1: { run: { num_repeats: 1 } } } },
    job: { output_path: "/runs" },
    otel: { enabled: false },
  };
}

/** Validate a dict with a fixed host environment. */
export function check(dict: Record<string, unknown>, env: Record<string, string> = {}): Validated {
  return validateSubmit(structuredClone(dict), "submit.yaml", { lookupEnv: (n) => env[n] });
}

/** The error message validation throws, or "" when it passes. */
export function errorOf(dict: Record<string, unknown>, env: Record<string, string> = {}): string {
  try {
    check(dict, env);
    return "";
  } catch (e) {
    return (e as Error).message;
  }
}

/** Fixed identity for rendering. */
export const ID = { gymJobId: "gym-job-20260101T000000Z-abcdef", runDir: "/lustre/me/evals/gym-job-20260101T000000Z-abcdef" };
