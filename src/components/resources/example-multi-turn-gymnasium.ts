/**
 * resources_servers/example_multi_turn_gymnasium: a scripted user. Each step answers the row's next
 * `follow_ups` message; after the last one the episode ends with reward 1 when `expected_answer`
 * (case-insensitive) is in the final reply.
 */
import { extractText, gymnasiumServerApp } from "../../servers/gymnasium.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "ExampleMultiTurnEnv";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "example_multi_turn_gymnasium",
  className: CLASS_NAME,
  async create(ctx) {
    const turns = new Map<string, number>();
    return gymnasiumServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reset(_metadata, { sessionId }) {
        turns.set(sessionId, 0);
        return { observation: null, info: {} };
      },
      step(action, metadata, { sessionId }) {
        const followUps = Array.isArray(metadata.follow_ups) ? (metadata.follow_ups as unknown[]) : [];
        const turn = turns.get(sessionId) ?? 0;
        if (turn < followUps.length) {
          turns.set(sessionId, turn + 1);
          return { observation: String(followUps[turn]), reward: 0.0, terminated: false, truncated: false, info: {} };
        }
        const expected = typeof metadata.expected_answer === "string" ? metadata.expected_answer : "";
        const reward = expected !== "" && extractText(action).toLowerCase().includes(expected.toLowerCase()) ? 1.0 : 0.0;
        return { observation: null, reward, terminated: true, truncated: false, info: {} };
      },
      // Upstream never drops its turn counters (a step after the end without a new reset grades again; here it
      // starts the follow-ups again): dropped at the end so a long run does not grow one entry per episode.
      closeSession: (sid) => void turns.delete(sid),
    });
  },
};
