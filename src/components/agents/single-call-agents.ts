/**
 * responses_api_agents/non_executing_simple_agent (seeds the session, one model call, tool calls
 * left unexecuted for the verifier) and responses_api_agents/tool_simulation_agent (the same without
 * seeding or cookies), both on servers/single-call-agent.ts.
 */
import { agentConfigFromLeaf } from "../../servers/agent.ts";
import { singleCallAgentApp } from "../../servers/single-call-agent.ts";
import { agentTakesPartInTokenCapture } from "../../servers/token-capture/capture.ts";
import { clientsFor } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { ConfigError } from "../../errors.ts";

function build(ctx: ComponentContext, className: string, seed: boolean) {
  const config = agentConfigFromLeaf(ctx.config, ctx.instanceName);
  if (config.resourcesServer === undefined) throw new ConfigError(`${ctx.instanceName}: resources_server.name is not set`, { key: "resources_server.name", hint: "point it at a resources_servers instance" });
  const tokenCapture = agentTakesPartInTokenCapture(ctx.globalConfig, ctx.config);
  return singleCallAgentApp({ className, instanceName: ctx.instanceName, config: { ...config, resourcesServer: config.resourcesServer, tokenCapture }, client: clientsFor(ctx).inner, seed });
}

/** non_executing_simple_agent. */
export const nonExecutingComponent: BuiltinComponent = {
  serverType: "responses_api_agents",
  implementation: "non_executing_simple_agent",
  className: "NonExecutingSimpleAgent",
  create: async (ctx) => build(ctx, "NonExecutingSimpleAgent", true),
};

/** tool_simulation_agent. */
export const toolSimulationComponent: BuiltinComponent = {
  serverType: "responses_api_agents",
  implementation: "tool_simulation_agent",
  className: "ToolSimulationAgent",
  create: async (ctx) => build(ctx, "ToolSimulationAgent", false),
};
