/**
 * The body of `gym eval run` (eval-run.ts), loaded only when the command runs: its module graph
 * (config pipeline, rollout driver, benchmarks) would otherwise be read for `gym eval run --help` too.
 */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { configAccess } from "../config/access.ts";
import { resolveInRoots, searchRoots } from "../config/roots.ts";
import { readEnv, type GymEnv } from "../env.ts";
import { log } from "../log.ts";
import { rolloutConfigFrom, rolloutView } from "../rollout/config.ts";
import { driverOptionsFromEnv, E_STOPPED, runEval, splitInput, type RunEvalOptions } from "../rollout/run-eval.ts";
import { checkInput } from "../rollout/materialize.ts";
import type { ParsedFlags } from "./_command.ts";
import { selectorArgs } from "./_flags.ts";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { preparedRoot } from "../assets/embedded.ts";
import { keysOf } from "../dataset/upload-keys.ts";
import { checkBenchmarkRunnable, ensurePrepared } from "../benchmarks/run-check.ts";
import type { BenchmarkDataset } from "../benchmarks/dataset-block.ts";
import { ConfigError, GymError } from "../errors.ts";
import { isBuiltin } from "../components/registry.ts";
import { checkBuiltinConfigs } from "../components/preflight.ts";

/** 128 + the signal number for a run stopped by SIGINT (130) or SIGTERM (143); other codes unchanged. */
function stoppedCode(code: number, signal: string | undefined): number {
  return code === 130 && signal === "SIGTERM" ? 143 : code;
}

/**
 * Run the use case under SIGINT/SIGTERM (stop preparation and admission, shut down). In serve
 * mode the servers start inside the same guard, so a Ctrl+C during start-up still shuts
 * everything down.
 */
async function underSignals(opts: Omit<RunEvalOptions, "stop" | "driver" | "trackers">, env: GymEnv): Promise<number> {
  const stop = new AbortController();
  let signal: string | undefined;
  const onSignal = (sig: string) => {
    signal = sig;
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const driver = await driverOptionsFromEnv(opts.cfg, opts.resolved, env, process.stderr.isTTY === true && !env.testing);
    const summary = await runEval({ ...opts, driver, trackers: true, stop: stop.signal });
    return stoppedCode(summary.exitCode, signal);
  } catch (e) {
    if (!(e instanceof GymError) || e.code !== E_STOPPED) throw e;
    process.stderr.write(`${e.message}.\n`);
    return stoppedCode(130, signal);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * `--benchmark NAME` in serve mode: refuse a benchmark whose server is not built in (before the
 * config pipeline trips over its missing include), and default `--split benchmark` and
 * `-o results/<NAME>/rollouts.jsonl` when they are not given (a gym convenience).
 */
async function benchmarkDefaults(name: string, flags: ParsedFlags, overrides: string[]): Promise<BenchmarkDataset | undefined> {
  await Promise.all([import("../components/index.ts"), import("../benchmarks/index.ts")]);
  const dirs = flags["search-dir"];
  // The prepared-benchmark cache must be a search root before resolution, so data prepared on the spot is found.
  mkdirSync(preparedRoot(), { recursive: true });
  const roots = await searchRoots({ searchDirs: Array.isArray(dirs) ? dirs : typeof dirs === "string" ? [dirs] : [] });
  const d = checkBenchmarkRunnable(name, roots, (impl) => isBuiltin("resources_servers", impl));
  const has = (key: string) => overrides.some((o) => o.replace(/^\+\+?/, "").startsWith(`${key}=`));
  if (!has("split")) overrides.push("+split=benchmark");
  if (!has("output_jsonl_fpath")) {
    overrides.push(`+output_jsonl_fpath=${join("results", name, "rollouts.jsonl")}`);
    log.info(`writing rollouts to ${join("results", name, "rollouts.jsonl")} (pass -o to choose)`);
  }
  return d;
}

/** Run `gym eval run` with its parsed flags and the `+key=value` overrides they and the command line give. */
export async function runEvalCommand(flags: ParsedFlags, overrides: string[]): Promise<number> {
  const noServe = flags["no-serve"] === true;
  const bench = !noServe && typeof flags.benchmark === "string" && flags.benchmark !== "" ? await benchmarkDefaults(flags.benchmark, flags, overrides) : undefined;
  const resolved = await resolveGlobalConfig({ selectors: selectorArgs(flags), overrides, noModel: false });
  const env = readEnv();
  if (bench) await ensurePrepared(bench, resolved.roots, keysOf(resolved), preparedRoot());
  const view = rolloutView(configAccess(resolved));

  if (!noServe) {
    const { input, ...prepare } = splitInput(view.split, view.output_jsonl_fpath);
    // Validate the keys before any work.
    const cfg = rolloutConfigFrom({ ...view, input_jsonl_fpath: input });
    await import("../components/index.ts");
    const serve = { isBuiltin, checkConfigs: checkBuiltinConfigs, supervisor: { headPortFallback: true } };
    return underSignals({ resolved, cfg, prepare, serve }, env);
  }

  const cfg = rolloutConfigFrom(view);
  // Input paths resolve through the search roots, then the cwd, then the install root (§11.1).
  const found = resolveInRoots(cfg.input, resolved.roots);
  if (existsSync(found)) cfg.input = found;
  // Fail before contacting any server: a typo in -i should not read as a connection problem.
  else if (!existsSync(cfg.input)) {
    throw new ConfigError(`Input file not found: '${cfg.input}' (input_jsonl_fpath). Searched the cwd and every search root.`, {
      key: "input_jsonl_fpath",
      hint: "check the -i/--input path; relative paths resolve against NEMO_GYM_EXTRA_ROOTS/--search-dir, the cwd, then the built-in root",
    });
  }
  checkInput(cfg);
  return underSignals({ resolved, cfg }, env);
}
