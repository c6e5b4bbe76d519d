/**
 * Where rollouts go: a row's agent name → the environment server that fronts it (D1,
 * runtime §10.1, §11.4). Built from a merged config (serve mode) or the head server's config
 * (`--no-serve`), so the driver core only ever sees this small interface.
 */
import { ConfigError } from "../errors.ts";
import { configAccess } from "../config/access.ts";
import type { ConfigDict } from "../config/types.ts";
import { poolMetrics } from "../runtime/http/pool-metrics.ts";

/** One `/run` destination. */
export interface RunTarget {
  /** Instance name of the server that receives `/run` (stamped as `_ng_environment_server`). */
  server: string;
  /** Implementation key (stamped as `_ng_result_type`), e.g. `legacy_agent`. */
  implementation: string;
  /** Full URL of its `/run`. */
  runUrl: string;
  /** Base URL (for `/aggregate_metrics`). */
  baseUrl: string;
  /** True when the server takes the native episode envelope (§10.2) instead of a flat row. */
  native: boolean;
}

/** Resolves a row's agent (or explicit environment server) to a destination. */
export interface RunTargets {
  /** Destination for an agent name; throws a ConfigError naming the agent when there is none. */
  forAgent(agent: string): RunTarget;
  /** Destination for an explicit `_ng_environment_server` stamp. */
  forServer(server: string): RunTarget;
  /** Agent names known to the config (for did-you-mean and `num_repeats` key checks). */
  agents(): string[];
}

interface Leaf {
  name: string;
  serverType: string;
  implementation: string;
  leaf: Record<string, unknown>;
}

function leaves(dict: ConfigDict): Leaf[] {
  const out: Leaf[] = [];
  for (const [name, v] of Object.entries(dict)) {
    if (!v || typeof v !== "object" || Array.isArray(v)) continue;
    for (const serverType of ["environment_servers", "responses_api_agents"]) {
      const byImpl = (v as Record<string, unknown>)[serverType];
      if (!byImpl || typeof byImpl !== "object" || Array.isArray(byImpl)) continue;
      const entries = Object.entries(byImpl as Record<string, unknown>);
      if (entries.length !== 1) continue;
      const [implementation, leaf] = entries[0]!;
      if (leaf && typeof leaf === "object" && !Array.isArray(leaf)) out.push({ name, serverType, implementation, leaf: leaf as Record<string, unknown> });
    }
  }
  return out;
}

/** A leaf value with `${…}` references resolved against the whole config (values may be interpolated). */
function leafValue(dict: ConfigDict, l: Leaf, key: string): unknown {
  return configAccess({ dict }).at([l.name, l.serverType, l.implementation, key]);
}

function addressOf(dict: ConfigDict, l: Leaf): { baseUrl: string; host: string; port: number } {
  const rawHost = leafValue(dict, l, "host");
  const host = typeof rawHost === "string" && rawHost !== "" ? rawHost : "127.0.0.1";
  const port = Number(leafValue(dict, l, "port"));
  if (!Number.isInteger(port) || port <= 0) {
    throw new ConfigError(`server '${l.name}' has no port in the config`, {
      key: `${l.name}.${l.serverType}.${l.implementation}.port`,
      hint: "are its servers running? start them with `gym env start` (or drop --no-serve)",
    });
  }
  const h = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return { baseUrl: `http://${h}:${port}`, host, port };
}

function toTarget(dict: ConfigDict, l: Leaf): RunTarget {
  const { baseUrl, host, port } = addressOf(dict, l);
  // The driver's pool metrics name this destination by its server (§14).
  poolMetrics.nameDestination(host, port, l.name);
  // Agents reached directly (a config with no environment servers at all) and legacy_agent relays take flat rows.
  const native = l.serverType === "environment_servers" && l.implementation !== "legacy_agent";
  return { server: l.name, implementation: l.implementation, runUrl: `${baseUrl}/run`, baseUrl, native };
}

/** Build the routing table from a merged config dict. */
export function targetsFromConfig(dict: ConfigDict): RunTargets {
  const all = leaves(dict);
  const envs = all.filter((l) => l.serverType === "environment_servers");
  const agents = all.filter((l) => l.serverType === "responses_api_agents");
  const byAgent = new Map<string, Leaf[]>();
  for (const e of envs) {
    const ref = e.leaf.agent_server as Record<string, unknown> | undefined;
    const agent = ref && typeof ref.name === "string" ? ref.name : undefined;
    if (!agent) continue;
    byAgent.set(agent, [...(byAgent.get(agent) ?? []), e]);
  }
  const cache = new Map<string, RunTarget>();
  return {
    forAgent(agent) {
      const hit = cache.get(agent);
      if (hit) return hit;
      const fronting = byAgent.get(agent) ?? [];
      let target: RunTarget;
      if (fronting.length > 1) {
        throw new ConfigError(`AmbiguousEnvironmentServerError: agent '${agent}' is fronted by several environment servers: ${fronting.map((f) => f.name).join(", ")}`, {
          hint: "keep exactly one environment server per agent",
        });
      } else if (fronting.length === 1) {
        target = toTarget(dict, fronting[0]!);
      } else {
        const a = agents.find((l) => l.name === agent);
        if (!a) {
          const known = agents.map((l) => l.name);
          throw new ConfigError(`No agent named '${agent}' in the running config (AgentWithoutEnvironmentServerError)`, {
            hint: known.length > 0 ? `known agents: ${known.join(", ")}` : "the config defines no agents; check --config / the head server",
          });
        }
        // No environment server fronts it (an upstream 0.5.1 head): send /run to the agent itself, as upstream did.
        target = toTarget(dict, a);
      }
      cache.set(agent, target);
      return target;
    },
    forServer(server) {
      const hit = cache.get(`\0${server}`);
      if (hit) return hit;
      const l = envs.find((e) => e.name === server) ?? agents.find((e) => e.name === server);
      if (!l) throw new ConfigError(`_ng_environment_server '${server}' is not a server of the running config`, { hint: `known: ${envs.map((e) => e.name).join(", ")}` });
      const t = toTarget(dict, l);
      cache.set(`\0${server}`, t);
      return t;
    },
    agents: () => agents.map((l) => l.name),
  };
}
