/** Executor pre-checks run by `--dry-run` and submit, not `--resolve-only` (spec submit.md §5.2). */
import { ConfigError } from "../errors.ts";
import type { SubmitConfig } from "./schema.ts";

const NAME_RE = /^[A-Za-z0-9._-]+$/;

/** Benchmark names and OTel destination/token. Throws ConfigError. */
export function executorPrechecks(cfg: SubmitConfig, lookupEnv: (n: string) => string | undefined): void {
  const bad = Object.keys(cfg.driver.benchmarks).filter((b) => !NAME_RE.test(b));
  if (bad.length > 0) {
    throw new ConfigError(`Invalid benchmark name(s) ${bad.map((b) => `'${b}'`).join(", ")}: names must match ^[A-Za-z0-9._-]+$ (they name directories and Slurm jobs). Rename them under driver.benchmarks.`, { code: "E_SUBMIT_CONFIG" });
  }
  const o = cfg.otel;
  if (!o.enabled) return;
  const missing = [o.endpoint ? null : "otel.endpoint", o.service_name ? null : "otel.service_name"].filter((x) => x !== null);
  if (missing.length > 0) {
    throw new ConfigError(`The OTel collector is enabled but ${missing.join(" and ")} is not set. Set ${missing.join(" and ")}, or disable the collector with otel.enabled=false.`, { code: "E_SUBMIT_CONFIG" });
  }
  const token = lookupEnv(o.token_env);
  if (token === undefined || token === "") {
    throw new ConfigError(`The OTel collector is enabled but '${o.token_env}' is not set in the submitting shell's environment. Export it (the collector authenticates with it), or set otel.enabled=false.`, { code: "E_SUBMIT_CONFIG" });
  }
}
