/**
 * Which benchmarks `gym eval prepare` prepares and how: each selected benchmark's dataset is
 * found (by catalog name, or in a resolved `--config`), then handed to a built-in TypeScript
 * preparer when its `prepare_script` names one and no such script file exists in the search
 * roots, or to the user's Python `prepare.py` otherwise. Every problem is reported before any
 * benchmark runs.
 */
import { existsSync } from "node:fs";
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import { CatalogError, findCatalogEntry, listCatalog } from "../config/catalog.ts";
import { resolveInRoots } from "../config/roots.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { benchmarkJobs, type BenchmarkJob } from "../dataset/prepare.ts";
import { readBenchmarkDataset } from "./dataset-block.ts";
import type { BuiltinJob } from "./prepare.ts";
import { loadPreparer, preparerNameOfScript } from "./registry.ts";

/** The jobs of one `gym eval prepare`. */
export interface PreparePlan {
  builtin: BuiltinJob[];
  python: BenchmarkJob[];
}

interface Candidate {
  agent: string;
  name: string;
  script: string | undefined;
  jsonlFpath: string;
}

/** Catalog rows by name (`--benchmark`, repeatable) or every benchmark (`--all`). */
function fromCatalog(names: string[], all: boolean, roots: string[]): Candidate[] {
  const entries = all ? listCatalog("benchmark", roots) : names.map((n) => {
    try {
      return findCatalogEntry(n, "benchmark", roots);
    } catch (e) {
      // A mistyped --benchmark is a usage problem of this command (exit 2), with the catalog's did-you-mean.
      if (e instanceof CatalogError) throw new ConfigError(e.message, { key: "--benchmark", hint: e.hint });
      throw e;
    }
  });
  const out: Candidate[] = [];
  for (const e of entries) {
    const d = readBenchmarkDataset(e.path);
    if (!d) {
      if (all) continue;
      throw new ConfigError(`${e.path}: benchmark '${e.name}' declares no \`type: benchmark\` dataset itself`, { hint: "pass it with --config to prepare it through the full config pipeline" });
    }
    out.push({ agent: d.agent, name: d.name, script: d.prepareScript, jsonlFpath: d.jsonlFpath });
  }
  return out;
}

/** Build the plan; `resolved` supplies roots (and the datasets when `--config` was given). */
export async function planPrepare(resolved: ResolvedConfig, sel: { names: string[]; all: boolean; fromConfig: boolean }): Promise<PreparePlan> {
  const roots = resolved.roots;
  const candidates: Candidate[] = sel.fromConfig
    ? benchmarkJobs(resolved, { resolvePaths: false }).map((j) => ({ agent: j.agent, name: j.name, script: j.script, jsonlFpath: j.jsonl }))
    : fromCatalog(sel.names, sel.all, roots);
  if (candidates.length === 0) throw new ConfigError("no benchmark to prepare", { hint: "pass --benchmark NAME, --all or a --config with a `type: benchmark` dataset" });
  const plan: PreparePlan = { builtin: [], python: [] };
  const problems: string[] = [];
  for (const c of candidates) {
    if (!c.script) {
      problems.push(`${c.agent}: benchmark dataset '${c.name}' has no prepare_script`);
      continue;
    }
    const scriptPath = resolveInRoots(c.script, roots);
    const builtin = preparerNameOfScript(c.script);
    if (existsSync(scriptPath) || !builtin) {
      plan.python.push({ agent: c.agent, name: c.name, script: scriptPath, jsonl: resolveInRoots(c.jsonlFpath, roots) });
      continue;
    }
    const preparer = (await loadPreparer(builtin))!;
    if (preparer.unsupported !== undefined && sel.all) {
      log.warn(`${c.name}: skipped (gym cannot prepare it itself; \`gym eval prepare --benchmark ${c.name}\` says what it needs)`);
      continue;
    }
    plan.builtin.push({ name: c.name, jsonlFpath: c.jsonlFpath, preparer });
  }
  if (problems.length > 0) throw new ConfigError(problems.join("\n"));
  return plan;
}
