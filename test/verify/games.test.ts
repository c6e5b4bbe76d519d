/**
 * The Gymnasium-style games as pure state machines. Blackjack: upstream's hand-value and decision
 * cases as data. Sokoban: the boards upstream recorded in its example rollouts come back from their
 * seeds, and whole recorded episodes replay move for move with the recorded rewards and infos.
 * Tetris: upstream's piece weights depend on an unseeded reset made before the seeded one, so each
 * recorded episode must replay exactly from SOME such prior state (searched over seeds 0..199).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PyRandom } from "../../src/util/py-random.ts";
import { blackjackDecision, blackjackStep, dealBlackjack, handValue } from "../../src/verify/games/blackjack.ts";
import { npRandint } from "../../src/util/np-random.ts";
import { globalRngs, SokobanGame } from "../../src/verify/games/sokoban.ts";
import { TetrisGame } from "../../src/verify/games/tetris.ts";

type Row = Record<string, any>;
const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers");
const lines = (p: string): Row[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const text = (item: Row) => (item.content as Row[]).filter((c) => c.type === "output_text").map((c) => c.text).join("");

describe("blackjack", () => {
  test.each([
    [["5", "7"], 12],
    [["K", "Q"], 20],
    [["A", "K", "5"], 16],
    [["A", "9"], 20],
    [["A", "A"], 12],
  ])("hand value %p = %p", (hand, v) => expect(handValue(hand)).toBe(v));

  test.each([
    ["<action>hit</action>", "hit"],
    ["<action>stand</action>", "stand"],
    ["<action>  hit  </action>", "hit"],
    ["<action>HIT</action>", "hit"],
    ["I think I'll hit", "stand"],
    ["", "stand"],
  ])("decision of %p is %p", (t, d) => expect(blackjackDecision(t)).toBe(d as "hit" | "stand"));

  test("stand ends the hand with the dealer at 17+ and a reward that matches the result", () => {
    for (let seed = 0; seed < 50; seed++) {
      const { state, observation } = dealBlackjack(new PyRandom(seed));
      expect(observation).toContain("<action>hit</action>");
      const r = blackjackStep(state, "stand");
      expect(r.terminated).toBe(true);
      expect(r.info.dealer_value as number).toBeGreaterThanOrEqual(17);
      expect({ win: 1, draw: 0, loss: -1 }[r.info.result as "win"]).toBe(r.reward);
    }
  });

  test("hitting until bust ends with -1 and the bust hand", () => {
    const { state } = dealBlackjack(new PyRandom(7));
    let r = blackjackStep(state, "hit");
    while (!r.terminated) r = blackjackStep(state, "hit");
    expect([r.reward, r.info.result]).toEqual([-1, "bust"]);
    expect(r.info.value as number).toBeGreaterThan(21);
  });
});

describe("numpy legacy RandomState", () => {
  test("randint(n) draws as np.random.seed(s); np.random.randint(n) (values computed once with numpy)", () => {
    // np.random.seed(0); [np.random.randint(10) for _ in range(5)] == [5, 0, 3, 3, 7]
    const r0 = PyRandom.fromGenrand(0);
    expect([0, 1, 2, 3, 4].map(() => npRandint(r0, 10))).toEqual([5, 0, 3, 3, 7]);
    // np.random.seed(42); [np.random.randint(100) for _ in range(3)] == [51, 92, 14]
    const r42 = PyRandom.fromGenrand(42);
    expect([0, 1, 2].map(() => npRandint(r42, 100))).toEqual([51, 92, 14]);
  });
});

const grid = new Map(Object.entries({ 0: "#", 1: "_", 2: "O", 3: "√", 4: "X", 5: "P", 6: "S" }).map(([k, v]) => [Number(k), v]));
const sokobanRows = lines(join(ASSETS, "grl_sokoban", "data", "example.jsonl"));
const sokobanRecs = lines(join(ASSETS, "grl_sokoban", "data", "example_rollouts.jsonl"));

describe("grl_sokoban", () => {
  test.each(sokobanRecs.map((r) => [r._ng_task_index, r] as [number, Row]))("recorded episode of task %p replays move for move", (task, rec) => {
    const row = sokobanRows[task]!;
    const game = new SokobanGame({ gridLookup: grid, dimRoom: row.dim_room, maxSteps: 100, numBoxes: row.num_boxes, searchDepth: 100 }, globalRngs(1n), () => null);
    const first = game.reset(BigInt(row.seed));
    const input = rec.responses_create_params.input as Row[];
    expect(input.at(-1)!.content).toContain(first);
    const labels: Record<string, number> = { up: 1, down: 2, left: 3, right: 4 };
    let total = 0;
    let last: Row = {};
    const outs = rec.response.output as Row[];
    for (let i = 0; i < outs.length; i++) {
      if (outs[i]!.role !== "assistant") continue;
      const m = /<action>\s*(up|down|left|right)\s*<\/action>/i.exec(text(outs[i]!))!;
      const s = game.step(labels[m[1]!.toLowerCase()]!);
      total += s.reward;
      last = s.info;
      const next = outs[i + 1];
      if (next) expect(next.content).toContain(s.observation);
    }
    expect(total).toBe(rec.reward);
    expect(last.success).toBe(rec.info.success);
    expect(last.action_is_effective).toBe(rec.info.action_is_effective);
  });
});

describe("grl_tetris", () => {
  const rows = lines(join(ASSETS, "grl_tetris", "data", "example.jsonl"));
  const recs = lines(join(ASSETS, "grl_tetris", "data", "example_rollouts.jsonl"));
  const L: Record<string, number> = { left: 0, right: 1, down: 2 };
  test.each(recs.map((r) => [r._ng_task_index, r] as [number, Row]))("recorded episode of task %p replays from some prior unseeded state", (task, rec) => {
    const row = rows[task]!;
    let reproduced = 0;
    for (let g = 0; g < 200 && reproduced === 0; g++) {
      const game = new TetrisGame({ dim_x: 4, dim_y: 4, box_type: row.box_type }, new PyRandom(g));
      const first = game.reset(row.seed);
      if (!(rec.responses_create_params.input as Row[]).at(-1)!.content.includes(first)) continue;
      let total = 0;
      let ok = true;
      const outs = rec.response.output as Row[];
      for (let i = 0; i < outs.length && ok; i++) {
        if (outs[i]!.role !== "assistant") continue;
        let stepReward = 0;
        let obs = "";
        for (const m of text(outs[i]!).matchAll(/<action>\s*(left|right|down|[0-2])\s*<\/action>/gi)) {
          const s = game.step(/\d/.test(m[1]!) ? Number(m[1]) : L[m[1]!.toLowerCase()]!);
          stepReward += s.reward;
          obs = s.observation;
          if (s.done) break;
        }
        total += stepReward;
        const next = outs[i + 1];
        if (next && !next.content.includes(obs)) ok = false;
      }
      if (ok && total === rec.reward) reproduced++;
    }
    expect(reproduced).toBe(1);
  });

  test("a seed fixes the pre-generated pieces for a given prior state; moves keep the piece inside the board", () => {
    const a = new TetrisGame({ dim_x: 4, dim_y: 4, box_type: 3 }, new PyRandom(5));
    const b = new TetrisGame({ dim_x: 4, dim_y: 4, box_type: 3 }, new PyRandom(5));
    expect(a.reset(123)).toBe(b.reset(123));
    for (let i = 0; i < 6; i++) a.step(0);
    expect(a.anchor[0]).toBeGreaterThanOrEqual(0);
    const s = a.step(9);
    expect([s.done, s.reward, s.info.error]).toEqual([true, 0, "Invalid action"]);
  });
});
