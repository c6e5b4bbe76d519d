/**
 * Policy wiring (spec submit.md §5.1): when `driver.policy_model` names a vLLM or PD service,
 * every benchmark's `run` gains the policy URL, model name and a dummy key. Keys a user already
 * set to exactly these values are accepted (spec default §13.2: resolved-config.yaml re-validates).
 */
import type { SubmitConfig } from "./schema.ts";

/** The three injected `run` keys, in injection order. */
export const POLICY_KEYS = ["policy_base_url", "policy_model_name", "policy_api_key"] as const;

/** The values injected for the configured policy, or null when nothing is injected. */
export function policyValues(cfg: SubmitConfig): Record<(typeof POLICY_KEYS)[number], string> | null {
  const name = cfg.driver.policy_model;
  if (!name) return null;
  const svc = cfg.services[name];
  if (!svc || svc.type === "ray") return null;
  return {
    policy_base_url: `http://${cfg.driver.policy_host}:${svc.port}/v1`,
    policy_model_name: svc.served_model_name ?? svc.model,
    policy_api_key: "dummy",
  };
}

/** `run` without the policy keys that equal what injection would write (for the command/run check). */
export function userRunKeys(cfg: SubmitConfig, run: Record<string, unknown>): string[] {
  const inj = policyValues(cfg) as Record<string, string> | null;
  return Object.keys(run).filter((k) => !(inj && k in inj && run[k] === inj[k]));
}

/** Inject the policy keys into every benchmark's `run`; conflicts are appended to `errors`. */
export function injectPolicy(cfg: SubmitConfig, errors: string[]): void {
  const inj = policyValues(cfg);
  if (!inj) return;
  for (const [bn, b] of Object.entries(cfg.driver.benchmarks)) {
    const clash = POLICY_KEYS.filter((k) => k in b.run && b.run[k] !== inj[k]);
    if (clash.length > 0) {
      errors.push(
        `Benchmark '${bn}' run config already sets [${clash.map((k) => `'${k}'`).join(", ")}] but driver.policy_model is also set. Remove one (the run keys, or driver.policy_model).`,
      );
      continue;
    }
    for (const k of POLICY_KEYS) b.run[k] = inj[k];
  }
}
