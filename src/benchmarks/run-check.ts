/**
 * What `gym eval run --benchmark NAME` checks before the config pipeline runs (issue 12): the
 * benchmark exists, and its resources server is built in (or provided in a search root), else
 * one clear error instead of a missing-include failure; and, after resolution, that its data is
 * prepared (a built-in preparer runs on the spot when it is not).
 */
import { existsSync } from "node:fs";
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import { CatalogError, findCatalogEntry } from "../config/catalog.ts";
import { resolveInRoots } from "../config/roots.ts";
import type { Keys } from "../dataset/upload-keys.ts";
import { readBenchmarkDataset, type BenchmarkDataset } from "./dataset-block.ts";
import { SERVER_NOT_BUILT } from "./catalog-info.ts";
import { fetchEnvFromKeys } from "./fetch-env.ts";
import { prepareBuiltins } from "./prepare.ts";
import { loadPreparer, preparerNameOfScript } from "./registry.ts";

/** The benchmark's dataset block, or a ConfigError when it cannot run here. */
export function checkBenchmarkRunnable(name: string, roots: string[], isBuiltin: (impl: string) => boolean): BenchmarkDataset | undefined {
  let entry;
  try {
    entry = findCatalogEntry(name, "benchmark", roots);
  } catch (e) {
    if (e instanceof CatalogError) throw new ConfigError(e.message, { key: "--benchmark", hint: e.hint });
    throw e;
  }
  const d = readBenchmarkDataset(entry.path);
  if (!d?.server) return d;
  const external = d.serverConfig !== undefined && existsSync(resolveInRoots(d.serverConfig, roots));
  if (!isBuiltin(d.server) && !external) {
    throw new ConfigError(`benchmark '${name}' is scored by the resources server '${d.server}': ${SERVER_NOT_BUILT}`, {
      hint: `\`gym list benchmarks\` shows which benchmarks can run; its data can be prepared already: gym eval prepare --benchmark ${name}`,
    });
  }
  return d;
}

/** Prepare the benchmark's data into `outputRoot` when no search root has it and a built-in preparer exists. */
export async function ensurePrepared(d: BenchmarkDataset, roots: string[], keys: Keys, outputRoot: string): Promise<void> {
  if (existsSync(resolveInRoots(d.jsonlFpath, roots))) return;
  const builtin = d.prepareScript ? preparerNameOfScript(d.prepareScript) : undefined;
  if (!builtin || (d.prepareScript && existsSync(resolveInRoots(d.prepareScript, roots)))) return; // collation reports the missing file
  log.info(`${d.name}: not prepared yet; preparing it now (gym eval prepare --benchmark …)`);
  await prepareBuiltins([{ name: d.name, jsonlFpath: d.jsonlFpath, preparer: (await loadPreparer(builtin))! }], { outputRoot, useCached: false, processes: 1, fetch: fetchEnvFromKeys(keys) });
}
