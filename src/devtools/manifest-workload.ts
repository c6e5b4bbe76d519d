/**
 * Selecting a manifest-backed workload by catalog name (upstream `registry.resolve_catalog_entry`):
 * the environment catalog (environments and benchmarks across the search roots) holds the name
 * once, or once per kind (then `--kind` decides); the entry must have a manifest beside its config.
 */
import { listCatalog, type CatalogEntry } from "../config/catalog.ts";
import { ConfigError } from "../errors.ts";

/** The catalog entry `name` (of `kind`, when given) among environments and benchmarks. */
export function resolveCatalogEntry(name: string, kind: string | undefined, roots: string[]): CatalogEntry {
  if (kind !== undefined && kind !== "environment" && kind !== "benchmark") throw new ConfigError(`Unknown catalog kind '${kind}'.`, { hint: "use --kind environment or --kind benchmark" });
  const matches = listCatalog(["environment", "benchmark"], roots).filter((e) => e.name === name && (kind === undefined || e.kind === kind));
  if (matches.length === 0) {
    throw new ConfigError(`Unknown catalog entry '${name}'${kind ? ` with kind '${kind}'` : ""}.`, { hint: `\`gym list environments\` shows the catalog; a manifest-backed workload lives at environments/${name}/ or benchmarks/${name}/ in a search root (--search-dir DIR)` });
  }
  if (matches.length > 1) throw new ConfigError(`Catalog name '${name}' is ambiguous (${matches.map((e) => e.kind).sort().join(", ")}); specify a kind.`, { hint: "pass --kind environment or --kind benchmark" });
  return matches[0]!;
}

/** The manifest path of an entry; an entry without one is a ConfigError saying where it belongs. */
export function manifestPathOf(e: CatalogEntry, purpose: string): string {
  const path = e.manifest?.manifest_path;
  if (!path) {
    const kind = e.kind.charAt(0).toUpperCase() + e.kind.slice(1);
    throw new ConfigError(`${kind} '${e.name}' has no manifest.yaml. Add one beside '${e.path}' before ${purpose}.`, { hint: `\`gym env init --${e.kind} NAME\` scaffolds a manifest-backed workload; the contract: examples/environment_manifest.yaml upstream` });
  }
  return path;
}
