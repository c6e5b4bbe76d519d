/**
 * The Tetris of upstream's `resources_servers/grl_tetris/tetris_env` (GRL's training environment),
 * move for move: a width×height board (`board[x][y]`), pieces chosen by count-balancing weights
 * with Python's `random`, (width·height + 1) pieces pre-generated under the reset seed, reward
 * −0.1 per move and +10 per cleared line, the episode ending on a clear or when row 0 fills.
 * The board mutations of upstream's render/step order are kept (they decide what later frames show).
 */
import { PyRandom } from "../../util/py-random.ts";

type Cell = [number, number];
type Shape = Cell[];

/** Environment settings (upstream's env_config keys). */
export interface TetrisConfig {
  dim_x?: number;
  dim_y?: number;
  box_type?: number;
}

/** What one move returns (upstream's 4-tuple). */
export interface TetrisStep {
  observation: string;
  reward: number;
  done: boolean;
  info: Record<string, unknown>;
}

function shapesFor(boxType: number): [string, Shape][] {
  if (boxType === 2) return [["I", [[0, 0], [0, -1]]], ["-", [[0, 0], [-1, 0]]]];
  if (boxType === 3) return [["I", [[0, 0], [0, -1]]], ["-", [[0, 0], [-1, 0]]], ["O", [[0, 0], [-1, 0], [0, -1], [-1, -1]]]];
  return [["O", [[0, 0]]]];
}

/** Upstream `is_occupied`: a cell off the sides or bottom, or on a settled block (cells above the top are free). */
function occupied(shape: Shape, anchor: Cell, board: boolean[][]): boolean {
  const w = board.length;
  const h = board[0]?.length ?? 0;
  for (const [dx, dy] of shape) {
    const x = anchor[0] + dx;
    const y = anchor[1] + dy;
    if (y < 0) continue;
    if (x < 0 || x >= w || y >= h || board[x]![y]) return true;
  }
  return false;
}

/** One Tetris game. `global` stands in for Python's process-wide `random` (used when no seed is given). */
export class TetrisGame {
  readonly width: number;
  readonly height: number;
  board: boolean[][];
  private readonly shapes: [string, Shape][];
  private readonly counts: number[];
  private rng: PyRandom;
  private pieces: [Cell, Shape][] = [];
  private pieceIndex = 0;
  anchor: Cell = [0, 0];
  shape: Shape = [];
  time = 0;
  score = 0;

  constructor(config: TetrisConfig, private readonly global: PyRandom) {
    this.width = config.dim_x ?? 4;
    this.height = config.dim_y ?? 4;
    this.board = this.empty();
    this.shapes = shapesFor(config.box_type ?? 1);
    this.counts = this.shapes.map(() => 0);
    this.rng = global;
    // Upstream's constructor resets once without a seed; the shape counts it leaves behind weight later (seeded) resets.
    this.reset(null);
  }

  private empty(): boolean[][] {
    return Array.from({ length: this.width }, () => new Array<boolean>(this.height).fill(false));
  }

  private randint(a: number, b: number): number {
    return a + this.rng.randbelow(b - a + 1);
  }

  private chooseShape(): Shape {
    const max = Math.max(...this.counts);
    const weights = this.counts.map((c) => 5 + max - c);
    let r = this.randint(1, weights.reduce((a, b) => a + b, 0));
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!;
      if (r <= 0) {
        this.counts[i]!++;
        return this.shapes[i]![1];
      }
    }
    return this.shapes[0]![1];
  }

  private generatePiece(): [Cell, Shape] {
    const shape = this.chooseShape();
    const wide = shape.some(([dx, dy]) => dx === -1 && dy === 0);
    return [[wide ? this.randint(1, this.width - 1) : this.randint(0, this.width - 1), 0], shape];
  }

  private newPiece(): void {
    if (this.pieceIndex < this.pieces.length) [this.anchor, this.shape] = this.pieces[this.pieceIndex++]!;
    else [this.anchor, this.shape] = this.generatePiece();
  }

  private setPiece(on: boolean): void {
    for (const [dx, dy] of this.shape) {
      const x = this.anchor[0] + dx;
      const y = this.anchor[1] + dy;
      if (x >= 0 && x < this.width && y >= 0 && y < this.height) this.board[x]![y] = on;
    }
  }

  private clearLines(): number {
    const full = Array.from({ length: this.height }, (_, y) => this.board.every((col) => col[y]));
    const next = this.empty();
    let write = this.height - 1;
    for (let y = this.height - 1; y >= 0; y--) {
      if (full[y]) continue;
      for (let x = 0; x < this.width; x++) next[x]![write] = this.board[x]![y]!;
      write--;
    }
    const cleared = full.filter(Boolean).length;
    this.score += cleared;
    this.board = next;
    return cleared;
  }

  /** Start a game; `seed` (an integer) seeds Python's `random` for the pre-generated pieces. */
  reset(seed: number | bigint | null): string {
    this.rng = seed === null ? this.global : new PyRandom(BigInt(seed));
    this.time = 0;
    this.score = 0;
    this.board = this.empty();
    this.pieces = [];
    this.pieceIndex = 0;
    for (let i = 0; i < this.width * this.height + 1; i++) this.pieces.push(this.generatePiece());
    this.newPiece();
    const obs = this.render();
    // all_seed restores the process-wide state: later pieces come from the global generator again.
    this.rng = this.global;
    return obs;
  }

  /** Apply move 0 (Left), 1 (Right) or 2 (Down). */
  step(action: number): TetrisStep {
    if (action !== 0 && action !== 1 && action !== 2) return { observation: this.render(), reward: 0.0, done: true, info: { error: "Invalid action" } };
    const before: Cell = [...this.anchor];
    const target: Cell = action === 0 ? [this.anchor[0] - 1, this.anchor[1]] : action === 1 ? [this.anchor[0] + 1, this.anchor[1]] : [this.anchor[0], this.anchor[1] + 1];
    if (!occupied(this.shape, target, this.board)) this.anchor = target;
    this.time++;
    let reward = -0.1;
    let done = false;
    let dropped = false;
    let cleared = 0;
    if (occupied(this.shape, [this.anchor[0], this.anchor[1] + 1], this.board)) {
      dropped = true;
      this.setPiece(true);
      cleared = this.clearLines();
      reward += cleared * 10;
      if (this.board.some((col) => col[0])) done = true;
      else this.newPiece();
    }
    this.setPiece(true);
    const observation = this.render();
    this.setPiece(false);
    const effective = before[0] !== this.anchor[0] || before[1] !== this.anchor[1];
    if (cleared > 0) done = true;
    return { observation, reward, done, info: { action_is_effective: effective, action_is_valid: true, success: cleared > 0, dropped } };
  }

  /** Text board: rows top to bottom, `#` settled, `_` empty, `X` the falling piece (upstream's render, side effects included). */
  render(): string {
    const lines = Array.from({ length: this.height }, (_, y) => Array.from({ length: this.width }, (_, x): string => (this.board[x]![y] ? "#" : "_")));
    this.setPiece(true);
    const positions = this.shape.map(([dx, dy]) => [this.anchor[0] + dx, this.anchor[1] + dy] as Cell);
    this.setPiece(false);
    for (const [x, y] of positions) if (y >= 0 && y < lines.length && x >= 0 && x < this.width) lines[y]![x] = "X";
    return lines.map((l) => l.join("")).join("\n");
  }
}
