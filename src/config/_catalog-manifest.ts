/**
 * Manifest entries of the environment catalog (upstream `registry.py`): a bundle's `config.yaml`
 * with a valid `manifest.yaml` beside it is an `experimental` entry whose metadata (description,
 * domain, version, profile, modality, licensing, lifecycle) comes from the manifest; any other
 * bundle is `no-manifest`. A manifest that does not validate, or whose name or kind disagrees with
 * its catalog path, leaves the row `no-manifest` with the reason (`gym env validate NAME` says more).
 */
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { loadManifest } from "./manifest.ts";
import type { CatalogFile } from "./_catalog-scan.ts";

/** Manifest fields of a catalog row (environments and benchmarks only). */
export interface CatalogManifest {
  /** `experimental` for a valid manifest entry, else `no-manifest`. */
  status: "experimental" | "no-manifest";
  /** The manifest beside the config, when there is one (valid or not). */
  manifest_path: string | null;
  /** Why a manifest beside the config does not make the row a manifest entry. */
  manifest_error: string | null;
  version: string | null;
  integration_profile: string | null;
  modality: string | null;
  licensing: string | null;
  lifecycle: string | null;
  /** Manifest-authored domain and description (they win over the config's). */
  domain: string | null;
  description: string | null;
}

/** The manifest side of one bundle row; null for other kinds. */
export function catalogManifest(f: CatalogFile): CatalogManifest | null {
  if (f.kind !== "environment" && f.kind !== "benchmark") return null;
  const none: CatalogManifest = { status: "no-manifest", manifest_path: null, manifest_error: null, version: null, integration_profile: null, modality: null, licensing: null, lifecycle: null, domain: null, description: null };
  if (basename(f.path) !== "config.yaml") return none;
  const path = join(dirname(f.path), "manifest.yaml");
  if (!existsSync(path)) return none;
  let m;
  try {
    m = loadManifest(path).manifest;
  } catch (e) {
    return { ...none, manifest_path: path, manifest_error: (e as Error).message.split("\n").slice(0, 2).join(" ").trim() };
  }
  if (m.kind !== f.kind) return { ...none, manifest_path: path, manifest_error: `Manifest '${path}' declares kind '${m.kind}', but its catalog path requires '${f.kind}'.` };
  if (m.name !== f.name) return { ...none, manifest_path: path, manifest_error: `Manifest '${path}' declares name '${m.name}', but its catalog path requires '${f.name}'.` };
  return {
    status: "experimental",
    manifest_path: path,
    manifest_error: null,
    version: m.version,
    integration_profile: m.integration_profile,
    modality: m.modality,
    licensing: m.licensing ?? "unknown",
    lifecycle: m.lifecycle ?? "active",
    domain: m.domain,
    description: m.description,
  };
}
