/**
 * The component catalog behind `gym list` and `gym search` (spec cli-config §2.4, §5.4):
 * benchmarks, environments, agents, models and resources servers found across the search
 * roots, an earlier root shadowing a later one by name, with light metadata from the YAML.
 */
import { GymError, EXIT_RUNTIME } from "../errors.ts";
import { closestMatch, similarity } from "../util/similar.ts";
import { CATALOG_KINDS, scanRoot, type CatalogFile, type CatalogKind } from "./_catalog-scan.ts";
import { readCatalogMeta, type CatalogMeta } from "./_catalog-meta.ts";
import { catalogManifest, type CatalogManifest } from "./_catalog-manifest.ts";

export { CATALOG_KINDS, type CatalogKind } from "./_catalog-scan.ts";

/** One catalog row; `name` is the value the matching selector flag accepts. */
export interface CatalogEntry extends CatalogMeta {
  name: string;
  kind: CatalogKind;
  /** Absolute path of the YAML file. */
  path: string;
  /** The search root it came from. */
  root: string;
  /** Manifest status and metadata (environments and benchmarks only; null for other kinds). */
  manifest?: CatalogManifest | null;
}

/** A kind, or several kinds listed together (the environment catalog holds both bundles). */
export type KindSelection = CatalogKind | readonly CatalogKind[];

/** Singular noun of a kind, as messages print it. */
export const KIND_NOUN: Record<CatalogKind, string> = {
  benchmark: "benchmark",
  environment: "environment",
  agent: "agent",
  model: "model",
  resources_server: "resources server",
  environment_server: "environment server",
};

/** The `gym list` sub-command of a kind. */
export const KIND_COMMAND: Record<CatalogKind, string> = {
  benchmark: "benchmarks",
  environment: "environments",
  agent: "agents",
  model: "models",
  resources_server: "resources-servers",
  environment_server: "environments",
};

function kindsOf(sel: KindSelection | undefined): CatalogKind[] {
  if (sel === undefined) return [...CATALOG_KINDS];
  return typeof sel === "string" ? [sel] : [...sel];
}

/** The files behind the rows of the selected kinds (shadowed by name per kind), without metadata. */
function scanCatalog(kind: KindSelection, roots: string[]): CatalogFile[] {
  const out: CatalogFile[] = [];
  for (const k of kindsOf(kind)) {
    const seen = new Set<string>();
    for (const root of roots) {
      for (const f of scanRoot(root, k)) {
        if (seen.has(f.name)) continue;
        seen.add(f.name);
        out.push(f);
      }
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : CATALOG_KINDS.indexOf(a.kind) - CATALOG_KINDS.indexOf(b.kind)));
}

function withMeta(f: CatalogFile, roots: string[]): CatalogEntry {
  const manifest = catalogManifest(f);
  const meta = readCatalogMeta(f.path, f.kind, roots);
  // A manifest entry's authored metadata wins over what the config says (upstream registry.py).
  if (manifest?.status === "experimental") {
    meta.domain = manifest.domain ?? meta.domain;
    meta.description = manifest.description ?? meta.description;
  }
  return { name: f.name, kind: f.kind, path: f.path, root: f.root, ...meta, manifest };
}

/** Every row of the selected kinds across `roots` (earlier roots shadow later ones by name), sorted by name. */
export function listCatalog(kind: KindSelection, roots: string[]): CatalogEntry[] {
  return scanCatalog(kind, roots).map((f) => withMeta(f, roots));
}

/** Just the row names of the selected kinds (cheap: no YAML is parsed), e.g. for did-you-mean hints. */
export function catalogNames(kind: KindSelection, roots: string[]): string[] {
  return [...new Set(scanCatalog(kind, roots).map((f) => f.name))];
}

const FUZZY_CUTOFF = 0.7;

/** How well `query` matches one field: 2 substring, ratio ≥ 0.70 against the field or a token, else 0. */
function fieldScore(query: string, field: string | null): number {
  if (field === null || field === "") return 0;
  const f = field.toLowerCase();
  if (f.includes(query)) return 2;
  let best = similarity(query, f);
  for (const tok of f.split(/[_\-\s/]+/)) if (tok !== "") best = Math.max(best, similarity(query, tok));
  return best >= FUZZY_CUTOFF ? best : 0;
}

/**
 * Rows whose name, domain or description matches `query` (§2.4: case-insensitive substring, or
 * ratio ≥ 0.70 to the field or one of its tokens). Name matches rank first, then by closeness.
 */
export function searchCatalog(query: string, kind: KindSelection | undefined, roots: string[]): CatalogEntry[] {
  const q = query.trim().toLowerCase();
  const scored: [CatalogEntry, number][] = [];
  for (const e of listCatalog(kindsOf(kind), roots)) {
    const name = fieldScore(q, e.name);
    const other = Math.max(fieldScore(q, e.domain), fieldScore(q, e.description));
    if (name === 0 && other === 0) continue;
    scored.push([e, name > 0 ? 10 + name : other]);
  }
  // Stable sort keeps name order among equal scores.
  return scored.sort((a, b) => b[1] - a[1]).map(([e]) => e);
}

/** A catalog lookup that found nothing of the wanted kind. Exit 1 (spec §2.4). */
export class CatalogError extends GymError {
  constructor(message: string, hint?: string) {
    super(message, { code: "E_CATALOG", hint, exitCode: EXIT_RUNTIME });
    this.name = "CatalogError";
  }
}

/**
 * The row named `name` among `kind`; otherwise a CatalogError: the wrong-kind message when the
 * name exists as another kind, else `Unknown <type> '<name>'.` with a did-you-mean.
 */
export function findCatalogEntry(name: string, kind: KindSelection, roots: string[], noun?: string): CatalogEntry {
  const wanted = kindsOf(kind);
  const rows = scanCatalog(wanted, roots);
  const hit = rows.find((e) => e.name === name);
  if (hit) return withMeta(hit, roots);
  const type = noun ?? KIND_NOUN[wanted[0]!];
  const other = scanCatalog(
    CATALOG_KINDS.filter((k) => !wanted.includes(k)),
    roots,
  ).find((e) => e.name === name);
  if (other) {
    // Upstream wording, article included (D31: quoted fragments are normative).
    throw new CatalogError(`'${name}' is a ${KIND_NOUN[other.kind]}, not a ${type}. Try \`gym list ${KIND_COMMAND[other.kind]} ${name}\`.`);
  }
  const near = closestMatch(name, rows.map((e) => e.name));
  throw new CatalogError(`Unknown ${type} '${name}'.${near ? ` Did you mean \`${near}\`?` : ""}`, `run \`gym list ${KIND_COMMAND[wanted[0]!]}\` to see what is available`);
}
