/**
 * Server recognition (cli-config §6.2): a non-reserved top-level map with exactly one
 * implementation under a server-type key whose leaf validates. Maps that fail validation but
 * look like servers are "almost-servers" (§6.3), reported by almost-servers.ts.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { formatLocation } from "../errors.ts";
import { log } from "../log.ts";
import { RESERVED_KEYS } from "./global-keys.ts";
import type { Layer } from "./load.ts";
import { isPlainMap } from "./merge.ts";
import { DATASET_TYPES, DOMAINS, INSTANCE_CLASS, LICENSE_SPDX_ALIASES, LICENSES } from "./schema-names.ts";
import { SERVER_TYPES, type ServerInstance, type ServerType } from "./types.ts";
import { check, choiceList, type Problem } from "./validate.ts";
import { locationOf } from "./yaml-locations.ts";

/** A server block that failed validation but looks like a server. */
export interface AlmostServer {
  name: string;
  /** Formatted lines `Class -> type -> impl -> field: message (file:line:col)`. */
  errors: string[];
}

/** Result of server discovery. */
export interface Discovery {
  instances: ServerInstance[];
  almost: AlmostServer[];
}

/**
 * The TypeBox schemas, required on first use: leaves that pass `quickLeafOk` never need them,
 * and loading TypeBox costs a cold `gym env resolve` a few milliseconds.
 */
function schemas(): typeof import("./schema.ts") {
  return require("./schema.ts") as typeof import("./schema.ts");
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

const dirCache = new Map<string, string | undefined>();

/** `<root>/<type>/<impl>` in the first root that has it (looked up once per process and roots). */
export function implementationDir(type: string, impl: string, roots: string[]): string | undefined {
  const key = `${roots.join("\0")}\u0001${type}/${impl}`;
  if (dirCache.has(key)) return dirCache.get(key);
  let found: string | undefined;
  for (const r of roots) {
    const d = join(r, type, impl);
    if (isDir(d)) {
      found = d;
      break;
    }
  }
  dirCache.set(key, found);
  return found;
}

/** Problems of a `datasets:` list, paths relative to the leaf. */
export function datasetProblems(datasets: unknown, warnings: string[]): Problem[] {
  if (!Array.isArray(datasets)) return [];
  const out: Problem[] = [];
  datasets.forEach((item, i) => {
    let d = item;
    const at = ["datasets", String(i)];
    if (!isPlainMap(d)) {
      out.push({ path: at, message: "Input should be a valid dictionary" });
      return;
    }
    const type = d.type;
    if (typeof type !== "string" || !(DATASET_TYPES as readonly string[]).includes(type)) {
      out.push({ path: [...at, "type"], message: type === undefined ? "Field required" : `Input should be ${choiceList(DATASET_TYPES)}` });
      return;
    }
    const name = typeof d.name === "string" ? d.name : `datasets[${i}]`;
    const spdx = typeof d.license === "string" ? LICENSE_SPDX_ALIASES[d.license] : undefined;
    if (spdx !== undefined) {
      warnings.push(`dataset '${name}' spells its license '${d.license}' (an SPDX id); read as '${spdx}' — write that to keep the config valid for upstream too.`);
      d = { ...d, license: spdx };
    }
    const { BenchmarkDataset, DatasetSources, TrainingDataset } = schemas();
    if (type === "benchmark") {
      out.push(...check(BenchmarkDataset, d).map((p) => ({ path: [...at, ...p.path], message: p.message })));
      return;
    }
    out.push(...check(TrainingDataset, d).map((p) => ({ path: [...at, ...p.path], message: p.message })));
    if ((type === "train" || type === "validation") && (d.license === undefined || d.license === null)) {
      out.push({ path: [...at, "license"], message: `A license is required for ${name}` });
    }
    const legacy = ["gitlab_identifier", "huggingface_identifier"].filter((k) => d[k] !== undefined && d[k] !== null);
    const source = d.source;
    if (source !== undefined && source !== null) {
      if (legacy.length > 0) {
        out.push({
          path: [...at, "source"],
          message: `Specify a dataset source once for '${name}': set only one of ['source', '${legacy[0]}']. Prefer the unified \`source:\` block.`,
        });
      } else if (isPlainMap(source)) {
        const branch = DatasetSources[source.type as keyof typeof DatasetSources];
        if (!branch) out.push({ path: [...at, "source", "type"], message: `Input should be ${choiceList(Object.keys(DatasetSources))}` });
        else out.push(...check(branch, source).map((p) => ({ path: [...at, "source", ...p.path], message: p.message })));
      }
    } else if (legacy.length > 0) {
      warnings.push(`dataset '${name}' uses the deprecated ${legacy.join(" and ")}; prefer the unified \`source:\` block.`);
    }
  });
  return out;
}

const DOMAIN_SET: ReadonlySet<unknown> = new Set(DOMAINS);
const LICENSE_SET: ReadonlySet<unknown> = new Set(LICENSES);
const isInt = (v: unknown): boolean => typeof v === "number" && Number.isInteger(v);
const absent = (v: unknown): boolean => v === undefined || v === null;

/** A dataset item that certainly validates (a strict subset of the schema checks). */
function quickDatasetOk(d: unknown): boolean {
  if (!isPlainMap(d) || typeof d.name !== "string" || typeof d.jsonl_fpath !== "string") return false;
  if (!(d.num_repeats === undefined || (isInt(d.num_repeats) && (d.num_repeats as number) >= 1))) return false;
  if (d.type === "benchmark") return typeof d.prepare_script === "string" && (absent(d.prompt_config) || typeof d.prompt_config === "string");
  if (d.type !== "example" && d.type !== "train" && d.type !== "validation") return false;
  if (!(absent(d.license) ? d.type === "example" : LICENSE_SET.has(d.license))) return false;
  return absent(d.source) && absent(d.gitlab_identifier) && absent(d.huggingface_identifier);
}

/**
 * A leaf that certainly validates, checked by hand: the common case then skips the schema
 * interpreter, whose cold start dominates a CLI run. Anything unusual falls through to the
 * TypeBox schemas, which stay the single source of truth for what is valid and for messages.
 */
export function quickLeafOk(type: ServerType, leaf: Record<string, unknown>): boolean {
  if (typeof leaf.entrypoint !== "string") return false;
  if (!(absent(leaf.host) || typeof leaf.host === "string")) return false;
  if (!(absent(leaf.port) || isInt(leaf.port))) return false;
  if (!(absent(leaf.num_workers) || (isInt(leaf.num_workers) && (leaf.num_workers as number) >= 1))) return false;
  if (leaf.domain === undefined ? type === "resources_servers" : !DOMAIN_SET.has(leaf.domain)) return false;
  const ds = leaf.datasets;
  return absent(ds) || (Array.isArray(ds) && ds.every(quickDatasetOk));
}

/** Problems of one `<type>: {<impl>: leaf}` entry, paths relative to the instance map. */
export function typeProblems(type: ServerType, impls: unknown, warnings: string[]): Problem[] {
  if (!isPlainMap(impls)) return [{ path: [type], message: "Input should be a valid dictionary" }];
  const names = Object.keys(impls);
  if (names.length !== 1) {
    return [{ path: [type], message: `Expected exactly one implementation, found ${names.length}${names.length ? ` (${names.join(", ")})` : ""}` }];
  }
  const impl = names[0]!;
  const leaf = impls[impl];
  if (!isPlainMap(leaf)) return [{ path: [type, impl], message: "Input should be a valid dictionary" }];
  if (quickLeafOk(type, leaf)) return [];
  const out = check(schemas().ServerLeaf, leaf);
  if (type === "resources_servers" && leaf.domain === undefined) out.push({ path: ["domain"], message: "Field required" });
  out.push(...datasetProblems(leaf.datasets, warnings));
  return out.map((p) => ({ path: [type, impl, ...p.path], message: p.message }));
}

/** A map "looks like a server": a server-type key holding a map with a child map that has `entrypoint`. */
export function looksLikeServer(value: Record<string, unknown>): boolean {
  return SERVER_TYPES.some((t) => {
    const impls = value[t];
    return isPlainMap(impls) && Object.values(impls).some((leaf) => isPlainMap(leaf) && "entrypoint" in leaf);
  });
}

/** Validate one top-level entry as a server instance. */
export function validateInstance(name: string, value: unknown, roots: string[]): { instance?: ServerInstance; problems: Problem[]; warnings: string[] } {
  const warnings: string[] = [];
  if (!isPlainMap(value)) return { problems: [], warnings };
  const types = Object.keys(value).filter((k): k is ServerType => (SERVER_TYPES as readonly string[]).includes(k));
  const problems: Problem[] = [];
  for (const type of types) {
    const w: string[] = [];
    const p = typeProblems(type, value[type], w);
    if (p.length === 0) {
      const impls = value[type] as Record<string, Record<string, unknown>>;
      const implementation = Object.keys(impls)[0]!;
      return {
        instance: { name, serverType: type, implementation, leaf: impls[implementation]!, dir: implementationDir(type, implementation, roots), generated: false },
        problems: [],
        warnings: w,
      };
    }
    problems.push(...p);
  }
  return { problems, warnings };
}

/** Find every server instance and almost-server among the non-reserved top-level keys. */
export function discoverServers(layer: Layer, roots: string[]): Discovery {
  const instances: ServerInstance[] = [];
  const almost: AlmostServer[] = [];
  for (const [name, value] of Object.entries(layer.dict)) {
    if (RESERVED_KEYS.has(name) || !isPlainMap(value)) continue;
    const { instance, problems, warnings } = validateInstance(name, value, roots);
    if (instance) {
      for (const w of warnings) log.warn(`server '${name}': ${w}`);
      instances.push(instance);
      continue;
    }
    if (problems.length === 0 || !looksLikeServer(value)) continue;
    almost.push({
      name,
      errors: problems.map((p) => {
        const cls = INSTANCE_CLASS[p.path[0]!] ?? "ServerInstanceConfig";
        const loc = locationOf(layer.locs, [name, ...p.path]);
        return `${[cls, ...p.path].join(" -> ")}: ${p.message}${loc ? ` (${formatLocation(loc)})` : ""}`;
      }),
    });
  }
  return { instances, almost };
}
