/**
 * resources_servers/gymnasium: upstream's `GymnasiumServer` base class, which is not a standalone
 * server (its `step` is abstract; upstream cannot start it either). Selecting it is a config error
 * naming the servers built on it; servers/gymnasium.ts is the base those built-ins share.
 */
import { ConfigError } from "../../errors.ts";
import type { BuiltinComponent } from "../registry.ts";

function refuse(instanceName: string): never {
  throw new ConfigError(`${instanceName}: resources_servers/gymnasium is the base class of Gymnasium-style servers, not a server of its own`, {
    key: `${instanceName}.resources_servers.gymnasium`,
    hint: "select a server built on it (blackjack, example_multi_turn_gymnasium, grl_sokoban, grl_tetris) or write your own with /reset and /step",
  });
}

/** The component (its config check refuses it before anything starts). */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "gymnasium",
  className: "GymnasiumServer",
  checkConfig: (ctx) => refuse(ctx.instanceName),
  create: async (ctx) => refuse(ctx.instanceName),
};
