/**
 * Generated `legacy_agent` environment servers (D1, cli-config §6.7): every agent that no
 * environment server fronts gets `<agent>__legacy_agent`, which relays `POST /run` to it.
 * Names follow the newest upstream revision and live here only (D2).
 */
import { log } from "../log.ts";
import { isPlainMap } from "./merge.ts";
import type { ConfigDict, ServerInstance } from "./types.ts";

/** Server type key of environment servers. */
export const ENVIRONMENT_SERVERS = "environment_servers";
/** Implementation name of the generated relay. */
export const LEGACY_AGENT = "legacy_agent";
/** Leaf field naming the fronted agent. */
export const AGENT_SERVER_FIELD = "agent_server";

/** Name of the environment server generated for an agent. */
export function legacyAgentName(agent: string): string {
  return `${agent}__${LEGACY_AGENT}`;
}

/** The agents fronted by an environment-server instance. */
function frontedAgent(inst: ServerInstance): string | undefined {
  const ref = inst.leaf[AGENT_SERVER_FIELD];
  return isPlainMap(ref) && ref.type === "responses_api_agents" && typeof ref.name === "string" ? ref.name : undefined;
}

/**
 * Add a generated environment server for every agent without one; returns the generated instances.
 * `shipped(agent)` says the agent comes from one of gym's own built-in configs: those follow upstream's
 * layout (agents without environment servers), and a user cannot act on a deprecation notice about them.
 */
export function addLegacyAgentServers(dict: ConfigDict, instances: ServerInstance[], shipped: (agent: string) => boolean = () => false): ServerInstance[] {
  const fronted = new Set(instances.filter((i) => i.serverType === ENVIRONMENT_SERVERS).map(frontedAgent));
  const generated: ServerInstance[] = [];
  const notices: string[] = [];
  for (const agent of instances.filter((i) => i.serverType === "responses_api_agents")) {
    if (fronted.has(agent.name)) continue;
    let name = legacyAgentName(agent.name);
    while (Object.hasOwn(dict, name)) name = `_${name}`;
    const leaf: Record<string, unknown> = { entrypoint: "app.py", [AGENT_SERVER_FIELD]: { type: "responses_api_agents", name: agent.name } };
    dict[name] = { [ENVIRONMENT_SERVERS]: { [LEGACY_AGENT]: leaf } };
    if (!shipped(agent.name)) notices.push(`Agent '${agent.name}' has no Environment Server; generated legacy_agent '${name}'. This is deprecated — add an environment server to your config.`);
    generated.push({ name, serverType: ENVIRONMENT_SERVERS, implementation: LEGACY_AGENT, leaf, dir: undefined, generated: true });
  }
  // One log call for all of them: a benchmark with many agents should not pay per line.
  // A D16 re-spawned driver resolves the same config again; its parent already said it.
  if (notices.length > 0) log.warn(notices.join("\n"));
  return generated;
}
