/**
 * Write a new resources server directory (upstream `ng_init_resources_server`, components §1.1).
 * The target is a write path, relative to the cwd (cli-config §5.3); an existing folder is left
 * untouched, as upstream (`Folder already exists: <abs>. Exiting init.`, exit 0).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { UsageError } from "../errors.ts";
import { scaffoldFiles } from "./scaffold-files.ts";

/** What the scaffold did. */
export interface ScaffoldResult {
  /** Absolute target directory. */
  dir: string;
  /** False when the folder already existed (nothing written). */
  created: boolean;
  /** Files written, relative to `dir`. */
  files: string[];
}

/** A server name that works as a YAML key, a directory and a Python module path. */
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Scaffold `entrypoint` (e.g. `resources_servers/my_server`) under `cwd`. */
export function scaffoldResourcesServer(entrypoint: string, cwd: string): ScaffoldResult {
  const dir = resolve(cwd, entrypoint);
  const name = basename(dir);
  if (!NAME_RE.test(name)) {
    throw new UsageError(`gym env init: error: invalid resources server name '${name}': use letters, digits and '_' (it becomes a config key and a directory name)`);
  }
  if (existsSync(dir)) return { dir, created: false, files: [] };
  const files = scaffoldFiles(name);
  for (const [rel, text] of Object.entries(files)) {
    const path = join(dir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return { dir, created: true, files: Object.keys(files) };
}
