/**
 * Hugging Face naming of an uploaded dataset (components §4.2): the repo id
 * `{org}/{prefix}-{domain lower}-{dataset_name or resources server}` and the collection slug
 * `{org}/{collection name lowercased, spaces → '-'}-{slug}`. The domain and the resources server
 * come from the resources-server block of `resource_config_path`, loaded through the config
 * pipeline so `config_paths` includes and `_inherit_from` are honoured.
 */
import { existsSync } from "node:fs";
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import { configAccess } from "../config/access.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import { resolveInRoots, searchRoots } from "../config/roots.ts";

/** What the naming needs from a resources-server config. */
export interface ResourcesServerInfo {
  /** Implementation (directory) name of the first resources server in the file. */
  name: string;
  /** Its `domain`, when set. */
  domain: string | undefined;
}

/** Load `resource_config_path` (no-model mode, no env.yaml) and read its first resources server. */
export async function resourcesServerInfo(path: string, cwd?: string): Promise<ResourcesServerInfo> {
  const roots = await searchRoots({ searchDirs: [], cwd });
  if (!existsSync(resolveInRoots(path, roots))) {
    throw new ConfigError(`resource_config_path '${path}' was not found (looked in: ${roots.join(", ")})`, {
      key: "resource_config_path",
      hint: "give the resources server config, e.g. resources_servers/<name>/configs/<name>.yaml, relative to the current directory",
    });
  }
  // Only the resources-server block is read: the pipeline's warnings about the file's other servers
  // (legacy agents, …) concern a run that is not happening.
  const level = log.level;
  log.level = Math.min(level, 0);
  let resolved;
  try {
    resolved = await resolveGlobalConfig({ selectors: { configPaths: [path], searchDirs: [] }, overrides: [], noModel: true, skipEnvYaml: true, offline: true, cwd });
  } finally {
    log.level = level;
  }
  const rs = resolved.servers.find((s) => s.serverType === "resources_servers");
  if (!rs) {
    throw new ConfigError(`resource_config_path '${path}' defines no resources server (a block \`<name>: {resources_servers: {<impl>: …}}\`)`, {
      key: "resource_config_path",
      hint: "point it at a resources server config, e.g. resources_servers/<name>/configs/<name>.yaml",
    });
  }
  const domain = Object.hasOwn(rs.leaf, "domain") ? configAccess(resolved).at([rs.name, rs.serverType, rs.implementation, "domain"]) : undefined;
  return { name: rs.implementation, domain: domain === undefined || domain === null || domain === "" ? undefined : String(domain) };
}

/** The HF repo id of an upload (upstream drops the prefix or domain part when it is empty). */
export function hfRepoId(org: string, prefix: string | undefined, domain: string | undefined, name: string): string {
  const p = prefix ? `${prefix}-` : "";
  const d = domain ? `${domain.toLowerCase()}-` : "";
  return `${org}/${p}${d}${name}`;
}

/** The collection slug the dataset is added to. */
export function hfCollectionSlug(org: string, collectionName: string, slug: string): string {
  return `${org}/${collectionName.toLowerCase().replaceAll(" ", "-")}-${slug}`;
}
