/**
 * Filesystem side of the component catalog: which YAML files under one search root are
 * catalog rows, and under which name (the value a user passes to the matching selector).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** The kinds of catalog rows. */
export const CATALOG_KINDS = ["benchmark", "environment", "agent", "model", "resources_server", "environment_server"] as const;
/** One catalog kind. */
export type CatalogKind = (typeof CATALOG_KINDS)[number];

/** A YAML file that forms a catalog row, before its metadata is read. */
export interface CatalogFile {
  name: string;
  kind: CatalogKind;
  path: string;
  root: string;
}

/** Directory of each kind under a root. */
export const KIND_DIR: Record<CatalogKind, string> = {
  benchmark: "benchmarks",
  environment: "environments",
  agent: "responses_api_agents",
  model: "responses_api_models",
  resources_server: "resources_servers",
  environment_server: "environment_servers",
};

// Folders that hold data, prompts or tooling, never a selectable config.
const SKIP_DIRS = new Set(["data", "prompts", "prompt_templates", "tests", "scripts", "node_modules", "__pycache__", ".venv", "venv"]);
const MAX_DEPTH = 4;

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

function isYaml(f: string): boolean {
  return f.endsWith(".yaml") || f.endsWith(".yml");
}

function stem(f: string): string {
  return f.replace(/\.ya?ml$/, "");
}

/** Cheap prefilter upstream uses for benchmark discovery: a `type: benchmark` node anywhere. */
function mentionsBenchmark(path: string): boolean {
  try {
    return /(^|\n)\s*-?\s*type:\s*["']?benchmark["']?\s*(#.*)?(\n|$)/.test(readFileSync(path, "utf8"));
  } catch {
    return false;
  }
}

/** Cheap test that a YAML defines servers or includes configs (an environment flavor file). */
function looksLikeConfig(path: string): boolean {
  try {
    return /(^|\n)\s*(config_paths|responses_api_models|resources_servers|responses_api_agents|environment_servers)\s*:/.test(readFileSync(path, "utf8"));
  } catch {
    return false;
  }
}

/**
 * Bundles (benchmarks, environments): `<rel>/config.yaml` is named `<rel>` (nested groups
 * allowed); another YAML is named by its path minus `.yaml` when it is a config of that kind.
 */
function scanBundles(root: string, kind: "benchmark" | "environment"): CatalogFile[] {
  const base = join(root, KIND_DIR[kind]);
  const out: CatalogFile[] = [];
  const walk = (dir: string, rel: string[], depth: number) => {
    for (const f of entries(dir)) {
      if (f.startsWith(".")) continue;
      const p = join(dir, f);
      if (isDir(p)) {
        if (depth < MAX_DEPTH && !SKIP_DIRS.has(f)) walk(p, [...rel, f], depth + 1);
        continue;
      }
      // manifest.yaml describes the config.yaml beside it; it is never a row of its own.
      if (!isYaml(f) || rel.length === 0 || f === "manifest.yaml") continue;
      if (f === "config.yaml") out.push({ name: rel.join("/"), kind, path: p, root });
      else if (kind === "benchmark" ? mentionsBenchmark(p) : rel.length === 1 && looksLikeConfig(p)) {
        out.push({ name: [...rel, stem(f)].join("/"), kind, path: p, root });
      }
    }
  };
  if (isDir(base)) walk(base, [], 0);
  return out;
}

/** Servers: `<type dir>/<name>/configs/**.yaml` that define servers, named `<name>` (flavor = name) or `<name>/<flavor>`. */
function scanServers(root: string, kind: "agent" | "model" | "resources_server" | "environment_server"): CatalogFile[] {
  const base = join(root, KIND_DIR[kind]);
  const out: CatalogFile[] = [];
  for (const name of entries(base)) {
    const configs = join(base, name, "configs");
    if (name.startsWith(".") || !existsSync(configs)) continue;
    const walk = (dir: string, rel: string[], depth: number) => {
      for (const f of entries(dir)) {
        if (f.startsWith(".")) continue;
        const p = join(dir, f);
        if (isDir(p)) {
          if (depth < MAX_DEPTH) walk(p, [...rel, f], depth + 1);
        } else if (isYaml(f) && looksLikeConfig(p)) {
          // (a configs/ YAML that defines no servers, e.g. bbq's verifier_prompt_templates.yaml, is data, not a flavor)
          const flavor = [...rel, stem(f)].join("/");
          out.push({ name: flavor === name ? name : `${name}/${flavor}`, kind, path: p, root });
        }
      }
    };
    walk(configs, [], 0);
  }
  return out;
}

/** Every catalog file of `kind` under one root, sorted by name. */
export function scanRoot(root: string, kind: CatalogKind): CatalogFile[] {
  const files = kind === "benchmark" || kind === "environment" ? scanBundles(root, kind) : scanServers(root, kind);
  return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
