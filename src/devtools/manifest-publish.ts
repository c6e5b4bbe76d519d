/**
 * `gym env publish NAME` (upstream `environment/publication.py`): local publication checks of a
 * manifest-backed workload — static validation, the verifier fixture, no scaffold placeholders left
 * in the authored metadata, and the catalog resolving the name to exactly this manifest as an
 * `experimental` entry. Idempotent: the manifest is the registry record; nothing is committed or pushed.
 */
import { realpathSync } from "node:fs";
import { listCatalog } from "../config/catalog.ts";
import type { EnvironmentManifest } from "../config/manifest.ts";
import { ConfigError } from "../errors.ts";
import { verifyWorkload, type VerifierDeps, type VerifierReport } from "./manifest-verifier.ts";
import { validateWorkload } from "./manifest-validate.ts";

/** The `--json` answer of a successful publication check. */
export interface PublicationReport {
  name: string;
  version: string;
  kind: string;
  status: string;
  manifest_path: string;
  verifier_cases: number;
}

/** A workload that failed a publication check (exit 2 like upstream's ConfigError). */
export class EnvironmentPublicationError extends ConfigError {
  constructor(message: string, hint?: string) {
    super(message, { code: "E_PUBLICATION", hint });
    this.name = "EnvironmentPublicationError";
  }
}

const isPlaceholder = (v: string | null | undefined) => typeof v === "string" && v.trim().toLowerCase().startsWith("todo");

/** Authored fields still holding what `gym env init` wrote (TODO…, licensing unknown). */
export function publicationPlaceholders(m: EnvironmentManifest): string[] {
  const out: string[] = [];
  if (isPlaceholder(m.description)) out.push("description");
  if (m.authors.some(isPlaceholder)) out.push("authors");
  if ((m.licensing ?? "unknown") === "unknown") out.push("licensing");
  if (m.kind === "benchmark") {
    if (isPlaceholder(m.canonical_split)) out.push("canonical_split");
    if (isPlaceholder(m.standard_prompt_config)) out.push("standard_prompt_config");
  }
  return out;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Run every local publication check of the workload whose manifest is `manifestPath`. */
export async function publishWorkload(opts: { manifestPath: string; searchDirs?: string[]; roots: string[] }, deps: VerifierDeps): Promise<{ report: PublicationReport; verifier: VerifierReport }> {
  const validated = await validateWorkload({ manifestPath: opts.manifestPath, searchDirs: opts.searchDirs });
  const verifier = await verifyWorkload({ manifestPath: opts.manifestPath, validated }, deps);
  const m = validated.manifest;
  const placeholders = publicationPlaceholders(m);
  if (placeholders.length) {
    throw new EnvironmentPublicationError(`Replace scaffold placeholders before publishing: ${placeholders.join(", ")}`, `edit ${validated.report.manifest_path} (licensing takes an SPDX expression, internal or proprietary)`);
  }
  if (verifier.name !== m.name || verifier.kind !== m.kind || verifier.cases.length === 0) throw new EnvironmentPublicationError("Verifier report does not describe a passing fixture for this workload.");
  const selected = real(validated.report.manifest_path);
  const matches = listCatalog([m.kind], opts.roots).filter((e) => e.name === m.name && e.kind === m.kind && e.manifest?.manifest_path && real(e.manifest.manifest_path) === selected);
  if (matches.length !== 1) {
    throw new EnvironmentPublicationError(`Catalog did not resolve ${m.kind} '${m.name}' to its exact manifest after publication checks.`, `an earlier search root may shadow it: \`gym list environments ${m.name} --json\` shows which file the name resolves to`);
  }
  const status = matches[0]!.manifest!.status;
  if (status !== "experimental") throw new EnvironmentPublicationError(`Newly published workloads must enter as experimental, observed '${status}'.`);
  return { report: { name: m.name, version: m.version, kind: m.kind, status, manifest_path: selected, verifier_cases: verifier.cases.length }, verifier };
}
