/**
 * Light metadata of a catalog row, read from its YAML without running the config pipeline:
 * domain, description, license, verified (and agent / repeats for benchmarks). Values come from
 * the first server block that declares them, then from the files it includes (`config_paths`).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse } from "yaml";
import { resolveInRoots } from "./roots.ts";
import type { CatalogKind } from "./_catalog-scan.ts";

/** Metadata fields of a catalog row. */
export interface CatalogMeta {
  domain: string | null;
  description: string | null;
  license: string | null;
  verified: boolean | null;
  /** Agent instance that holds the benchmark dataset (benchmarks only). */
  agent: string | null;
  /** `num_repeats` of the benchmark dataset (benchmarks only). */
  num_repeats: number | null;
  /** Why the file could not be read, when it could not. */
  error: string | null;
}

const SERVER_TYPES = ["resources_servers", "responses_api_agents", "responses_api_models", "environment_servers"];
const MAX_INCLUDE_DEPTH = 3;

type Map = Record<string, unknown>;

function isMap(v: unknown): v is Map {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : typeof v === "number" ? String(v) : null;
}

/** Every server leaf of a parsed file: [instance name, server type, leaf], in file order. */
function leaves(doc: Map): [string, string, Map][] {
  const out: [string, string, Map][] = [];
  for (const [inst, v] of Object.entries(doc)) {
    if (!isMap(v)) continue;
    for (const t of SERVER_TYPES) {
      const impls = v[t];
      if (!isMap(impls)) continue;
      for (const leaf of Object.values(impls)) if (isMap(leaf)) out.push([inst, t, leaf]);
    }
  }
  return out;
}

function readYaml(path: string): Map {
  const doc = parse(readFileSync(path, "utf8")) as unknown;
  return isMap(doc) ? doc : {};
}

function emptyMeta(): CatalogMeta {
  return { domain: null, description: null, license: null, verified: null, agent: null, num_repeats: null, error: null };
}

/** Fill missing fields of `meta` from one parsed file (and, recursively, its includes). */
function scan(doc: Map, kind: CatalogKind, meta: CatalogMeta, roots: string[], depth: number, seen: Set<string>): void {
  const ls = leaves(doc);
  // Which server type supplies domain/description/verified for this kind of row.
  const primary = kind === "agent" ? "responses_api_agents" : kind === "model" ? "responses_api_models" : "resources_servers";
  const ordered = [...ls.filter(([, t]) => t === primary), ...ls.filter(([, t]) => t !== primary)];
  for (const [, t, leaf] of ordered) {
    if (meta.domain === null && t === "resources_servers") meta.domain = str(leaf.domain);
    if (meta.description === null && (t === primary || kind === "benchmark" || kind === "environment")) meta.description = str(leaf.description);
    if (meta.verified === null && t === "resources_servers" && (kind === "resources_server" || kind === "benchmark" || kind === "environment")) {
      meta.verified = leaf.verified === true;
    }
    if (meta.license === null) meta.license = str(leaf.license);
  }
  // Dataset licenses (train/validation datasets carry one) when no leaf names a license.
  if (meta.license === null) {
    const licenses = new Set<string>();
    for (const [, , leaf] of ls) {
      if (Array.isArray(leaf.datasets)) for (const d of leaf.datasets) if (isMap(d) && str(d.license)) licenses.add(str(d.license)!);
    }
    if (licenses.size > 0) meta.license = [...licenses].join(", ");
  }
  if (kind === "benchmark" && meta.agent === null) {
    for (const [inst, t, leaf] of ls) {
      if (t !== "responses_api_agents" || !Array.isArray(leaf.datasets)) continue;
      const ds = leaf.datasets.find((d) => isMap(d) && d.type === "benchmark") as Map | undefined;
      if (!ds) continue;
      meta.agent = inst;
      meta.num_repeats = typeof ds.num_repeats === "number" ? ds.num_repeats : 1;
      break;
    }
  }
  if (meta.domain === null && (kind === "benchmark" || kind === "environment")) meta.domain = str(doc.domain);
  if (meta.description === null) meta.description = str(doc.description);
  const includes = Array.isArray(doc.config_paths) ? doc.config_paths.filter((p): p is string => typeof p === "string") : [];
  if (depth >= MAX_INCLUDE_DEPTH || (meta.domain !== null && meta.description !== null)) return;
  for (const inc of includes) {
    if (inc.includes("${")) continue;
    const abs = resolveInRoots(inc, roots);
    if (seen.has(abs)) continue;
    seen.add(abs);
    try {
      scan(readYaml(abs), kind, meta, roots, depth + 1, seen);
    } catch {
      // A broken include only costs metadata here; the config pipeline reports it when the row is used.
    }
  }
}

/** First prose paragraph of a README (headings, badges and code skipped), one line. */
function readmeSummary(dir: string): string | null {
  let text: string;
  try {
    text = readFileSync(join(dir, "README.md"), "utf8");
  } catch {
    return null;
  }
  let inCode = false;
  const para: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("```")) inCode = !inCode;
    if (inCode || line.startsWith("```")) continue;
    if (line === "" || line.startsWith("#") || line.startsWith("![") || line.startsWith("[![") || line.startsWith("<")) {
      if (para.length > 0) break;
      continue;
    }
    para.push(line);
  }
  return para.length > 0 ? para.join(" ") : null;
}

/** The component folder holding a catalog file (`<type>/<name>` for servers, the bundle folder otherwise). */
function componentDir(path: string, kind: CatalogKind): string {
  if (kind === "benchmark" || kind === "environment") return dirname(path);
  let dir = dirname(path);
  while (dir !== dirname(dir) && !dir.endsWith("/configs")) dir = dirname(dir);
  return dirname(dir);
}

/** Read the metadata of one catalog file; a file that does not parse yields `error`. */
export function readCatalogMeta(path: string, kind: CatalogKind, roots: string[]): CatalogMeta {
  const meta = emptyMeta();
  try {
    scan(readYaml(path), kind, meta, roots, 0, new Set([path]));
  } catch (e) {
    meta.error = (e instanceof Error ? e.message : String(e)).split("\n")[0]!;
  }
  if (kind === "resources_server" && meta.verified === null && meta.error === null) meta.verified = false;
  // Many upstream configs carry no description; their README's first paragraph says what they are.
  if (meta.description === null) meta.description = readmeSummary(componentDir(path, kind));
  return meta;
}
