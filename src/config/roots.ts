/**
 * Search roots (spec cli-config §5): NEMO_GYM_EXTRA_ROOTS entries, then the cwd, then (when it
 * exists) the prepared-benchmark cache `gym eval prepare` writes to, then the embedded install root; duplicates removed by real path. Relative read paths resolve to the
 * first root where they exist.
 */
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { embeddedRoot, preparedRoot } from "../assets/embedded.ts";
import { readEnv, setEnvVar } from "../env.ts";

/** Options of `searchRoots`. */
export interface RootOptions {
  /** `--search-dir` values; when given they replace NEMO_GYM_EXTRA_ROOTS (D5). */
  searchDirs?: string[];
  /** Working directory (defaults to process.cwd()). */
  cwd?: string;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** The ordered, de-duplicated search roots (absolute real paths), read at call time. */
export async function searchRoots(opts: RootOptions = {}): Promise<string[]> {
  const cwd = opts.cwd ?? process.cwd();
  const extra =
    opts.searchDirs && opts.searchDirs.length > 0
      ? opts.searchDirs
      : (readEnv().extraRoots ?? "").split(":").filter((s) => s !== "");
  const prepared = preparedRoot();
  const candidates = [...extra.map((d) => resolve(cwd, d)), cwd, ...(existsSync(prepared) ? [prepared] : []), await embeddedRoot()];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const c of candidates) {
    const r = real(c);
    if (seen.has(r)) continue;
    seen.add(r);
    out.push(r);
  }
  return out;
}

/**
 * Resolve a read path through the roots: absolute paths unchanged; otherwise the first root
 * where `accept` holds (default: the path exists), else `<first root>/<path>` so errors point at
 * the user's own location (§5.3).
 */
export function resolveInRoots(path: string, roots: string[], accept: (abs: string) => boolean = existsSync): string {
  if (isAbsolute(path)) return path;
  for (const root of roots) {
    const abs = join(root, path);
    if (accept(abs)) return abs;
  }
  return join(roots[0] ?? process.cwd(), path);
}

/** Every root where `path` exists, in priority order, de-duplicated by real path. */
export function findAllInRoots(path: string, roots: string[], accept: (abs: string) => boolean = existsSync): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const root of roots) {
    const abs = join(root, path);
    if (!accept(abs)) continue;
    const r = real(abs);
    if (seen.has(r)) continue;
    seen.add(r);
    out.push(r);
  }
  return out;
}

/**
 * Fold `--search-dir` values into NEMO_GYM_EXTRA_ROOTS for the rest of a command (D5: they
 * replace the previous value, so spawned servers inherit exactly these roots). Returns the
 * function that restores the previous value (or unsets it). No dirs: nothing changes.
 */
export function foldSearchDirs(dirs: string[], cwd: string = process.cwd()): () => void {
  if (dirs.length === 0) return () => {};
  const previous = readEnv().extraRoots;
  setEnvVar("NEMO_GYM_EXTRA_ROOTS", dirs.map((d) => resolve(cwd, d)).join(":"));
  return () => setEnvVar("NEMO_GYM_EXTRA_ROOTS", previous);
}
