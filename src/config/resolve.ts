/**
 * The config pipeline (cli-config §1 step 5): selectors → CLI layer → env.yaml → include tree →
 * merge → bare/`~` overrides → directives → `???` check → dummy folding → server discovery,
 * almost-servers, agent swap, legacy_agent servers, cross-references → network keys → defaults.
 * The result keeps interpolations unresolved (D3); `env resolve` resolves them for printing.
 */
import { realpathSync } from "node:fs";
import { embeddedRoot } from "../assets/embedded.ts";
import { ConfigError } from "../errors.ts";
import { configAccess } from "./access.ts";
import { handleAlmostServers } from "./almost-servers.ts";
import { swapAgents } from "./agent-swap.ts";
import { buildCliLayer } from "./cli-layer.ts";
import { checkCrossRefs } from "./cross-refs.ts";
import { applyDefaults } from "./defaults.ts";
import { applyDirectives } from "./directives.ts";
import { foldDummyModels, noModelInitialDict } from "./dummy-model.ts";
import { loadEnvYaml } from "./env-yaml.ts";
import { loadIncludeTree, malformedConfigPaths } from "./include-tree.ts";
import { resolveAt } from "./interpolate.ts";
import type { Layer } from "./load.ts";
import { emptyLayer, mergeDicts, mergeInto } from "./merge.ts";
import { checkGlobalKeys } from "./global-schema.ts";
import { checkMissing } from "./missing.ts";
import { warnMisspelledKeys } from "./key-typos.ts";
import { checkPoolLimits, checkProxyKeys } from "./network-keys.ts";
import { applyOverride } from "./overrides.ts";
import { addLegacyAgentServers } from "./legacy-agent.ts";
import { searchRoots } from "./roots.ts";
import { resolveSelectors, type SelectorArgs } from "./selectors.ts";
import { discoverServers, implementationDir } from "./servers.ts";
import { mark } from "./stage-timer.ts";
import type { ConfigDict, ResolvedConfig } from "./types.ts";
import { locationOf, setLocAt, type LocNode } from "./yaml-locations.ts";

export type { SelectorArgs } from "./selectors.ts";

/** What to resolve: the command line's selectors and override tokens. */
export interface ResolveRequest {
  selectors: SelectorArgs;
  overrides: string[];
  cwd?: string;
  /** No-model mode (§4.8): placeholder policy values and a dummy model at CLI priority. */
  noModel?: boolean;
  /** Library callers' initial dict, merged under the CLI overrides (§4.1). */
  initialDict?: ConfigDict;
  /** Skip env.yaml entirely. */
  skipEnvYaml?: boolean;
  /** Use this env.yaml instead of searching the roots. */
  envYamlPath?: string;
  /** No DNS lookup (offline resolution, §4.10). */
  offline?: boolean;
}

/** Re-throw a located-less ConfigError that names a key with the key's file position (D12). */
function located<T>(locs: LocNode | undefined, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ConfigError && !err.location && err.key) {
      const location = locationOf(locs, err.key.replace(/\[(\d+)\]/g, ".$1").split("."));
      if (location) throw new ConfigError(err.message, { key: err.key, location, hint: err.hint, code: err.code, cause: err });
    }
    throw err;
  }
}

/** The `config_paths` root list from the env.yaml + CLI merge, interpolations resolved (§4.2). */
function rootConfigPaths(pre: ConfigDict, locs: LocNode | undefined): string[] {
  if (!Object.hasOwn(pre, "config_paths")) return [];
  const value = located(locs, () => resolveAt(pre, ["config_paths"]));
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value) || value.some((p) => typeof p !== "string")) throw malformedConfigPaths(value, locationOf(locs, ["config_paths"]));
  return value as string[];
}

/** Run the whole pipeline and return the merged, validated config. */
export async function resolveGlobalConfig(req: ResolveRequest): Promise<ResolvedConfig> {
  mark("resolve: start");
  const cwd = req.cwd ?? process.cwd();
  const roots = await searchRoots({ searchDirs: req.selectors.searchDirs, cwd });
  const sel = resolveSelectors(req.selectors, roots);
  mark("resolve: roots + selectors");

  const cli = buildCliLayer(sel.configPaths, req.overrides);
  const initial = req.noModel ? mergeDicts(noModelInitialDict(), req.initialDict ?? {}) : (req.initialDict ?? {});
  const cliLayer: Layer = { dict: mergeDicts(initial, cli.layer), locs: { children: new Map() } };
  const envLayer = req.skipEnvYaml ? undefined : loadEnvYaml(roots, req.envYamlPath);

  const pre = emptyLayer();
  if (envLayer) mergeInto(pre, envLayer);
  mergeInto(pre, cliLayer);
  mark("resolve: cli layer + env.yaml");
  const tree = loadIncludeTree(rootConfigPaths(pre.dict, pre.locs), roots);
  mark("resolve: include tree");

  const merged = tree.merged;
  if (envLayer) mergeInto(merged, envLayer);
  mergeInto(merged, cliLayer);
  for (const op of cli.postMerge) {
    located(merged.locs, () => applyOverride(merged.dict, op));
    // The value now comes from the command line, not from a file.
    setLocAt(merged.locs, op.path, undefined);
  }
  if (tree.flat.length > 0) merged.dict.config_paths = tree.flat;

  mark("resolve: merge + overrides");
  applyDirectives(merged);
  mark("resolve: directives");
  checkMissing(merged);
  mark("resolve: ??? check");
  foldDummyModels(merged.dict);

  const dict = merged.dict;
  const config = configAccess({ dict, locate: (path) => locationOf(merged.locs, path) });
  const read = config.read;
  const locate = config.where;

  checkGlobalKeys((key) => Object.hasOwn(dict, key), read, locate);
  mark("resolve: global keys");
  const discovery = discoverServers(merged, roots);
  mark("resolve: server discovery");
  const errorOnAlmost = read("error_on_almost_servers");
  handleAlmostServers(discovery.almost, errorOnAlmost !== false, dict);

  const servers = discovery.instances;
  if (sel.agentTypePath && sel.agentTypeName) {
    for (const name of swapAgents(dict, servers, sel.agentTypeName, sel.agentTypePath)) {
      const s = servers.find((x) => x.name === name)!;
      s.dir = implementationDir(s.serverType, s.implementation, roots);
    }
  }
  mark("resolve: almost-servers + agent swap");
  // Locations carry the search roots' real paths.
  const builtinRoot = `${realpathSync(await embeddedRoot())}/`;
  const shipped = (name: string) => locationOf(merged.locs, [name])?.file.startsWith(builtinRoot) === true;
  for (const g of addLegacyAgentServers(dict, servers, shipped)) servers.push({ ...g, dir: implementationDir(g.serverType, g.implementation, roots) });
  mark("resolve: legacy_agent servers");
  checkCrossRefs(servers, merged.locs);
  checkPoolLimits(read, servers, locate);
  checkProxyKeys(read, locate);
  mark("resolve: cross-refs + network keys");
  warnMisspelledKeys(dict, servers.map((s) => s.name));
  await applyDefaults(dict, servers, { cwd, offline: req.offline, read, locate });
  mark("resolve: defaults");
  return { dict, servers, roots, locate: (path) => locationOf(merged.locs, path) };
}
