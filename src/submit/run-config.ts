/**
 * Submit-time check of each benchmark's `gym eval run` config: resolve it the way the job's driver
 * will (the staged binary, its embedded root, the bench dir as cwd, no extra roots), so a bad
 * `config_paths` entry, an unset `???` or a mistyped global fails here, before sbatch, instead of
 * inside the job where it burns a retry.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { resolveGlobalConfig } from "../config/resolve.ts";
import { configAccess } from "../config/access.ts";
import { ConfigError, GymError } from "../errors.ts";
import { leaves, pyStr } from "./render/flatten.ts";
import type { SubmitConfig } from "./schema.ts";

/** Splits `gym eval run` accepts in serve mode (cli-config §2.4; `example` is gym's). */
const SPLITS = ["train", "validation", "benchmark", "example"];

/** Why a benchmark's run config cannot be checked from here, or undefined when it can. */
function uncheckable(run: Record<string, unknown>, remote: boolean, driverEnv: Record<string, unknown>): string | undefined {
  if (Object.hasOwn(driverEnv, "NEMO_GYM_EXTRA_ROOTS")) return "driver.env sets NEMO_GYM_EXTRA_ROOTS (search roots on the cluster)";
  const paths = run.config_paths;
  const list = Array.isArray(paths) ? paths : typeof paths === "string" ? [paths] : [];
  if (remote && list.some((p) => typeof p === "string" && isAbsolute(p))) return "its config_paths name files on the cluster";
  return undefined;
}

/**
 * Resolve every `run` benchmark's config as its job will; throws a ConfigError naming the benchmark.
 * Returns notes for benchmarks that cannot be checked from this machine (`remote`: submitting over SSH).
 */
export async function checkRunConfigs(cfg: SubmitConfig, opts: { remote: boolean }): Promise<string[]> {
  const notes: string[] = [];
  const modelType = cfg.driver.policy_model && cfg.driver.policy_model_type ? cfg.driver.policy_model_type : undefined;
  for (const [name, bench] of Object.entries(cfg.driver.benchmarks)) {
    if (bench.command !== null && bench.command !== undefined) continue;
    const run = (bench.run ?? {}) as Record<string, unknown>;
    const why = uncheckable(run, opts.remote, (cfg.driver.env ?? {}) as Record<string, unknown>);
    if (why) {
      notes.push(`benchmark '${name}': run config not checked before submitting: ${why}`);
      continue;
    }
    // The job's cwd is its (empty) bench dir; an empty dir as the only search root stands for it.
    const benchDir = mkdtempSync(join(tmpdir(), "gym-submit-check-"));
    try {
      const overrides = leaves(run).map(([p, v]) => `+${p}=${pyStr(v)}`);
      const resolved = await resolveGlobalConfig({ selectors: { configPaths: [], modelType, searchDirs: [benchDir] }, overrides, cwd: benchDir, offline: true });
      const split = configAccess(resolved).read("split");
      if (typeof split !== "string" || !SPLITS.includes(split)) {
        throw new ConfigError(`split must be one of ${SPLITS.join(", ")} for \`gym eval run\`, got ${JSON.stringify(split ?? null)}`, { key: "split", hint: "set driver.benchmarks.<name>.run.split (e.g. benchmark)" });
      }
    } catch (err) {
      if (!(err instanceof GymError)) throw err;
      throw new ConfigError(`benchmark '${name}': its run config would fail in the job: ${err.message}`, {
        code: "E_SUBMIT_CONFIG",
        hint: err.hint ?? "fix driver.benchmarks.<name>.run; `gym env resolve` with the same overrides shows the config the job would get",
        cause: err,
      });
    } finally {
      rmSync(benchDir, { recursive: true, force: true });
    }
  }
  return notes;
}
