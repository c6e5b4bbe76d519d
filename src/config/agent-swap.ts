/**
 * `--agent-type NAME[/flavor]` (D7, cli-config §6.8): swap the harness of every agent that points
 * at a resources server. The new leaf is the `responses_api_agents/<NAME>` leaf of the agent's own
 * config file, overlaid by the kept keys (resources_server, model_server, datasets, host, port).
 * Refused when the resources server pins `allowed_agents` and NAME is not among them.
 */
import { ConfigError } from "../errors.ts";
import { loadConfigFile } from "./load.ts";
import { deepCopy, isPlainMap } from "./merge.ts";
import type { ConfigDict, ServerInstance } from "./types.ts";

const KEPT = ["resources_server", "model_server", "datasets", "host", "port"];

/** The `responses_api_agents/<name>` leaf of an agent config file. */
export function agentLeafFromFile(file: string, name: string): Record<string, unknown> {
  const { dict } = loadConfigFile(file);
  for (const value of Object.values(dict)) {
    if (!isPlainMap(value)) continue;
    const agents = value.responses_api_agents;
    if (isPlainMap(agents) && isPlainMap(agents[name])) return deepCopy(agents[name]);
  }
  throw new ConfigError(`--agent-type ${name}: '${file}' defines no responses_api_agents/${name} server`, {
    location: { file },
    hint: `the agent config must contain a block like \`my_agent: {responses_api_agents: {${name}: {entrypoint: app.py}}}\``,
  });
}

/** Apply the swap to the dict and the instances (in place); returns the names of swapped agents. */
export function swapAgents(dict: ConfigDict, instances: ServerInstance[], name: string, file: string): string[] {
  const rsByName = new Map(instances.filter((i) => i.serverType === "resources_servers").map((i) => [i.name, i]));
  const targets = instances.filter((i) => {
    const ref = i.leaf.resources_server;
    return i.serverType === "responses_api_agents" && isPlainMap(ref) && typeof ref.name === "string";
  });
  if (targets.length === 0) {
    throw new ConfigError(`--agent-type ${name}: no agent in the merged config points at a resources server, so there is nothing to swap`, {
      hint: "select an environment or benchmark (--environment / --benchmark / --config) whose agent has a resources_server",
    });
  }
  for (const agent of targets) {
    const rsName = (agent.leaf.resources_server as { name: string }).name;
    const allowed = rsByName.get(rsName)?.leaf.allowed_agents;
    if (Array.isArray(allowed) && !allowed.includes(name)) {
      throw new ConfigError(`--agent-type ${name} is not allowed for resources server '${rsName}' (allowed_agents: ${allowed.join(", ")}).`, {
        code: "E_AGENT_NOT_ALLOWED",
        hint: `pick one of: ${allowed.join(", ")}`,
      });
    }
  }
  const template = agentLeafFromFile(file, name);
  for (const agent of targets) {
    const leaf = deepCopy(template);
    for (const k of KEPT) if (Object.hasOwn(agent.leaf, k)) leaf[k] = agent.leaf[k];
    const block = dict[agent.name] as Record<string, unknown>;
    block.responses_api_agents = { [name]: leaf };
    agent.implementation = name;
    agent.leaf = leaf;
  }
  return targets.map((t) => t.name);
}
