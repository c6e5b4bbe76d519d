/**
 * The server directories `gym env test` covers without a target (cli-config §5.4: discovery scans
 * every root, an earlier root shadowing a later one by name). A directory counts when it has a
 * README.md (upstream's rule) or a `configs/` folder (gym's built-ins ship no README).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** One resources server directory found in a root. */
export interface FoundServer {
  name: string;
  dir: string;
  root: string;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Every resources server across `roots`, first root wins per name, sorted by name. */
export function discoverResourcesServers(roots: string[]): FoundServer[] {
  return discoverServerDirs("resources_servers", roots);
}

/** Every server directory of one server type across `roots`, first root wins per name, sorted by name. */
export function discoverServerDirs(type: string, roots: string[]): FoundServer[] {
  const seen = new Map<string, FoundServer>();
  for (const root of roots) {
    const base = join(root, type);
    if (!isDir(base)) continue;
    for (const name of readdirSync(base).sort()) {
      const dir = join(base, name);
      if (seen.has(name) || name.includes("pycache") || name.startsWith(".") || !isDir(dir)) continue;
      if (!existsSync(join(dir, "README.md")) && !isDir(join(dir, "configs"))) continue;
      seen.set(name, { name, dir, root });
    }
  }
  return [...seen.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The directory of `resources_servers/<name>` in the first root that has it. */
export function findResourcesServer(name: string, roots: string[]): FoundServer | undefined {
  return findServerDir("resources_servers", name, roots);
}

/** The directory of `<type>/<name>` in the first root that has it. */
export function findServerDir(type: string, name: string, roots: string[]): FoundServer | undefined {
  for (const root of roots) {
    const dir = join(root, type, name);
    if (isDir(dir)) return { name, dir, root };
  }
  return undefined;
}
