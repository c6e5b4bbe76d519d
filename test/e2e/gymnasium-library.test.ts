/**
 * The Gymnasium-style built-ins end to end (`gym eval run` starts the servers, gymnasium_agent drives
 * /reset and /step): grl_sokoban and example_multi_turn_gymnasium replay upstream's recorded example
 * rollouts (scripted_model answers each turn from the recording) with every reward and info as
 * recorded; the blackjack environment bundle plays its example rows (cards are dealt by an unseeded
 * generator, as upstream, so only the reward range is checked). Rows pair with recordings by task index.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

type Row = Record<string, any>;
const ASSETS = join(import.meta.dir, "..", "..", "assets");
// What an item says: a message's text (the replaying model drops null fields such as logprobs).
const said = (o: Row): unknown => (typeof o.content === "string" ? o.content : (o.content as Row[]).map((c) => c.text));
const lines = (p: string): Row[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

describe("Gymnasium-style servers replay upstream's recorded episodes", () => {
  test.each(["grl_sokoban", "example_multi_turn_gymnasium"])("%s", async (server) => {
    await using dir = await tempDir();
    const recorded = join(ASSETS, "resources_servers", server, "data", "example_rollouts.jsonl");
    const out = join(dir.path, "out.jsonl");
    const r = await runGym(["eval", "run", "--resources-server", server, "--model-type", "scripted_model", "+head_server.port=0", `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${recorded}`, "--split", "example", "-o", out], { cwd: dir.path });
    expect(r.code).toBe(0);
    const byTask = new Map(lines(recorded).map((x) => [x._ng_task_index, x]));
    let agree = 0;
    const got = readJsonl(out);
    for (const g of got) {
      const rec = byTask.get(g._ng_task_index)!;
      expect([g._ng_task_index, g.reward, g.terminated, g.truncated, g.info]).toEqual([rec._ng_task_index, rec.reward, rec.terminated, rec.truncated, rec.info]);
      // The whole conversation (model turns and the environment's observations) is the recorded one.
      expect(g.response.output.map(said)).toEqual(rec.response.output.map(said));
      expect(g.responses_create_params.input.map((m: Row) => m.content)).toEqual(rec.responses_create_params.input.map((m: Row) => m.content));
      agree++;
    }
    expect(agree).toBe(byTask.size);
    process.stderr.write(`replay ${server}/example_rollouts.jsonl: ${agree}/${byTask.size} episodes as recorded\n`);
  }, 180_000);

  test("environment bundle blackjack plays its example rows with gymnasium_agent", async () => {
    await using dir = await tempDir();
    const out = join(dir.path, "out.jsonl");
    const r = await runGym(["eval", "run", "--environment", "blackjack", "--model-type", "scripted_model", "+head_server.port=0", "--split", "example", "-o", out], { cwd: dir.path });
    expect(r.code).toBe(0);
    const got = readJsonl(out);
    expect(got.length).toBe(lines(join(ASSETS, "environments", "blackjack", "data", "example.jsonl")).length);
    for (const g of got) {
      // The scripted answer has no action tag: the player stands on the dealt hand.
      expect([-1, 0, 1]).toContain(g.reward);
      expect(g.terminated).toBe(true);
      expect(["win", "draw", "loss"]).toContain(g.info.result);
      expect(g.responses_create_params.input.at(-1).content).toMatch(/^Your hand: \[.+\] = \d+\nDealer shows: /);
    }
  }, 180_000);
});
