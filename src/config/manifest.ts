/**
 * The environment manifest contract (upstream `nemo_gym/environment/manifest.py`, issue 20 §4):
 * a strict schema for `manifest.yaml` plus the cross-field rules (profile requirements, benchmark
 * requirements, unique names, ordered reward range, SPDX-style licensing), and a loader whose every
 * error names `file:line:col` and the field.
 */
import { existsSync, readFileSync } from "node:fs";
import Type, { type Static } from "typebox";
import { ConfigError, type SourceLocation } from "../errors.ts";
import { DOMAINS } from "./schema-names.ts";
import { check } from "./validate.ts";
import { locationOf, locTree, type LocNode } from "./yaml-locations.ts";
import { yamlLib } from "./yaml-lib.ts";

const NonEmpty = Type.String({ minLength: 1, pattern: "\\S" });
const SOURCE_PATTERN = "^(?:(?:https?|ssh|git|file)://\\S+|[^@\\s]+@[^:\\s]+:\\S+)$";
const CALLABLE_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$";

/** Manifest enums (values as upstream's StrEnums). */
export const PROFILES = ["custom-gym-verifier", "custom-gym-agent-loop", "external-agent-loop", "external-rollout-driver"] as const;
const KINDS = ["environment", "benchmark"] as const;
const DATASET_KINDS = ["train", "validation", "example", "benchmark"] as const;

const strict = <T extends Parameters<typeof Type.Object>[0]>(props: T) => Type.Object(props, { additionalProperties: false });

/** One dataset entry of a manifest. */
export const ManifestDataset = strict({
  name: NonEmpty,
  type: Type.Enum([...DATASET_KINDS]),
  jsonl_fpath: NonEmpty,
  prepare_script: Type.Optional(Type.Union([NonEmpty, Type.Null()])),
  prompt_config: Type.Optional(Type.Union([NonEmpty, Type.Null()])),
  num_repeats: Type.Optional(Type.Integer({ minimum: 1 })),
});
/** One dataset entry of a manifest. */
export type ManifestDataset = Static<typeof ManifestDataset>;

/** The whole manifest (authored metadata plus a mirror of the resolved composition). */
export const EnvironmentManifest = strict({
  name: NonEmpty,
  version: NonEmpty,
  kind: Type.Enum([...KINDS]),
  integration_profile: Type.Enum([...PROFILES]),
  domain: Type.Enum([...DOMAINS]),
  description: NonEmpty,
  modality: NonEmpty,
  licensing: Type.Optional(NonEmpty),
  authors: Type.Array(NonEmpty, { minItems: 1 }),
  reward: strict({ range: Type.Tuple([Type.Number(), Type.Number()]), higher_is_better: Type.Boolean() }),
  determinism: Type.Optional(Type.Enum(["seeded", "stochastic", "unknown"])),
  resources_server: NonEmpty,
  agent_server: NonEmpty,
  datasets: Type.Array(ManifestDataset, { minItems: 1 }),
  model_server: Type.Optional(Type.Union([NonEmpty, Type.Null()])),
  rollout_driver: Type.Optional(Type.Union([Type.String({ pattern: CALLABLE_PATTERN }), Type.Null()])),
  grading_mode: Type.Optional(Type.Union([NonEmpty, Type.Null()])),
  session_model: Type.Optional(Type.Union([Type.Enum(["episode", "step"]), Type.Null()])),
  state: Type.Optional(Type.Union([Type.Enum(["none", "per_session"]), Type.Null()])),
  sandbox: Type.Optional(Type.Union([NonEmpty, Type.Null()])),
  canonical_split: Type.Optional(Type.Union([NonEmpty, Type.Null()])),
  standard_prompt_config: Type.Optional(Type.Union([NonEmpty, Type.Null()])),
  adopted_from: Type.Optional(Type.Union([strict({ source: Type.String({ pattern: SOURCE_PATTERN }), ref: Type.String({ pattern: "^\\S+$" }), reconciled: Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" }) }), Type.Null()])),
  lifecycle: Type.Optional(Type.Enum(["active", "deprecated"])),
});
/** The whole manifest. */
export type EnvironmentManifest = Static<typeof EnvironmentManifest>;

const PROFILE_REQUIRES: Record<(typeof PROFILES)[number], (keyof EnvironmentManifest)[]> = {
  "custom-gym-verifier": ["model_server"],
  "custom-gym-agent-loop": ["model_server"],
  "external-agent-loop": [],
  "external-rollout-driver": ["rollout_driver"],
};
const PRIVATE_LICENSES = new Set(["internal", "proprietary", "unknown"]);
// An SPDX license expression's shape: identifiers (incl. LicenseRef-…) joined by AND/OR/WITH, parentheses.
const SPDX_TOKEN = /^(?:\(|\)|AND|OR|WITH|[A-Za-z0-9][A-Za-z0-9.+-]*)$/;

/** Whether `v` is an SPDX-shaped expression (or one of upstream's private values). */
export function validLicensing(v: string): boolean {
  if (PRIVATE_LICENSES.has(v)) return true;
  const tokens = v.replace(/([()])/g, " $1 ").trim().split(/\s+/);
  let depth = 0;
  let expectId = true;
  for (const t of tokens) {
    if (!SPDX_TOKEN.test(t)) return false;
    if (t === "(") {
      if (!expectId) return false;
      depth++;
    } else if (t === ")") {
      if (expectId || --depth < 0) return false;
    } else if (t === "AND" || t === "OR" || t === "WITH") {
      if (expectId) return false;
      expectId = true;
    } else {
      if (!expectId) return false;
      expectId = false;
    }
  }
  return depth === 0 && !expectId;
}

/** Cross-field rules of the contract: (path, message) pairs, empty when the manifest is sound. */
export function contractProblems(m: EnvironmentManifest): { path: string[]; message: string }[] {
  const out: { path: string[]; message: string }[] = [];
  const missing = PROFILE_REQUIRES[m.integration_profile].filter((f) => m[f] === undefined || m[f] === null);
  if (m.kind === "benchmark") for (const f of ["canonical_split", "standard_prompt_config"] as const) if (m[f] === undefined || m[f] === null) missing.push(f);
  if (missing.length) out.push({ path: [], message: `manifest requires: ${[...new Set(missing)].join(", ")}` });
  if (m.integration_profile !== "external-rollout-driver" && m.rollout_driver) out.push({ path: ["rollout_driver"], message: "rollout_driver is only valid for the external-rollout-driver profile" });
  if (new Set(m.datasets.map((d) => d.name)).size !== m.datasets.length) out.push({ path: ["datasets"], message: "dataset names must be unique" });
  if (new Set(m.authors).size !== m.authors.length) out.push({ path: ["authors"], message: "authors must be unique" });
  if (m.kind === "benchmark" && !m.datasets.some((d) => d.type === "benchmark")) out.push({ path: ["datasets"], message: "a benchmark manifest requires a benchmark dataset" });
  m.datasets.forEach((d, i) => {
    if (d.type === "benchmark" && !d.prepare_script) out.push({ path: ["datasets", String(i)], message: "a benchmark dataset requires: prepare_script" });
  });
  if (!(m.reward.range[0] < m.reward.range[1])) out.push({ path: ["reward", "range"], message: "reward.range must be ordered with lower < upper" });
  if (!m.reward.range.every(Number.isFinite)) out.push({ path: ["reward", "range"], message: "reward.range must hold finite numbers" });
  if (m.licensing !== undefined && !validLicensing(m.licensing.trim())) out.push({ path: ["licensing"], message: "licensing must be an SPDX license expression, internal, proprietary, or unknown" });
  return out;
}

/** A manifest that could not be read, parsed or validated: every problem with file:line:col and field. */
export class ManifestError extends ConfigError {
  constructor(message: string, location?: SourceLocation) {
    super(message, { code: "E_MANIFEST", location, hint: "see the manifest contract: `gym env validate --help`; an example: https://github.com/NVIDIA-NeMo/Gym/blob/main/examples/environment_manifest.yaml" });
    this.name = "ManifestError";
  }
}

/** A loaded, valid manifest with where it came from. */
export interface LoadedManifest {
  path: string;
  manifest: EnvironmentManifest;
  /** Positions of its values, for later cross-checks against the resolved config. */
  loc: LocNode;
}

/** Read and validate `path`; a ManifestError lists every problem as `file:line:col: field: message`. */
export function loadManifest(path: string): LoadedManifest {
  if (!existsSync(path)) throw new ManifestError(`Environment manifest '${path}' was not found.`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ManifestError(`Could not read environment manifest '${path}': ${(e as Error).message}`);
  }
  const { LineCounter, parseDocument } = yamlLib();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true });
  if (doc.errors.length > 0) {
    const pos = doc.errors[0]!.linePos?.[0];
    throw new ManifestError(`Malformed YAML in environment manifest '${path}'${pos ? ` at line ${pos.line}, column ${pos.col}` : ""}: ${doc.errors[0]!.message.split("\n")[0]}`, pos ? { file: path, line: pos.line, col: pos.col } : { file: path });
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (e) {
    throw new ManifestError(`Invalid environment manifest '${path}': ${(e as Error).message}`, { file: path });
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new ManifestError(`Invalid environment manifest '${path}': expected a YAML mapping.`, { file: path });
  const loc = locTree(doc.contents, { file: path, text, lineCounter, doc });
  const problems = check(EnvironmentManifest, data);
  if (problems.length === 0) problems.push(...contractProblems(data as EnvironmentManifest));
  if (problems.length > 0) {
    const lines = problems.map((p) => {
      const at = locationOf(loc, p.path);
      const where = at?.line ? `${path}:${at.line}:${at.col ?? 1}` : path;
      return `  - ${where}: ${p.path.join(".") || "manifest"}: ${p.message}`;
    });
    throw new ManifestError(`Invalid environment manifest '${path}':\n${lines.join("\n")}`, locationOf(loc, problems[0]!.path) ?? { file: path });
  }
  return { path, manifest: data as EnvironmentManifest, loc };
}
