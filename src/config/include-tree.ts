/**
 * The `config_paths` include tree (cli-config §4.2). Entries are root-relative at every depth;
 * the list grows while it is walked (discovery order = the final `config_paths`), and files
 * merge in post-order so an includer beats what it includes and a later sibling beats an
 * earlier sibling's whole subtree. Duplicate nested entries (exact string) are dropped with a
 * warning; a file that includes itself through its own ancestors is an error naming the chain.
 */
import { existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { ConfigError, type SourceLocation } from "../errors.ts";
import { log } from "../log.ts";
import { configNotShippedMessage, notBuiltInMessage, upstreamForPath } from "./external.ts";
import { loadConfigFile, type Layer } from "./load.ts";
import { emptyLayer, mergeInto } from "./merge.ts";
import { locationOf } from "./yaml-locations.ts";

/** Result of loading the include tree. */
export interface IncludeTree {
  /** All files merged in include-tree order. */
  merged: Layer;
  /** Flattened `config_paths` in discovery order (the strings as written). */
  flat: string[];
  /** Nested entries dropped as exact-string duplicates. */
  duplicates: string[];
  /** Absolute real paths of the files, in merge order. */
  files: string[];
}

/**
 * Real paths of config files, with each directory's real path looked up once: a tree of a
 * hundred files in a few directories costs a few realpath calls instead of one per file.
 */
class RealPaths {
  private readonly dirs = new Map<string, string>();

  /** The real path of `p` when it is a file (following symlinks), else undefined. */
  file(p: string): string | undefined {
    let st;
    try {
      st = lstatSync(p);
    } catch {
      return undefined;
    }
    if (st.isFile()) {
      // Not a symlink itself: only its directory can be one.
      const dir = dirname(p);
      let realDir = this.dirs.get(dir);
      if (realDir === undefined) {
        realDir = real(dir);
        this.dirs.set(dir, realDir);
      }
      return join(realDir, basename(p));
    }
    if (!st.isSymbolicLink()) return undefined;
    try {
      return statSync(p).isFile() ? real(p) : undefined;
    } catch {
      return undefined;
    }
  }
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The not-found error of a `config_paths` entry, listing every place looked at. */
export function configPathNotFound(entry: string, roots: string[], location?: SourceLocation): ConfigError {
  const looked = isAbsolute(entry) ? [entry] : roots.map((r) => join(r, entry));
  const up = isAbsolute(entry) ? undefined : upstreamForPath(entry);
  if (up && roots.some((r) => existsSync(join(r, up.kind, up.name)))) return new ConfigError(configNotShippedMessage(entry, up.name), { key: "config_paths", location, code: "E_CONFIG_NOT_SHIPPED" });
  if (up) return new ConfigError(`config_paths entry '${entry}': ${notBuiltInMessage(up.kind, up.name, up.component)}`, { key: "config_paths", location, code: "E_NOT_BUILT_IN" });
  return new ConfigError(
    `config_paths entry '${entry}' was not found. Looked in:\n${looked.map((l) => `  - ${l}`).join("\n")}\n` +
      "Check the path is spelled correctly and is relative to your working directory, an extra root\n" +
      "(NEMO_GYM_EXTRA_ROOTS / --search-dir), or the Gym install root.",
    { key: "config_paths", location, code: "E_CONFIG_PATH_NOT_FOUND" },
  );
}

/** Resolve one entry through the roots to an existing file; `where` is only asked on error. */
function locate(entry: string, roots: string[], reals: RealPaths, where: () => SourceLocation | undefined = () => undefined): string {
  if (isAbsolute(entry)) {
    const found = reals.file(entry);
    if (found !== undefined) return found;
    throw configPathNotFound(entry, roots, where());
  }
  for (const root of roots) {
    const found = reals.file(join(root, entry));
    if (found !== undefined) return found;
  }
  throw configPathNotFound(entry, roots, where());
}

/** The `config_paths` of a loaded file, checked to be a list of strings. */
function nestedPaths(layer: Layer, file: string): { value: string; where: () => SourceLocation | undefined }[] {
  const raw = layer.dict.config_paths;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.some((p) => typeof p !== "string")) {
    throw malformedConfigPaths(raw, locationOf(layer.locs, ["config_paths"]) ?? { file });
  }
  // Positions are looked up only when an error needs one (a lookup may re-read the file).
  return raw.map((p, i) => ({ value: p as string, where: () => locationOf(layer.locs, ["config_paths", String(i)]) }));
}

/** `config_paths` that is not a list of path strings (MalformedConfigPathsError). */
export function malformedConfigPaths(value: unknown, location?: SourceLocation): ConfigError {
  return new ConfigError(
    `'config_paths' must be a list of paths. Got: '${JSON.stringify(value)}'.\n` +
      "Pass each config with --config (it builds the list for you), e.g.:\n" +
      "  gym env start --config resources_servers/<env>/configs/<env>.yaml",
    { key: "config_paths", location, code: "E_MALFORMED_CONFIG_PATHS" },
  );
}

/** Load and merge the include tree rooted at `rootEntries`. */
export function loadIncludeTree(rootEntries: string[], roots: string[]): IncludeTree {
  const paths = [...rootEntries];
  const reals = new RealPaths();
  const files: string[] = rootEntries.map((p) => locate(p, roots, reals));
  const parent: (number | undefined)[] = rootEntries.map(() => undefined);
  const children: number[][] = rootEntries.map(() => []);
  const layers: Layer[] = [];
  const cache = new Map<string, Layer>();
  const duplicates: string[] = [];
  for (let i = 0; i < paths.length; i++) {
    const file = files[i]!;
    let layer = cache.get(file);
    if (!layer) {
      layer = loadConfigFile(file);
      cache.set(file, layer);
    }
    layers[i] = layer;
    for (const { value, where } of nestedPaths(layer, file)) {
      const target = locate(value, roots, reals, where);
      const chain: number[] = [];
      for (let a: number | undefined = i; a !== undefined; a = parent[a]) chain.unshift(a);
      if (chain.some((a) => files[a] === target)) {
        const names = [...chain.map((a) => paths[a]!), value];
        throw new ConfigError(`config_paths cycle: ${names.join(" → ")}`, {
          key: "config_paths",
          location: where(),
          code: "E_CONFIG_PATHS_CYCLE",
          hint: `remove '${value}' from the config_paths of ${file}; a config must not include itself through its own includes`,
        });
      }
      if (paths.includes(value)) {
        duplicates.push(value);
        continue;
      }
      paths.push(value);
      files.push(target);
      parent.push(i);
      children.push([]);
      children[i]!.push(paths.length - 1);
    }
  }
  if (duplicates.length > 0) {
    // Upstream prints this on stdout; gym keeps stdout for data (the resolved YAML).
    log.warn(
      "Found configs that reference the same source config path. Each is loaded once, by its first includer; " +
        "if you meant to reuse a server definition, consider using the `inherit_from` OmegaConf directive e.g. " +
        "'++my_specific_server=${inherit_from:generic_server}'. Duplicate config paths:\n" +
        duplicates.map((d) => `- ${d}`).join("\n"),
    );
  }
  const order: number[] = [];
  const visit = (n: number): void => {
    for (const c of children[n]!) visit(c);
    order.push(n);
  };
  rootEntries.forEach((_, i) => visit(i));
  const merged = emptyLayer();
  const uses = new Map<Layer, number>();
  for (const n of order) uses.set(layers[n]!, (uses.get(layers[n]!) ?? 0) + 1);
  // A file reached through one entry only is merged without copying its (fresh, private) data.
  for (const n of order) mergeInto(merged, layers[n]!, { adopt: uses.get(layers[n]!) === 1 });
  return { merged, flat: paths, duplicates, files: order.map((n) => files[n]!) };
}
