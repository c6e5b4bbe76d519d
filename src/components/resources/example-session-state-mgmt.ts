/**
 * resources_servers/example_session_state_mgmt: a per-rollout counter seeded by
 * `/seed_session {initial_count}`, changed by `increment_counter`, read by `get_counter_value`;
 * reward 1 when the counter equals `expected_count`. Exercises cookie-keyed session state.
 */
import Type from "typebox";
import { resourcesServerApp, SessionStore } from "../../servers/resources.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "StatefulCounterResourcesServer";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "example_session_state_mgmt",
  className: CLASS_NAME,
  async create(ctx) {
    const counters = new SessionStore<{ count: number }>();
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      seedSchema: { initial_count: Type.Integer() },
      seed: (data, call) => {
        counters.get(call.sessionId, () => ({ count: data.initial_count as number }));
      },
      closeSession: (sessionId) => counters.delete(sessionId),
      tools: {
        increment_counter: {
          schema: Type.Object({ count: Type.Integer() }, { additionalProperties: true }),
          handler: (args, call) => {
            counters.get(call.sessionId, () => ({ count: 0 })).count += args.count as number;
            return { success: true };
          },
        },
        get_counter_value: {
          handler: (_args, call) => ({ count: counters.get(call.sessionId, () => ({ count: 0 })).count }),
        },
      },
      verifySchema: { expected_count: Type.Integer() },
      verify: (body, call) => {
        const state = counters.peek(call.sessionId);
        return { reward: state !== undefined && state.count === body.expected_count ? 1.0 : 0.0 };
      },
    });
  },
};
