/**
 * resources_servers/blackjack (Gymnasium style, with gymnasium_agent): hit or stand until the hand
 * ends. Like upstream, each episode deals from its own unseeded generator, so rewards are not
 * reproducible across runs (a replay of recorded rollouts cannot match the dealt cards).
 */
import { extractText, gymnasiumServerApp } from "../../servers/gymnasium.ts";
import { PyRandom } from "../../util/py-random.ts";
import { blackjackDecision, blackjackStep, dealBlackjack, type BlackjackState } from "../../verify/games/blackjack.ts";
import type { BuiltinComponent } from "../registry.ts";
import { entropySeed } from "./_games.ts";

const CLASS_NAME = "BlackjackEnv";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "blackjack",
  className: CLASS_NAME,
  async create(ctx) {
    const sessions = new Map<string, BlackjackState>();
    return gymnasiumServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reset(_metadata, { sessionId }) {
        const { state, observation } = dealBlackjack(new PyRandom(entropySeed()));
        sessions.set(sessionId, state);
        return { observation, info: {} };
      },
      step(action, _metadata, { sessionId }) {
        // A step without a reset plays an empty hand, as upstream's `session_state.get(sid, {})` does.
        const state = sessions.get(sessionId) ?? { player: [], dealer: [], rng: new PyRandom(entropySeed()) };
        const r = blackjackStep(state, blackjackDecision(extractText(action)));
        return { ...r, truncated: false };
      },
      closeSession: (sid) => void sessions.delete(sid),
    });
  },
};
