/**
 * `gym env validate NAME | --manifest P` (upstream `nemo_gym/environment/validation.py`): static
 * validation of a manifest-backed workload, without starting anything — the manifest contract, its
 * place in the catalog, the mirror of the resolved `config.yaml` beside it (`--sync` rewrites only the
 * mirrored fields, atomically), the benchmark prompt contract, and every dataset it names (rows are JSON
 * objects; an empty or missing file is an error naming the command that makes it).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { loadManifest, type EnvironmentManifest, type ManifestDataset } from "../config/manifest.ts";
import { composition, differences, render, type Composition } from "../config/manifest-composition.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import { ConfigError } from "../errors.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { yamlLib } from "../config/yaml-lib.ts";

/** One validated dataset. */
export interface DatasetReport {
  name: string;
  type: string;
  path: string;
  rows: number;
  prompt_config: string | null;
}

/** What a successful validation found (the `--json` answer). */
export interface ManifestReport {
  name: string;
  version: string;
  kind: string;
  declared_profile: string;
  inferred_profile: string;
  profile_evidence: string;
  manifest_path: string;
  config_path: string;
  datasets: DatasetReport[];
  synchronized_fields: string[];
  warnings: string[];
}

/** A workload that failed static validation (exit 2, like every config error). */
export class EnvironmentValidationError extends ConfigError {
  constructor(message: string, hint?: string) {
    super(message, { code: "E_ENV_VALIDATION", hint });
    this.name = "EnvironmentValidationError";
  }
}

const CATALOG_DIRS = { environments: "environment", benchmarks: "benchmark" } as const;

/** The catalog folder (`environments/` or `benchmarks/`) a manifest lives under, if any. */
function catalogDir(manifestPath: string): string | undefined {
  for (let d = dirname(manifestPath); d !== dirname(d); d = dirname(d)) if (basename(d) in CATALOG_DIRS) return d;
  return undefined;
}

/** Find `<root>/{environments,benchmarks}/<name>/manifest.yaml` in the search roots. */
export function findManifest(name: string, kind: string | undefined, roots: string[]): string {
  const dirs = kind === "benchmark" ? ["benchmarks"] : kind === "environment" ? ["environments"] : ["environments", "benchmarks"];
  for (const r of roots) for (const d of dirs) if (existsSync(join(r, d, name, "manifest.yaml"))) return join(r, d, name, "manifest.yaml");
  throw new EnvironmentValidationError(`No manifest-backed workload '${name}': looked for ${dirs.map((d) => `${d}/${name}/manifest.yaml`).join(" and ")} in ${roots.join(", ")}`, "pass --manifest PATH, or --search-dir DIR holding environments/<name>/manifest.yaml");
}

function locate(p: string, base: string, roots: string[]): string {
  if (isAbsolute(p)) return p;
  for (const c of [resolve(p), join(base, p), ...roots.map((r) => join(r, p))]) if (existsSync(c)) return c;
  return resolve(p);
}

function countRows(d: ManifestDataset, path: string): number {
  if (!existsSync(path) || statSync(path).isDirectory()) {
    const how = d.type === "benchmark" ? `prepare it: gym eval prepare (its prepare_script is ${d.prepare_script})` : d.type === "example" ? "commit the example rows" : "download it: gym dataset download";
    throw new EnvironmentValidationError(`Dataset '${d.name}' (${d.type}) was not found at ${path}`, how);
  }
  let rows = 0;
  readFileSync(path, "utf8").split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (e) {
      throw new EnvironmentValidationError(`Dataset '${path}' line ${i + 1} is not valid JSON: ${(e as Error).message}`);
    }
    if (!row || typeof row !== "object" || Array.isArray(row)) throw new EnvironmentValidationError(`Dataset '${path}' line ${i + 1} must contain a JSON object.`);
    rows++;
  });
  if (rows === 0) throw new EnvironmentValidationError(`Dataset '${path}' is empty.`);
  return rows;
}

/** Rewrite only the mirrored fields of the manifest file (comments and order of the rest kept). */
function syncFile(path: string, changes: Record<string, unknown>): void {
  const { parseDocument } = yamlLib();
  const doc = parseDocument(readFileSync(path, "utf8"));
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) doc.delete(k);
    else doc.set(k, doc.createNode(v));
  }
  writeFileAtomic(path, doc.toString(), statSync(path).mode & 0o777);
}

/** Validate one manifest (and its sibling config.yaml); returns the report or throws a located error. */
export async function validateManifest(opts: { manifestPath: string; sync?: boolean; searchDirs?: string[] }): Promise<ManifestReport> {
  return (await validateWorkload(opts)).report;
}

/** A validated workload: the report plus what later checks (verifier fixture, publication) build on. */
export interface ValidatedWorkload {
  report: ManifestReport;
  manifest: EnvironmentManifest;
  resolved: ResolvedConfig;
  composition: Composition;
}

/** `validateManifest`, keeping the resolved config and composition for the verifier fixture. */
export async function validateWorkload(opts: { manifestPath: string; sync?: boolean; searchDirs?: string[] }): Promise<ValidatedWorkload> {
  const manifestPath = resolve(opts.manifestPath);
  const loaded = loadManifest(manifestPath);
  let m: EnvironmentManifest = loaded.manifest;
  const cat = catalogDir(manifestPath);
  const catalogName = cat ? relative(cat, dirname(manifestPath)) : basename(dirname(manifestPath));
  if (m.name !== catalogName) throw new EnvironmentValidationError(`Manifest identity name '${m.name}' does not match its catalog path '${catalogName}'.`, `rename the folder or set name: ${catalogName}`);
  const expectedKind = cat ? CATALOG_DIRS[basename(cat) as keyof typeof CATALOG_DIRS] : undefined;
  if (expectedKind && m.kind !== expectedKind) throw new EnvironmentValidationError(`Manifest kind '${m.kind}' does not match its location under '${basename(cat!)}/'.`);
  const configPath = join(dirname(manifestPath), "config.yaml");
  if (!existsSync(configPath)) throw new EnvironmentValidationError(`Gym config was not found: ${configPath}`, "a manifest mirrors the config.yaml beside it");
  // As upstream: the catalog's parent is a search root, so the workload's own components resolve.
  const searchDirs = [...(cat ? [dirname(cat)] : []), ...(opts.searchDirs ?? [])];
  const resolved = await resolveGlobalConfig({ selectors: { configPaths: [configPath], searchDirs }, overrides: [], noModel: true, offline: true });
  const comp = composition(resolved, configPath);
  const diff = differences(m as unknown as Record<string, unknown>, comp);
  const synced = Object.keys(diff);
  if (synced.length > 0) {
    if (!opts.sync) {
      const details = synced.map((f) => `  - ${f}: manifest=${render((m as Record<string, unknown>)[f])}, config=${render((diff as Record<string, unknown>)[f])}`).join("\n");
      throw new EnvironmentValidationError(`Manifest composition is stale. Config remains authoritative for mirrored fields:\n${details}`, "run `gym env validate … --sync` to update only these fields");
    }
    syncFile(manifestPath, diff as Record<string, unknown>);
    m = loadManifest(manifestPath).manifest; // the synced file must still honour the contract
  }
  if (m.kind === "benchmark") {
    const bad = m.datasets.filter((d) => d.type === "benchmark" && d.prompt_config && d.prompt_config !== m.standard_prompt_config).map((d) => d.name);
    if (bad.length) throw new EnvironmentValidationError(`Benchmark dataset prompt_config must match standard_prompt_config for: ${bad.join(", ")}`);
  }
  const datasets: DatasetReport[] = m.datasets.map((d) => {
    const path = locate(d.jsonl_fpath, dirname(manifestPath), resolved.roots);
    const prompt = d.type === "benchmark" ? (d.prompt_config ?? m.standard_prompt_config ?? null) : (d.prompt_config ?? null);
    if (d.type === "benchmark" && prompt === null) throw new EnvironmentValidationError(`Benchmark dataset '${d.name}' has no prompt_config and the manifest has no standard_prompt_config.`);
    if (prompt !== null && !existsSync(locate(prompt, dirname(manifestPath), resolved.roots))) throw new EnvironmentValidationError(`Dataset '${d.name}': prompt_config ${prompt} was not found`);
    return { name: d.name, type: d.type, path, rows: countRows(d, path), prompt_config: prompt };
  });
  const [inferred, evidence] = comp.rollout_driver ? ["external-rollout-driver", "rollout_collection_driver is configured"] : comp.agent_server === "simple_agent" ? ["custom-gym-verifier", "selected agent implementation is simple_agent"] : ["unknown", `agent '${comp.agent_server}' is not inspected statically by gym`];
  const warnings = inferred === "unknown" ? [`Could not infer integration_profile (${evidence}); declared profile is '${m.integration_profile}'.`] : inferred !== m.integration_profile ? [`Declared integration_profile '${m.integration_profile}' differs from the inferred '${inferred}' (${evidence}).`] : [];
  const report = { name: m.name, version: m.version, kind: m.kind, declared_profile: m.integration_profile, inferred_profile: inferred, profile_evidence: evidence, manifest_path: manifestPath, config_path: configPath, datasets, synchronized_fields: synced, warnings };
  return { report, manifest: m, resolved, composition: comp };
}
