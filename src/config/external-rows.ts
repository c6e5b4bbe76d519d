/**
 * Catalog rows for upstream components gym does not build in, so `gym list` shows the whole upstream
 * library: each marked "external" with the recipe to run upstream's Python server (D13).
 */
import type { CatalogEntry, CatalogKind } from "./catalog.ts";
import { externalRecipe, notBuiltInMessage, upstreamComponent, upstreamNames, type UpstreamKind } from "./external.ts";

/** Where an external row says it lives (the ROOT column). */
export const EXTERNAL_ROOT = "external (upstream NeMo Gym)";

const KIND_OF: Partial<Record<CatalogKind, UpstreamKind>> = {
  resources_server: "resources_servers",
  agent: "responses_api_agents",
  model: "responses_api_models",
  environment: "environments",
};

function row(kind: CatalogKind, up: UpstreamKind, name: string): CatalogEntry {
  const c = upstreamComponent(up, name)!;
  return {
    name,
    kind,
    path: "",
    root: EXTERNAL_ROOT,
    domain: null,
    description: c.port === "no" ? "external only (needs a container, sandbox or GPU service)" : `external: upstream's Python server (not built in; port: ${c.port})`,
    license: null,
    verified: null,
    agent: null,
    num_repeats: null,
    error: null,
  };
}

/** Upstream components of `kinds` missing from `present` (names, or `<name>/<flavor>`), as external rows. */
export function externalRows(kinds: readonly CatalogKind[], present: CatalogEntry[]): CatalogEntry[] {
  const out: CatalogEntry[] = [];
  for (const kind of kinds) {
    const up = KIND_OF[kind];
    if (!up) continue;
    const have = new Set(present.filter((e) => e.kind === kind).map((e) => e.name.split("/")[0]!));
    for (const name of upstreamNames(up)) if (!have.has(name)) out.push(row(kind, up, name));
  }
  return out;
}

/** The external row of one upstream component of those kinds, if upstream ships it. */
export function externalRow(kinds: readonly CatalogKind[], name: string): CatalogEntry | undefined {
  for (const kind of kinds) {
    const up = KIND_OF[kind];
    if (up && upstreamComponent(up, name)) return row(kind, up, name);
  }
  return undefined;
}

/** The recipe and message of an external row (for `--json` and inspection). */
export function externalDetails(e: CatalogEntry): { recipe: string; message: string } | undefined {
  const up = KIND_OF[e.kind];
  if (e.root !== EXTERNAL_ROOT || !up) return undefined;
  const c = upstreamComponent(up, e.name);
  return c ? { recipe: externalRecipe(up, e.name), message: notBuiltInMessage(up, e.name, c) } : undefined;
}
