/**
 * resources_servers/grl_tetris (Gymnasium style, with gymnasium_agent): one or more
 * `<action>Left|Right|Down</action>` moves per turn on verify/games/tetris.ts. Config `env_config`
 * (upstream's default below, replaced whole when set) and per-row overrides of its keys; the row's
 * `seed` seeds the pieces. Like upstream, the piece weights also depend on the unseeded reset each
 * new game makes first, so a seed fixes the first board but not always the whole game.
 */
import { HttpError } from "../../runtime/http/http-types.ts";
import { extractText, gymnasiumServerApp } from "../../servers/gymnasium.ts";
import { PyRandom } from "../../util/py-random.ts";
import { pyRegex } from "../../util/py-regex.ts";
import { TetrisGame } from "../../verify/games/tetris.ts";
import { obj } from "../_support.ts";
import { entropySeed, integerSeed, labelLookup, DoneSessions } from "./_games.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "GrlTetrisResourcesServer";
const DEFAULT_ENV_CONFIG = { grid_lookup: { 0: "_", 1: "#", 2: "X" }, action_lookup: { 0: "Left", 1: "Right", 2: "Down" }, render_mode: "text", dim_x: 4, dim_y: 4, box_type: 3 };
const TAGS = pyRegex("<action>\\s*(left|right|down|[0-2])\\s*</action>", { ignoreCase: true });
const OVERRIDES = ["grid_lookup", "action_lookup", "render_mode", "dim_x", "dim_y", "box_type"];

interface Session {
  game: TetrisGame;
  lookup: Map<number, string>;
  observation: string;
  totalReward: number;
  done: boolean;
  lastInfo: Record<string, unknown>;
}

function format(observation: string): string {
  return `Tetris board:\n${observation}\n\nLegend: _=empty, #=settled block, X=falling piece.\nRespond with one or more moves using <action>Left</action>, <action>Right</action>, or <action>Down</action>. Multiple action tags in one turn are applied in order.`;
}

/** Upstream `_parse_actions`: every `<action>` tag whose move is in the lookup, in order. */
export function tetrisActions(text: string, lookup: Map<number, string>): number[] {
  const reverse = new Map([...lookup].map(([id, label]) => [label.toLowerCase(), id]));
  const ids: number[] = [];
  for (const m of TAGS.finditer(text)) {
    const token = m[1]!.trim().toLowerCase();
    const id = /^\d+$/.test(token) ? Number(token) : (reverse.get(token) ?? -1);
    if (lookup.has(id)) ids.push(id);
  }
  return ids;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "grl_tetris",
  className: CLASS_NAME,
  async create(ctx) {
    const base = obj(ctx, "env_config") ?? DEFAULT_ENV_CONFIG;
    // Python's process-wide `random`, which upstream's unseeded resets draw from.
    const global = new PyRandom(entropySeed());
    const sessions = new DoneSessions<Session>();
    return gymnasiumServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reset(metadata, { sessionId }) {
        const cfg: Record<string, unknown> = { ...base };
        for (const k of OVERRIDES) if (k in metadata) cfg[k] = metadata[k];
        const game = new TetrisGame({ dim_x: cfg.dim_x as number | undefined, dim_y: cfg.dim_y as number | undefined, box_type: cfg.box_type as number | undefined }, global);
        const observation = game.reset(integerSeed(metadata.seed));
        sessions.set(sessionId, { game, lookup: labelLookup(cfg.action_lookup, DEFAULT_ENV_CONFIG.action_lookup), observation, totalReward: 0, done: false, lastInfo: {} });
        return { observation: format(observation), info: {} };
      },
      step(action, _metadata, { sessionId }) {
        const s = sessions.get(sessionId);
        if (!s) throw new HttpError(400, "Session not initialized. Call /reset first.");
        if (s.done) return { observation: s.observation, reward: 0.0, terminated: true, truncated: false, info: { ...s.lastInfo } };
        const ids = tetrisActions(extractText(action), s.lookup);
        if (ids.length === 0) throw new HttpError(400, "No <action>Left|Right|Down</action> tags found in response.");
        let stepReward = 0.0;
        const applied: Record<string, unknown>[] = [];
        for (const id of ids) {
          const r = s.game.step(id);
          stepReward += r.reward;
          s.totalReward += r.reward;
          s.observation = r.observation;
          s.lastInfo = r.info;
          applied.push({ action_id: id, action_label: s.lookup.get(id), reward: r.reward, info: r.info });
          if (r.done) {
            s.done = true;
            break;
          }
        }
        const info = { ...s.lastInfo, total_reward: s.totalReward, num_actions_applied: applied.length, actions: applied };
        return { observation: s.done ? s.observation : format(s.observation), reward: stepReward, terminated: s.done, truncated: false, info };
      },
      closeSession: (sid) => sessions.finish(sid),
    });
  },
};
