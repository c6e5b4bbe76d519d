/**
 * Sokoban room generation as upstream's `grl_sokoban/sokoban_env/generation.py` (gym_sokoban's
 * generator, GRL's fork) does it, draw for draw: Python's `random` (MT19937, init_by_array seeding)
 * for topology and player wandering, numpy's legacy `RandomState` (init_genrand seeding, masked
 * 32-bit rejection for `randint`) for box and player placement, and the depth-first reverse play
 * that pulls the box away from its target. Same seed, same room.
 * Cells: 0 wall, 1 floor, 2 target, 3 box on target, 4 box, 5 player.
 */
import { npRandint } from "../../util/np-random.ts";
import { PyRandom } from "../../util/py-random.ts";

/** A room as rows of cells (`grid[row][col]`). */
export type Grid = number[][];
type Pos = [number, number];

/** Which generator failed: upstream retries with another seed on these (RuntimeError / RuntimeWarning). */
export class RoomGenerationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RoomGenerationError";
  }
}

const CHANGE: Pos[] = [[-1, 0], [1, 0], [0, -1], [0, 1]];
const MASKS: Grid[] = [
  [[0, 0, 0], [1, 1, 1], [0, 0, 0]],
  [[0, 1, 0], [0, 1, 0], [0, 1, 0]],
  [[0, 0, 0], [1, 1, 0], [0, 1, 0]],
  [[0, 0, 0], [1, 1, 0], [1, 1, 0]],
  [[0, 0, 0], [0, 1, 1], [0, 1, 0]],
];
const DIRECTIONS: Pos[] = [[1, 0], [0, 1], [-1, 0], [0, -1]];

/** The two generators upstream seeds together. */
export interface Rngs {
  py: PyRandom;
  np: PyRandom;
}

/** Both generators seeded as `random.seed(seed); np.random.seed(seed)` (numpy takes [0, 2**32)). */
export function seededRngs(seed: bigint): Rngs {
  return { py: new PyRandom(seed), np: PyRandom.fromGenrand(Number(seed & 0xffffffffn)) };
}

const clone = (g: Grid): Grid => g.map((r) => [...r]);
const cellsWhere = (g: Grid, v: number): Pos[] => {
  const out: Pos[] = [];
  g.forEach((row, i) => row.forEach((c, j) => c === v && out.push([i, j])));
  return out;
};

function topology(py: PyRandom, dim: Pos, pChange: number, steps: number): Grid {
  const [dx, dy] = dim;
  let dir = DIRECTIONS[py.randbelow(4)]!;
  const pos: Pos = [1 + py.randbelow(dx - 1), 1 + py.randbelow(dy - 1)];
  const level: Grid = Array.from({ length: dx }, () => new Array<number>(dy).fill(0));
  for (let s = 0; s < steps; s++) {
    if (py.random() < pChange) dir = DIRECTIONS[py.randbelow(4)]!;
    pos[0] = Math.max(Math.min(pos[0] + dir[0], dx - 2), 1);
    pos[1] = Math.max(Math.min(pos[1] + dir[1], dy - 2), 1);
    const mask = MASKS[py.randbelow(MASKS.length)]!;
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) {
      const r = pos[0] - 1 + i;
      const c = pos[1] - 1 + j;
      if (r < dx && c < dy) level[r]![c]! += mask[i]![j]!;
    }
  }
  for (let i = 0; i < dx; i++) for (let j = 0; j < dy; j++) if (level[i]![j]! > 0) level[i]![j] = 1;
  for (let i = 0; i < dx; i++) level[i]![0] = level[i]![dy - 1] = 0;
  for (let j = 0; j < dy; j++) level[0]![j] = level[dx - 1]![j] = 0;
  return level;
}

function placeBoxesAndPlayer(np: PyRandom, room: Grid, numBoxes: number): Grid {
  let free = cellsWhere(room, 1);
  if (free.length <= numBoxes + 1) throw new RoomGenerationError(`Not enough free spots (${free.length}) to place 1 player(s) and ${numBoxes} boxes.`);
  const [pr, pc] = free[npRandint(np, free.length)]!;
  room[pr]![pc] = 5;
  for (let b = 0; b < numBoxes; b++) {
    free = cellsWhere(room, 1);
    const [br, bc] = free[npRandint(np, free.length)]!;
    room[br]![bc] = 2;
  }
  return room;
}

type Mapping = Map<string, Pos>;
const key = (p: Pos) => `${p[0]},${p[1]}`;

function displacement(mapping: Mapping): number {
  let s = 0;
  for (const [target, loc] of mapping) {
    const [tr, tc] = target.split(",").map(Number) as Pos;
    s += Math.abs(loc[0] - tr) + Math.abs(loc[1] - tc);
  }
  return s;
}

function playerOf(state: Grid): Pos {
  return cellsWhere(state, 5)[0]!;
}

function reverseMove(state: Grid, structure: Grid, mapping: Mapping, lastPull: string, action: number): string {
  const p = playerOf(state);
  const ch = CHANGE[action % 4]!;
  const n: Pos = [p[0] + ch[0], p[1] + ch[1]];
  const target = state[n[0]]![n[1]]!;
  if (target !== 1 && target !== 2) return lastPull;
  state[p[0]]![p[1]] = structure[p[0]]![p[1]]!;
  state[n[0]]![n[1]] = 5;
  const box: Pos = [p[0] - ch[0], p[1] - ch[1]];
  const b = state[box[0]]![box[1]]!;
  if (b === 3 || b === 4) {
    state[p[0]]![p[1]] = 3;
    state[box[0]]![box[1]] = structure[box[0]]![box[1]]!;
    for (const [k, loc] of mapping) {
      if (loc[0] === box[0] && loc[1] === box[1]) {
        mapping.set(k, [p[0], p[1]]);
        lastPull = k;
      }
    }
  }
  return lastPull;
}

interface Frame {
  state: Grid;
  mapping: Mapping;
  swaps: number;
  lastPull: string;
  ttl: number;
}

function reversePlaying(start: Grid, structure: Grid, searchDepth: number): { room: Grid; mapping: Mapping } {
  const mapping: Mapping = new Map(cellsWhere(structure, 2).map((p) => [key(p), p] as [string, Pos]));
  const numBoxes = mapping.size;
  const explored = new Set<string>();
  let bestScore = -1;
  let best = { room: clone(start), mapping: new Map(mapping) };
  const stack: Frame[] = [{ state: clone(start), mapping: new Map(mapping), swaps: 0, lastPull: "-1,-1", ttl: searchDepth }];
  while (stack.length > 0) {
    const f = stack.pop()!;
    const ttl = f.ttl - 1;
    if (ttl <= 0 || explored.size >= 300000) continue;
    const hash = f.state.map((r) => r.join("")).join("|");
    if (explored.has(hash)) continue;
    let score = f.swaps * displacement(f.mapping);
    if (cellsWhere(f.state, 2).length !== numBoxes) score = 0;
    if (score > bestScore) {
      best = { room: clone(f.state), mapping: new Map(f.mapping) };
      bestScore = score;
    }
    explored.add(hash);
    for (let action = 0; action < 4; action++) {
      const next = clone(f.state);
      const m = new Map(f.mapping);
      const pull = reverseMove(next, structure, m, f.lastPull, action);
      stack.push({ state: next, mapping: m, swaps: pull !== f.lastPull ? f.swaps + 1 : f.swaps, lastPull: pull, ttl });
    }
  }
  return best;
}

function randomPlayerMovement(py: PyRandom, state: Grid, structure: Grid, moveP: number, continueP: number, maxSteps: number): Grid {
  if (py.random() > moveP) return state;
  let p = playerOf(state);
  const seen = new Set([key(p)]);
  let steps = 0;
  while (steps < maxSteps) {
    const valid: Pos[] = [];
    for (const ch of CHANGE) {
      const n: Pos = [p[0] + ch[0], p[1] + ch[1]];
      const c = state[n[0]]![n[1]]!;
      if ((c === 1 || c === 2) && !seen.has(key(n))) valid.push(n);
    }
    if (valid.length === 0) break;
    const n = valid[py.randbelow(valid.length)]!;
    state[p[0]]![p[1]] = structure[p[0]]![p[1]]!;
    state[n[0]]![n[1]] = 5;
    p = n;
    seen.add(key(p));
    steps++;
    if (steps >= maxSteps || py.random() > continueP) break;
  }
  return state;
}

/** A generated room: fixed layout (walls, floor, targets), the state (boxes, player) and box → target. */
export interface Room {
  fixed: Grid;
  state: Grid;
  boxMapping: Map<string, Pos>;
}

/** Upstream `generate_room(dim, num_steps, num_boxes, search_depth)` (p_change_directions 0.35, 4 tries). */
export function generateRoom(rngs: Rngs, dim: Pos, numSteps: number, numBoxes: number, searchDepth: number): Room {
  let structure: Grid = [];
  let state: Grid = [];
  let mapping: Mapping = new Map();
  for (let t = 0; t < 4; t++) {
    const room = placeBoxesAndPlayer(rngs.np, topology(rngs.py, dim, 0.35, numSteps), numBoxes);
    structure = room.map((r) => r.map((c) => (c === 5 ? 1 : c)));
    const start = room.map((r) => r.map((c) => (c === 2 ? 4 : c)));
    const best = reversePlaying(start, structure, searchDepth);
    state = best.room.map((r) => r.map((c) => (c === 3 ? 4 : c)));
    mapping = best.mapping;
    if (displacement(mapping) > 0) break;
  }
  const score = displacement(mapping);
  if (score === 0) throw new RoomGenerationError("Generated Model with score == 0");
  state = randomPlayerMovement(rngs.py, state, structure, score === 1 ? 0.8 : 0.5, 0.5, 3);
  return { fixed: structure, state, boxMapping: mapping };
}
