/**
 * Settings and database lookup shared by the SQL verifiers (bird_sql, spider2_lite): upstream's keys
 * (`<name>_dir`, `max_concurrency`, `sql_execution_timeout_s`), the directory resolved like
 * upstream's (relative paths against the search roots, where upstream used its repo root), and a
 * RuntimeError naming the key, the path and the command that fetches the databases when none are there.
 * Upstream downloads them at start-up; gym does not download gigabytes behind a server's back.
 */
import { readdirSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { searchRoots } from "../../config/roots.ts";
import { ConfigError, RuntimeError } from "../../errors.ts";
import type { ComponentContext } from "../registry.ts";
import { SqlRunnerPool } from "./_sql-runner.ts";

/** What differs between the two SQL servers' data layouts. */
export interface SqlDataLayout {
  /** The config key naming the download directory (`bird_sql_dir`, `spider2_lite_dir`). */
  dirKey: string;
  /** Upstream's default for it. */
  defaultDir: string;
  /** Where the databases sit under it (`dev_20240627/dev_databases`, `sqlite`). */
  subdir: string;
  /** True when the folder holds the databases upstream's setup checks for. */
  present(dbDir: string): boolean;
  /** The file of one db_id inside the databases folder. */
  dbFile(dbDir: string, dbId: string): string;
  /** The command(s) that fetch the databases into `dir` (upstream's download, step by step). */
  fetchCommand(dir: string): string;
}

/** An instance's SQL settings. */
export interface SqlSettings {
  dir: string;
  maxConcurrency: number;
  timeoutS: number;
}

/** Validate the leaf's keys (also run by checkConfig before any process starts). */
export function sqlSettings(ctx: Pick<ComponentContext, "instanceName" | "config">, layout: SqlDataLayout): SqlSettings {
  const c = ctx.config;
  const bad = (k: string, what: string) => new ConfigError(`${ctx.instanceName}: ${k} must be ${what}, got ${JSON.stringify(c[k])}`, { key: k });
  const dir = c[layout.dirKey] ?? layout.defaultDir;
  if (typeof dir !== "string" || dir === "") throw bad(layout.dirKey, "a directory path");
  const maxConcurrency = c.max_concurrency ?? 32;
  if (typeof maxConcurrency !== "number" || !Number.isInteger(maxConcurrency) || maxConcurrency < 1) throw bad("max_concurrency", "a positive integer");
  const timeoutS = c.sql_execution_timeout_s ?? 30.0;
  if (typeof timeoutS !== "number" || !(timeoutS > 0) || !Number.isFinite(timeoutS)) throw bad("sql_execution_timeout_s", "a positive number of seconds");
  return { dir, maxConcurrency, timeoutS };
}

/** True when at least one `*.sqlite` (not a dot file) is in `dir`. */
export function hasSqliteFile(dir: string): boolean {
  try {
    return readdirSync(dir).some((f) => f.endsWith(".sqlite") && !f.startsWith("."));
  } catch {
    return false;
  }
}

/**
 * The databases folder: an absolute `dir` as is; a relative one under the first search root where the
 * databases exist. A RuntimeError (key, path, fetch command) when none holds them.
 */
export async function locateDatabases(instanceName: string, settings: SqlSettings, layout: SqlDataLayout): Promise<string> {
  const candidates = isAbsolute(settings.dir) ? [settings.dir] : (await searchRoots()).map((r) => join(r, settings.dir));
  for (const base of candidates) {
    const dbDir = join(base, layout.subdir);
    if (layout.present(dbDir)) return dbDir;
  }
  const shown = isAbsolute(settings.dir) ? settings.dir : resolve(settings.dir);
  // The fetch command goes in the message itself: a failed /verify carries the message only.
  throw new RuntimeError(`${instanceName}: no SQLite databases under ${join(shown, layout.subdir)} (${layout.dirKey} = ${settings.dir}${isAbsolute(settings.dir) ? "" : ", looked under every search root"}); fetch them with: ${layout.fetchCommand(shown)}`, {
    code: "E_SQL_DATA",
    hint: `or point ${layout.dirKey} at the folder that holds ${layout.subdir}/`,
  });
}

/** A db_id is a file name, never a path: anything else cannot name a database. */
export function safeDbId(dbId: string): boolean {
  return dbId !== "" && !dbId.includes("/") && !dbId.includes("\\") && !dbId.includes("\0") && dbId !== "." && dbId !== "..";
}

/** The runner pool of one server: at most `max_concurrency` processes, and no more than the cores (at least 2). */
export function sqlPool(settings: SqlSettings): SqlRunnerPool {
  const cores = typeof navigator !== "undefined" ? navigator.hardwareConcurrency || 1 : 1;
  return new SqlRunnerPool({ size: Math.min(settings.maxConcurrency, Math.max(2, cores)) });
}
