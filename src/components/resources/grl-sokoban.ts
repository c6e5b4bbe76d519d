/**
 * resources_servers/grl_sokoban (Gymnasium style, with gymnasium_agent): one move per turn
 * (`<action>Up</action>` …, or a bare direction word / digit 1–4) on verify/games/sokoban.ts. Config
 * `env_config` (upstream's default below, replaced whole when set) and per-row overrides of its keys;
 * the row's `seed` makes the room reproducible (same seed, same room as upstream).
 */
import { HttpError } from "../../runtime/http/http-types.ts";
import { extractText, gymnasiumServerApp } from "../../servers/gymnasium.ts";
import { pyRegex } from "../../util/py-regex.ts";
import { pyStrRepr } from "../../util/py-repr.ts";
import { pyStrip } from "../../util/py-str.ts";
import { globalRngs, SokobanGame } from "../../verify/games/sokoban.ts";
import { obj } from "../_support.ts";
import { DoneSessions, entropySeed, integerSeed, labelLookup } from "./_games.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "GrlSokobanResourcesServer";
const DEFAULT_GRID = { 0: "#", 1: "_", 2: "O", 3: "√", 4: "X", 5: "P", 6: "S" };
const DEFAULT_ACTIONS = { 1: "Up", 2: "Down", 3: "Left", 4: "Right" };
const DEFAULT_ENV_CONFIG = { grid_lookup: DEFAULT_GRID, action_lookup: DEFAULT_ACTIONS, search_depth: 100, dim_room: [6, 6], max_steps: 100, num_boxes: 1, render_mode: "text" };
const TAG = pyRegex("<action>\\s*(up|down|left|right|[1-4])\\s*</action>", { ignoreCase: true });
const WORD = pyRegex("\\b(up|down|left|right|[1-4])\\b", { ignoreCase: true });
const OVERRIDES = ["grid_lookup", "action_lookup", "search_depth", "dim_room", "max_steps", "num_boxes", "render_mode"];

interface Session {
  game: SokobanGame;
  lookup: Map<number, string>;
  observation: string;
  totalReward: number;
  done: boolean;
  lastInfo: Record<string, unknown>;
}

function format(observation: string): string {
  return `Sokoban board:\n${observation}\n\nLegend: #=wall, _=floor, O=target, X=box, √=box on target, P=player, S=player on target.\nRespond with exactly one move using <action>Up</action>, <action>Down</action>, <action>Left</action>, or <action>Right</action>.`;
}

/** Upstream `_parse_action`: the first action tag, else the first direction word or digit 1–4; 400 when none or unknown. */
export function sokobanAction(text: string, lookup: Map<number, string>): number {
  const t = pyStrip(text);
  // Python's Unicode `\s` and `\b` (a letter such as é is a word character there).
  const m = TAG.search(t) ?? WORD.search(t);
  if (!m) throw new HttpError(400, `Unable to parse action from response: ${pyStrRepr(t)}`);
  const token = m[1]!.trim();
  if (/^\d+$/.test(token)) {
    const id = Number(token);
    if (lookup.has(id)) return id;
    throw new HttpError(400, `Invalid action identifier: ${id}`);
  }
  const reverse = new Map([...lookup].map(([id, label]) => [label.toLowerCase(), id]));
  const id = reverse.get(token.toLowerCase());
  if (id === undefined) throw new HttpError(400, `Invalid action identifier: ${token}`);
  return id;
}

function int(v: unknown, fallback: number): number {
  return typeof v === "number" && Number.isInteger(v) ? v : fallback;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "grl_sokoban",
  className: CLASS_NAME,
  async create(ctx) {
    const base = obj(ctx, "env_config") ?? DEFAULT_ENV_CONFIG;
    const global = globalRngs(entropySeed());
    // Upstream's retry seed after a failed generation is a salted hash; any seed derived from the first is as good.
    const fallback = (seed: bigint | null) => (seed === null ? null : (seed * 2654435761n + 97n) % 2n ** 32n);
    const sessions = new DoneSessions<Session>();
    return gymnasiumServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reset(metadata, { sessionId }) {
        const cfg: Record<string, unknown> = { ...base };
        for (const k of OVERRIDES) if (k in metadata) cfg[k] = metadata[k];
        const dim = Array.isArray(cfg.dim_room) && cfg.dim_room.length === 2 ? (cfg.dim_room as number[]) : [6, 6];
        if (!dim.every((d) => Number.isInteger(d) && d >= 3 && d <= 64)) throw new HttpError(400, `dim_room must be two integers between 3 and 64, got ${JSON.stringify(cfg.dim_room)}`);
        const game = new SokobanGame(
          { gridLookup: labelLookup(cfg.grid_lookup, DEFAULT_GRID), dimRoom: [dim[0]!, dim[1]!], maxSteps: int(cfg.max_steps, 100), numBoxes: int(cfg.num_boxes, 1), searchDepth: int(cfg.search_depth, 300) },
          global,
          fallback,
        );
        const observation = game.reset(integerSeed(metadata.seed));
        sessions.set(sessionId, { game, lookup: labelLookup(cfg.action_lookup, DEFAULT_ACTIONS), observation, totalReward: 0, done: false, lastInfo: {} });
        return { observation: format(observation), info: {} };
      },
      step(action, _metadata, { sessionId }) {
        const s = sessions.get(sessionId);
        if (!s) throw new HttpError(400, "Session not initialized. Call /reset first.");
        if (s.done) return { observation: s.observation, reward: 0.0, terminated: true, truncated: false, info: { ...s.lastInfo } };
        const id = sokobanAction(extractText(action), s.lookup);
        const r = s.game.step(id);
        s.totalReward += r.reward;
        s.observation = r.observation;
        s.lastInfo = { ...r.info, action_id: id, action_label: s.lookup.get(id), total_reward: s.totalReward };
        s.done = r.done;
        return { observation: s.done ? r.observation : format(r.observation), reward: r.reward, terminated: s.done, truncated: false, info: { ...s.lastInfo } };
      },
      closeSession: (sid) => sessions.finish(sid),
    });
  },
};
