/**
 * The Sokoban of upstream's `grl_sokoban` (gym_sokoban's SokobanEnv mechanics under GRL's wrapper):
 * moves 1–4 (up, down, left, right) push a box when one is in the way and the cell behind it is free,
 * else walk; reward −0.1 per move, +1 / −1 when a box goes onto / off a target, +10 when every box is
 * on a target; the game ends then or after `max_steps` moves. Rendered with the grid lookup
 * (`S` = player on a target).
 */
import { PyRandom } from "../../util/py-random.ts";
import { generateRoom, RoomGenerationError, seededRngs, type Grid, type Rngs } from "./sokoban-generate.ts";

/** Environment settings (upstream's env_config keys). */
export interface SokobanConfig {
  gridLookup: Map<number, string>;
  dimRoom: [number, number];
  maxSteps: number;
  numBoxes: number;
  searchDepth: number;
}

/** What one move returns. */
export interface SokobanStep {
  observation: string;
  reward: number;
  done: boolean;
  info: Record<string, unknown>;
}

const CHANGE: [number, number][] = [[-1, 0], [1, 0], [0, -1], [0, 1]];

/** One Sokoban game. `global` stands in for the process-wide generators of unseeded resets. */
export class SokobanGame {
  fixed: Grid = [];
  state: Grid = [];
  player: [number, number] = [0, 0];
  private steps = 0;
  private boxesOnTarget = 0;

  constructor(readonly config: SokobanConfig, private readonly global: Rngs, private readonly fallbackSeed: (seed: bigint | null) => bigint | null) {}

  /** Generate a room; an integer `seed` makes it reproducible (upstream seeds `random` and numpy with it). */
  reset(seed: bigint | null): string {
    const rngs = seed === null ? this.global : seededRngs(seed);
    const steps = Math.trunc(1.7 * (this.config.dimRoom[0] + this.config.dimRoom[1]));
    let room;
    try {
      room = generateRoom(rngs, this.config.dimRoom, steps, this.config.numBoxes, this.config.searchDepth);
    } catch (e) {
      if (!(e instanceof RoomGenerationError)) throw e;
      // Upstream retries with abs(hash(str(seed))) % 2**32, a per-process salted hash: any other seed is as faithful.
      return this.reset(this.fallbackSeed(seed));
    }
    this.fixed = room.fixed;
    this.state = room.state;
    this.player = this.findPlayer();
    this.steps = 0;
    this.boxesOnTarget = 0;
    return this.render();
  }

  private findPlayer(): [number, number] {
    for (let i = 0; i < this.state.length; i++) for (let j = 0; j < this.state[i]!.length; j++) if (this.state[i]![j] === 5) return [i, j];
    throw new Error("the generated room has no player");
  }

  private cell(p: [number, number]): number {
    return this.state[p[0]]?.[p[1]] ?? 0;
  }

  private walk(ch: [number, number]): boolean {
    const n: [number, number] = [this.player[0] + ch[0], this.player[1] + ch[1]];
    const c = this.cell(n);
    if (c !== 1 && c !== 2) return false;
    this.state[this.player[0]]![this.player[1]] = this.fixed[this.player[0]]![this.player[1]]!;
    this.state[n[0]]![n[1]] = 5;
    this.player = n;
    return true;
  }

  private push(ch: [number, number]): void {
    const n: [number, number] = [this.player[0] + ch[0], this.player[1] + ch[1]];
    const behind: [number, number] = [n[0] + ch[0], n[1] + ch[1]];
    if (behind[0] >= this.state.length || behind[1] >= this.state[0]!.length) return;
    const c = this.cell(n);
    const b = this.cell(behind);
    if ((c === 3 || c === 4) && (b === 1 || b === 2)) {
      this.state[n[0]]![n[1]] = 5;
      this.state[this.player[0]]![this.player[1]] = this.fixed[this.player[0]]![this.player[1]]!;
      this.player = n;
      this.state[behind[0]]![behind[1]] = this.fixed[behind[0]]![behind[1]] === 2 ? 3 : 4;
      return;
    }
    this.walk(ch);
  }

  /** Targets not covered by a box (an empty target or the player standing on one). */
  private openTargets(): number {
    let n = 0;
    this.state.forEach((row, i) => row.forEach((c, j) => (c === 2 || (c === 5 && this.fixed[i]![j] === 2)) && n++));
    return n;
  }

  /** Apply move 1 (up), 2 (down), 3 (left) or 4 (right). */
  step(action: number): SokobanStep {
    const before = [...this.player];
    this.steps++;
    this.push(CHANGE[(action - 1 + 4) % 4]!);
    let reward = -0.1;
    const onTarget = this.config.numBoxes - this.openTargets();
    if (onTarget > this.boxesOnTarget) reward += 1;
    else if (onTarget < this.boxesOnTarget) reward += -1;
    const won = this.openTargets() === 0;
    if (won) reward += 10;
    this.boxesOnTarget = onTarget;
    const done = won || this.config.maxSteps === this.steps;
    const effective = before[0] !== this.player[0] || before[1] !== this.player[1];
    return { observation: this.render(), reward, done, info: { action_is_effective: effective, action_is_valid: true, success: this.boxesOnTarget === this.config.numBoxes } };
  }

  /** Text board with the grid lookup; the player on a target is cell 6. */
  render(): string {
    return this.state.map((row, i) => row.map((c, j) => this.config.gridLookup.get(c === 5 && this.fixed[i]![j] === 2 ? 6 : c) ?? "?").join("")).join("\n");
  }
}

/** The process-wide generators of unseeded resets. */
export function globalRngs(seed: bigint): Rngs {
  return { py: new PyRandom(seed), np: PyRandom.fromGenrand(Number(seed & 0xffffffffn)) };
}
