/**
 * What `gym list benchmarks` adds to a catalog row (issue 12): the backing resources server and
 * whether it is built in, the source(s), and whether (and how many rows) it is prepared locally.
 */
import { existsSync, readFileSync } from "node:fs";
import type { CatalogEntry } from "../config/catalog.ts";
import { resolveInRoots } from "../config/roots.ts";
import { readBenchmarkDataset } from "./dataset-block.ts";
import { loadPreparer, preparerNameOfScript } from "./registry.ts";
import { sourceLabel, sourceName } from "./types.ts";

/** The benchmark columns of one row. */
export interface BenchmarkInfo {
  /** Resources server implementation from the config's `config_paths`. */
  server: string | null;
  /** `built in`, `external` (a config of it exists in a search root), or `server not built in yet`. */
  server_status: string | null;
  /** Where the data comes from (built-in preparer sources, else the prepare script). */
  source: string | null;
  /** The names `--data-dir DIR/<benchmark>/` must hold (built-in preparers). */
  files: string | null;
  /** Absolute path of the prepared JSONL when it exists in a search root. */
  prepared: string | null;
  /** Rows of the prepared JSONL. */
  rows: number | null;
}

/** The text `gym eval run` and the listing use for a benchmark whose server is missing. */
export const SERVER_NOT_BUILT = "server not built in yet";

function countRows(path: string): number {
  let n = 0;
  for (const l of readFileSync(path, "utf8").split("\n")) if (l.trim() !== "") n++;
  return n;
}

/** Benchmark columns for one catalog row; `isBuiltin(impl)` says whether a resources server is built in. */
export async function benchmarkInfo(e: CatalogEntry, roots: string[], isBuiltin: (impl: string) => boolean): Promise<BenchmarkInfo> {
  const info: BenchmarkInfo = { server: null, server_status: null, source: null, files: null, prepared: null, rows: null };
  let d;
  try {
    d = readBenchmarkDataset(e.path);
  } catch {
    return info;
  }
  if (!d) return info;
  info.server = d.server ?? null;
  if (d.server) {
    info.server_status = isBuiltin(d.server) ? "built in" : d.serverConfig && existsSync(resolveInRoots(d.serverConfig, roots)) ? "external" : SERVER_NOT_BUILT;
  }
  const builtin = d.prepareScript ? preparerNameOfScript(d.prepareScript) : undefined;
  const script = d.prepareScript ? resolveInRoots(d.prepareScript, roots) : undefined;
  if (builtin && !(script && existsSync(script))) {
    const p = (await loadPreparer(builtin))!;
    info.source = p.unsupported !== undefined ? `${d.prepareScript} (upstream's, under Python)` : p.sources.map(sourceLabel).join(", ");
    info.files = p.sources
      .map((s) => `${p.name}/${sourceName(s)}${s.kind === "hf-parquet" ? "/*.parquet" : s.kind === "hf-parquet-configs" ? ` + ${p.name}/<config>/${s.split}/*.parquet` : ""}`)
      .join(", ");
  } else if (d.prepareScript) info.source = d.prepareScript;
  const jsonl = resolveInRoots(d.jsonlFpath, roots);
  if (existsSync(jsonl)) {
    info.prepared = jsonl;
    info.rows = countRows(jsonl);
  }
  return info;
}
