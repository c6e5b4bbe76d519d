/** responses_api_agents/simple_agent: the tool loop of runtime.md §8. */
import { agentConfigFromLeaf, simpleAgentApp } from "../../servers/agent.ts";
import { agentTakesPartInTokenCapture } from "../../servers/token-capture/capture.ts";
import { clientsFor } from "../_support.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "SimpleAgent";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_agents",
  implementation: "simple_agent",
  className: CLASS_NAME,
  async create(ctx) {
    const config = { ...agentConfigFromLeaf(ctx.config, ctx.instanceName), tokenCapture: agentTakesPartInTokenCapture(ctx.globalConfig, ctx.config) };
    return simpleAgentApp({ className: CLASS_NAME, instanceName: ctx.instanceName, config, client: clientsFor(ctx).inner });
  },
};
