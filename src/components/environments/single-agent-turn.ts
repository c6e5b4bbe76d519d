/** environment_servers/single_agent_turn: the native one-turn episode (runtime.md §10.4). */
import { episodeLimitsFromLeaf } from "../../servers/environment.ts";
import { singleAgentTurnApp } from "../../servers/environment-single-turn.ts";
import { clientsFor, refName } from "../_support.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "SingleAgentTurnEnvironmentServer";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "environment_servers",
  implementation: "single_agent_turn",
  className: CLASS_NAME,
  async create(ctx) {
    const raw = ctx.config.resources_tool_transports;
    // Upstream default: no transports (the agent then gets no tool access).
    const transports = (Array.isArray(raw) ? raw : []) as string[];
    for (const t of transports) {
      if (t !== "direct_http" && t !== "mcp") throw new Error(`${ctx.instanceName}: resources_tool_transports holds "${t}"; allowed: direct_http, mcp`);
    }
    return singleAgentTurnApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      config: {
        resourcesServer: refName(ctx, "resources_server"),
        agentServer: refName(ctx, "agent_server"),
        transports: transports as ("direct_http" | "mcp")[],
        limits: episodeLimitsFromLeaf(ctx.config, ctx.instanceName),
      },
      client: clientsFor(ctx).inner,
    });
  },
};
