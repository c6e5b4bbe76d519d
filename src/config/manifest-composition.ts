/**
 * What a manifest mirrors of its workload's resolved config (upstream `validation.py`): the single
 * dataset-bearing agent instance, its resources server and model server, its datasets, the rollout
 * driver and the resources server's grading_mode — compared field by field with the manifest.
 */
import { ConfigError } from "../errors.ts";
import { resolveAt } from "./interpolate.ts";
import type { ManifestDataset } from "./manifest.ts";
import type { ResolvedConfig, ServerInstance } from "./types.ts";

/** The mirrored fields of a manifest, as the config resolves them. */
export interface Composition {
  resources_server: string | null;
  agent_server: string | null;
  model_server: string | null;
  datasets: ManifestDataset[] | null;
  rollout_driver: string | null;
  grading_mode: string | null;
  /** Instance name of the resources server (not mirrored: the verifier fixture runs it). */
  resources_instance: string | null;
}

/** The fields `--sync` may rewrite (config is authoritative for them). */
export const MIRRORED = ["resources_server", "agent_server", "model_server", "datasets", "rollout_driver", "grading_mode"] as const;

type Obj = Record<string, unknown>;

function leafValue(resolved: ResolvedConfig, s: ServerInstance, key: string): unknown {
  return Object.hasOwn(s.leaf, key) ? resolveAt(resolved.dict, [s.name, s.serverType, s.implementation, key]) : undefined;
}

function refName(v: unknown): string | null {
  return v && typeof v === "object" && typeof (v as Obj).name === "string" ? ((v as Obj).name as string) : null;
}

function manifestDataset(d: Obj): ManifestDataset {
  const out: Obj = {};
  for (const k of ["name", "type", "jsonl_fpath", "prepare_script", "prompt_config", "num_repeats"]) if (d[k] !== undefined && d[k] !== null) out[k] = d[k];
  if (out.num_repeats === undefined) out.num_repeats = 1;
  return out as ManifestDataset;
}

/** Resolve the composition of a workload config; exactly one agent instance may carry datasets. */
export function composition(resolved: ResolvedConfig, configPath: string): Composition {
  const agents = resolved.servers.filter((s) => s.serverType === "responses_api_agents" && !s.generated);
  const withData = agents.filter((a) => Array.isArray(leafValue(resolved, a, "datasets")) && (leafValue(resolved, a, "datasets") as unknown[]).length > 0);
  if (withData.length !== 1) {
    const found = withData.map((a) => `${a.name} (${a.implementation})`).join(", ") || "none";
    throw new ConfigError(`Workload config must define exactly one dataset-bearing agent instance; found: ${found}.`, { location: { file: configPath } });
  }
  const agent = withData[0]!;
  const rsName = refName(leafValue(resolved, agent, "resources_server"));
  const rs = resolved.servers.find((s) => s.name === rsName && s.serverType === "resources_servers");
  const grading = rs ? leafValue(resolved, rs, "grading_mode") : undefined;
  const driver = Object.hasOwn(resolved.dict, "rollout_collection_driver") ? resolveAt(resolved.dict, ["rollout_collection_driver"]) : undefined;
  const datasets = (leafValue(resolved, agent, "datasets") as Obj[]).map(manifestDataset);
  return {
    resources_server: rs?.implementation ?? null,
    agent_server: agent.implementation,
    model_server: refName(leafValue(resolved, agent, "model_server")),
    datasets: datasets.length ? datasets : null,
    rollout_driver: typeof driver === "string" && driver !== "" ? driver : null,
    grading_mode: grading === undefined || grading === null ? null : String(grading),
    resources_instance: rs?.name ?? null,
  };
}

/** Sorted-key JSON, as upstream renders a mirrored value in its stale-manifest message. */
export function render(v: unknown): string {
  const sort = (x: unknown): unknown =>
    Array.isArray(x) ? x.map(sort) : x && typeof x === "object" ? Object.fromEntries(Object.keys(x as Obj).sort().map((k) => [k, sort((x as Obj)[k])])) : x;
  return JSON.stringify(sort(v === undefined ? null : v));
}

/** Mirrored fields where the manifest and the config disagree (config value per field). */
export function differences(manifest: Obj, comp: Composition): Partial<Composition> {
  const out: Partial<Composition> = {};
  for (const f of MIRRORED) {
    const m = manifest[f] === undefined ? null : f === "datasets" ? (manifest[f] as Obj[]).map(manifestDataset) : manifest[f];
    if (render(m) !== render(comp[f])) (out as Obj)[f] = comp[f];
  }
  return out;
}
