/**
 * Named selectors → absolute config paths (cli-config §3.1) in the fixed category order (§3.3):
 * --config (as typed) → --benchmark → --environment → --resources-server → --model-type.
 * `--agent-type` resolves the same way but feeds the agent swap, not config_paths (D7).
 */
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../errors.ts";
import { log } from "../log.ts";
import { configNotShippedMessage, notBuiltInMessage, upstreamForPath } from "./external.ts";
import { closestMatch } from "../util/similar.ts";

/** The selectors a command line named; cli/_flags.ts fills it from the parsed flags. */
export interface SelectorArgs {
  configPaths: string[];
  benchmark?: string;
  environment?: string;
  resourcesServer?: string;
  modelType?: string;
  agentType?: string;
  searchDirs: string[];
}

/** One selector kind: its flag, directory layout and default flavor. */
interface SelectorKind {
  flag: string;
  parent: string;
  subdir: string | undefined;
  /** Flavor used when the value has no `/flavor`; undefined = the name itself. */
  defaultFlavor: string | undefined;
  /** Nested `<parent>/<value>/config.yaml` form allowed (benchmarks, environments). */
  nested: boolean;
  noun: string;
}

/** The selector kinds by their SelectorArgs field. */
export const SELECTOR_KINDS = {
  benchmark: { flag: "--benchmark", parent: "benchmarks", subdir: undefined, defaultFlavor: "config", nested: true, noun: "benchmark" },
  environment: { flag: "--environment", parent: "environments", subdir: undefined, defaultFlavor: "config", nested: true, noun: "environment" },
  resourcesServer: { flag: "--resources-server", parent: "resources_servers", subdir: "configs", defaultFlavor: undefined, nested: false, noun: "resources server" },
  modelType: { flag: "--model-type", parent: "responses_api_models", subdir: "configs", defaultFlavor: undefined, nested: false, noun: "model type" },
  agentType: { flag: "--agent-type", parent: "responses_api_agents", subdir: "configs", defaultFlavor: undefined, nested: false, noun: "agent type" },
} satisfies Record<string, SelectorKind>;

/** The selector fields that become config_paths roots, in the fixed order of §3.3. */
export const SELECTOR_ORDER = ["benchmark", "environment", "resourcesServer", "modelType"] as const;

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function listDir(p: string): string[] {
  try {
    return readdirSync(p).sort();
  } catch {
    return [];
  }
}

/** Every existing file `<root>/<rel>`, de-duplicated by real path, in root order. */
function matches(rel: string, roots: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const root of roots) {
    const abs = join(root, rel);
    if (!isFile(abs)) continue;
    const r = realpathSync(abs);
    if (seen.has(r)) continue;
    seen.add(r);
    out.push(r);
  }
  return out;
}

/** The root-relative path a selector value implies (flat form). */
export function selectorRelPath(kind: SelectorKind, value: string): string {
  const slash = value.indexOf("/");
  const name = slash < 0 ? value : value.slice(0, slash);
  const flavor = slash < 0 ? (kind.defaultFlavor ?? name) : value.slice(slash + 1);
  return kind.subdir ? join(kind.parent, name, kind.subdir, `${flavor}.yaml`) : join(kind.parent, name, `${flavor}.yaml`);
}

/** Benchmark/environment names under every root: `<name>` and grouped `<group>/<name>`. */
function nestedNames(parent: string, roots: string[]): string[] {
  const names = new Set<string>();
  for (const root of roots) {
    const base = join(root, parent);
    for (const d of listDir(base)) {
      if (isFile(join(base, d, "config.yaml"))) names.add(d);
      if (!isDir(join(base, d))) continue;
      for (const inner of listDir(join(base, d))) if (isFile(join(base, d, inner, "config.yaml"))) names.add(`${d}/${inner}`);
    }
  }
  return [...names].sort();
}

function hintFor(kind: SelectorKind, value: string, roots: string[]): string {
  const slash = value.indexOf("/");
  const name = slash < 0 ? value : value.slice(0, slash);
  if (kind.nested) {
    const names = nestedNames(kind.parent, roots);
    const grouped = names.filter((n) => n.startsWith(`${value}/`)).sort((a, b) => a.length - b.length || a.localeCompare(b));
    if (grouped[0]) return `Did you mean \`${grouped[0]}\`?`;
    const near = closestMatch(value, names);
    return near ? `Did you mean \`${near}\`?` : "";
  }
  const configDirs = roots.map((r) => join(r, kind.parent, name, kind.subdir ?? ""));
  const flavors = new Set<string>();
  for (const d of configDirs) for (const f of listDir(d)) if (/\.ya?ml$/.test(f)) flavors.add(f.replace(/\.ya?ml$/, ""));
  if (flavors.size > 0) {
    const wanted = slash < 0 ? name : value.slice(slash + 1);
    const near = closestMatch(wanted, flavors);
    return near ? `Did you mean \`${name}/${near}\`?` : `Available flavors: ${[...flavors].sort().join(", ")}.`;
  }
  const dirs = new Set<string>();
  for (const r of roots) for (const d of listDir(join(r, kind.parent))) if (isDir(join(r, kind.parent, d))) dirs.add(d);
  const near = closestMatch(name, dirs);
  return near ? `Did you mean \`${near}\`?` : "";
}

/** Every selectable name of a kind under all roots (benchmarks/environments: incl. grouped names). */
export function availableNames(kind: SelectorKind, roots: string[]): string[] {
  if (kind.nested) return nestedNames(kind.parent, roots);
  const names = new Set<string>();
  for (const r of roots) {
    for (const d of listDir(join(r, kind.parent))) {
      if (listDir(join(r, kind.parent, d, kind.subdir ?? "")).some((f) => /\.ya?ml$/.test(f))) names.add(d);
    }
  }
  return [...names].sort();
}

/** Resolve one selector value to the absolute real path of its config file (exit 2 when none). */
export function resolveSelector(field: keyof typeof SELECTOR_KINDS, value: string, roots: string[]): string {
  const kind: SelectorKind = SELECTOR_KINDS[field];
  let found: string[] = [];
  if (kind.nested && value.includes("/")) found = matches(join(kind.parent, value, "config.yaml"), roots);
  const rel = selectorRelPath(kind, value);
  if (found.length === 0) found = matches(rel, roots);
  if (found.length === 0) {
    // An upstream component gym does not build in: say so, with the recipe to run it externally (D13).
    const up = upstreamForPath(rel);
    const shipped = up && roots.some((r) => existsSync(join(r, up.kind, up.name)));
    if (up && shipped) throw new UsageError(configNotShippedMessage(rel, up.name), { code: "E_CONFIG_NOT_SHIPPED" });
    if (up) throw new UsageError(notBuiltInMessage(up.kind, up.name, up.component), { code: "E_NOT_BUILT_IN", hint: `built-in ${kind.noun}s: \`gym list ${kind.parent === "responses_api_models" ? "models" : kind.parent === "responses_api_agents" ? "agents" : kind.parent.replace("_", "-")}\`` });
    const searched = [...new Set(roots.map((r) => join(r, kind.parent)).filter((d) => existsSync(d)))];
    const where = searched.length > 0 ? searched.map((d) => `\`${d}\``).join(", ") : roots.map((r) => `\`${join(r, kind.parent)}\``).join(", ");
    const hint = hintFor(kind, value, roots);
    const names = availableNames(kind, roots);
    const shown = names.length > 30 ? `${names.slice(0, 30).join(", ")}, … (${names.length} in all)` : names.join(", ");
    throw new UsageError(
      `\`${kind.flag} ${value}\` was specified which implies config \`${rel}\`, which does not exist.${hint ? ` ${hint}` : ""} See available ${kind.noun} configs in ${where}.`,
      { code: "E_UNKNOWN_SELECTOR", hint: names.length > 0 ? `available ${kind.noun} names: ${shown}` : `no ${kind.noun} configs were found under any search root` },
    );
  }
  if (found.length > 1) {
    log.warn(
      `\`${kind.flag} ${value}\` matches multiple configs; using \`${found[0]}\` from the highest-priority root and ignoring ${found
        .slice(1)
        .map((f) => `\`${f}\``)
        .join(", ")}. Pass \`--config <path>\` to select a different one.`,
    );
  }
  return found[0]!;
}

/** Selector results: the config_paths roots (flag order of §3.3) and the agent-type file. */
export interface ResolvedSelectors {
  configPaths: string[];
  agentTypePath: string | undefined;
  agentTypeName: string | undefined;
}

/** Resolve all selectors of a command line. `--config` paths stay verbatim (resolved as config_paths). */
export function resolveSelectors(sel: SelectorArgs, roots: string[]): ResolvedSelectors {
  const configPaths = [...sel.configPaths];
  for (const field of SELECTOR_ORDER) {
    const v = sel[field];
    if (v !== undefined && v !== "") configPaths.push(resolveSelector(field, v, roots));
  }
  const agent = sel.agentType;
  return {
    configPaths,
    agentTypePath: agent ? resolveSelector("agentType", agent, roots) : undefined,
    agentTypeName: agent ? agent.split("/")[0] : undefined,
  };
}
