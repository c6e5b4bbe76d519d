/** responses_api_agents/gymnasium_agent: the reset/step loop of servers/gymnasium-agent.ts. */
import { ConfigError } from "../../errors.ts";
import { gymnasiumAgentApp, type GymnasiumAgentConfig } from "../../servers/gymnasium-agent.ts";
import { clientsFor, refName } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "GymnasiumAgent";

/** `max_steps`: upstream's `Field(10, ge=1)`. */
function maxSteps(ctx: Pick<ComponentContext, "instanceName" | "config">): number {
  const v = ctx.config.max_steps;
  if (v === undefined || v === null) return 10;
  const n = typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1) {
    throw new ConfigError(`${ctx.instanceName}: max_steps must be an integer ≥ 1, got ${JSON.stringify(v)}`, { key: `${ctx.instanceName}.responses_api_agents.gymnasium_agent.max_steps`, hint: "set max_steps to the most model calls one episode may take (default 10)" });
  }
  return n;
}

function config(ctx: ComponentContext): GymnasiumAgentConfig {
  return { resourcesServer: refName(ctx, "resources_server"), modelServer: refName(ctx, "model_server"), maxSteps: maxSteps(ctx) };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_agents",
  implementation: "gymnasium_agent",
  className: CLASS_NAME,
  checkConfig: (ctx) => void maxSteps(ctx),
  async create(ctx) {
    return gymnasiumAgentApp({ className: CLASS_NAME, instanceName: ctx.instanceName, config: config(ctx), client: clientsFor(ctx).inner });
  },
};
