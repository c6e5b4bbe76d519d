/**
 * The `type: benchmark` dataset of a benchmark config, read from the YAML without running the
 * config pipeline (its server configs may not be built in yet), plus the resources server it
 * names through `config_paths`.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { ConfigError } from "../errors.ts";

/** The benchmark dataset block and where it sits. */
export interface BenchmarkDataset {
  agent: string;
  name: string;
  jsonlFpath: string;
  prepareScript: string | undefined;
  promptConfig: string | undefined;
  numRepeats: number;
  /**
   * The resources server implementation from `config_paths` (`resources_servers/<impl>/…`), else
   * from the agent's `resources_server.name` when the file defines that instance itself (aalcr).
   */
  server: string | undefined;
  /** The `config_paths` entry that brings in that server. */
  serverConfig: string | undefined;
}

type Map = Record<string, unknown>;
const isMap = (v: unknown): v is Map => typeof v === "object" && v !== null && !Array.isArray(v);

/** The implementation of the resources server instance `ref.name` when this file defines it. */
function inlineServer(doc: Map, ref: unknown): string | undefined {
  const inst = isMap(ref) && typeof ref.name === "string" ? doc[ref.name] : undefined;
  const impls = isMap(inst) && isMap(inst.resources_servers) ? Object.keys(inst.resources_servers) : [];
  return impls.length === 1 ? impls[0] : undefined;
}

/** Read the single benchmark dataset of `path`; undefined when the file declares none itself. */
export function readBenchmarkDataset(path: string): BenchmarkDataset | undefined {
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ConfigError(`${path}: cannot read the benchmark config (${(e as Error).message.split("\n")[0]})`, { location: { file: path } });
  }
  if (!isMap(doc)) return undefined;
  const includes = Array.isArray(doc.config_paths) ? doc.config_paths.filter((p): p is string => typeof p === "string") : [];
  const serverConfig = includes.find((p) => /(^|\/)resources_servers\/[^/]+\//.test(p));
  const server = serverConfig ? /(?:^|\/)resources_servers\/([^/]+)\//.exec(serverConfig)![1] : undefined;
  const found: BenchmarkDataset[] = [];
  for (const [inst, v] of Object.entries(doc)) {
    if (!isMap(v) || !isMap(v.responses_api_agents)) continue;
    for (const leaf of Object.values(v.responses_api_agents)) {
      if (!isMap(leaf) || !Array.isArray(leaf.datasets)) continue;
      for (const d of leaf.datasets) {
        if (!isMap(d) || d.type !== "benchmark") continue;
        found.push({
          agent: inst,
          name: String(d.name ?? inst),
          jsonlFpath: String(d.jsonl_fpath ?? ""),
          prepareScript: typeof d.prepare_script === "string" ? d.prepare_script : undefined,
          promptConfig: typeof d.prompt_config === "string" ? d.prompt_config : undefined,
          numRepeats: typeof d.num_repeats === "number" ? d.num_repeats : 1,
          server: server ?? inlineServer(doc, leaf.resources_server),
          serverConfig,
        });
      }
    }
  }
  if (found.length > 1) throw new ConfigError(`${path}: ${found.length} benchmark datasets; exactly one is allowed per benchmark config`, { location: { file: path } });
  const d = found[0];
  if (d && d.jsonlFpath === "") throw new ConfigError(`${path}: benchmark dataset '${d.name}' has no jsonl_fpath`, { location: { file: path } });
  return d;
}
