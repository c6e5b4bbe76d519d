/** environment_servers/single_agent_turn (native episode, runtime.md §10.4) and its flat-row twin single_agent_turn_legacy. */
import type { ComponentContext } from "../registry.ts";
import { episodeLimitsFromLeaf } from "../../servers/environment.ts";
import { singleAgentTurnApp, type SingleTurnOptions } from "../../servers/environment-single-turn.ts";
import { singleAgentTurnLegacyApp } from "../../servers/environment-single-turn-legacy.ts";
import { clientsFor, refName } from "../_support.ts";
import type { BuiltinComponent } from "../registry.ts";
import { ConfigError } from "../../errors.ts";

/** Whether the agent's turn goes to the training-token-capture path: `token_id_capture.enabled` and (`all_agents` or the agent's own `token_id_capture`). */
function tokenCaptureFor(ctx: ComponentContext, agent: string): boolean {
  const block = ctx.globalConfig.token_id_capture as Record<string, unknown> | undefined;
  if (!block || typeof block !== "object" || block.enabled !== true) return false;
  if (block.all_agents === true) return true;
  const top = ctx.globalConfig[agent] as Record<string, Record<string, Record<string, unknown>>> | undefined;
  const leaf = top ? Object.values(Object.values(top)[0] ?? {})[0] : undefined;
  return leaf?.token_id_capture === true;
}

function options(ctx: ComponentContext, className: string): SingleTurnOptions {
  const raw = ctx.config.resources_tool_transports;
  // Upstream default: no transports (the agent then gets no tool access).
  const transports = (Array.isArray(raw) ? raw : []) as string[];
  for (const t of transports) {
    if (t !== "direct_http" && t !== "mcp") throw new ConfigError(`${ctx.instanceName}: resources_tool_transports holds "${t}"; allowed: direct_http, mcp`, { key: "resources_tool_transports", hint: "use direct_http and/or mcp" });
  }
  return {
    className,
    instanceName: ctx.instanceName,
    config: {
      resourcesServer: refName(ctx, "resources_server"),
      agentServer: refName(ctx, "agent_server"),
      transports: transports as ("direct_http" | "mcp")[],
      tokenCapture: tokenCaptureFor(ctx, refName(ctx, "agent_server")),
      limits: episodeLimitsFromLeaf(ctx.config, ctx.instanceName),
    },
    client: clientsFor(ctx).inner,
  };
}

/** single_agent_turn. */
export const component: BuiltinComponent = {
  serverType: "environment_servers",
  implementation: "single_agent_turn",
  className: "SingleAgentTurnEnvironmentServer",
  async create(ctx) {
    return singleAgentTurnApp(options(ctx, "SingleAgentTurnEnvironmentServer"));
  },
};

/** single_agent_turn_legacy. */
export const legacyComponent: BuiltinComponent = {
  serverType: "environment_servers",
  implementation: "single_agent_turn_legacy",
  className: "SingleAgentTurnLegacyEnvironmentServer",
  async create(ctx) {
    return singleAgentTurnLegacyApp(options(ctx, "SingleAgentTurnLegacyEnvironmentServer"));
  },
};
