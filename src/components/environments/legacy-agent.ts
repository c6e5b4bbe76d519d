/** environment_servers/legacy_agent: relays `/run` to an agent that has no native environment server (D1). */
import { log } from "../../log.ts";
import { legacyAgentApp, rawRelayOver } from "../../servers/environment-legacy.ts";
import { clientsFor, refName } from "../_support.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "LegacyAgentEnvironmentServer";
const IGNORED = ["max_concurrent_episodes", "queue_timeout_seconds", "default_episode_timeout_seconds", "cleanup_timeout_seconds"];

/** The component. */
export const component: BuiltinComponent = {
  serverType: "environment_servers",
  implementation: "legacy_agent",
  className: CLASS_NAME,
  async create(ctx) {
    const agentServer = refName(ctx, "agent_server");
    // The deprecation warning is printed once by the config step that generates legacy_agent servers (D1).
    const set = IGNORED.filter((k) => ctx.config[k] !== undefined && ctx.config[k] !== null);
    if (set.length > 0) log.warn(`${ctx.instanceName} sets ${set.sort().join(", ")}, which a relay does not enforce. This parameter has no effect.`);
    const { inner, http } = clientsFor(ctx);
    return legacyAgentApp({ className: CLASS_NAME, instanceName: ctx.instanceName, agentServer, client: inner, raw: rawRelayOver(inner, (url, init) => http.exchange(url, init)) });
  },
};
