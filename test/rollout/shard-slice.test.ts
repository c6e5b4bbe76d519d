/** Sharded collection: the task slice of `num_shards` / `shard_index` (issue 20). */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rolloutConfigFrom } from "../../src/rollout/config.ts";
import { materialize } from "../../src/rollout/materialize.ts";
import { inShard, shardSliceFrom } from "../../src/rollout/shard-slice.ts";
import { tempDir } from "../helpers/tmp.ts";

function rowsOf(path: string): { t: number; r: number; id: unknown }[] {
  return readFileSync(path, "utf8").split("\n").filter((l) => l.trim()).map((l) => {
    const v = JSON.parse(l);
    return { t: v._ng_task_index, r: v._ng_rollout_index, id: v.id };
  });
}

describe("shard slice keys", () => {
  test.each([
    [{}, undefined],
    [{ num_shards: 3, shard_index: 0 }, { count: 3, index: 0 }],
    [{ num_shards: "4", shard_index: "3" }, { count: 4, index: 3 }],
  ])("%j → %j", (dict, want) => {
    expect(shardSliceFrom(dict as Record<string, unknown>)).toEqual(want as never);
  });

  test.each([
    [{ num_shards: 3 }, "shard_index"],
    [{ shard_index: 1 }, "num_shards"],
    [{ num_shards: 3, shard_index: 3 }, "0 ≤ shard_index < num_shards (3), got 3"],
    [{ num_shards: 3, shard_index: -1 }, "got -1"],
    [{ num_shards: 0, shard_index: 0 }, "num_shards must be ≥ 1"],
    [{ num_shards: 2.5, shard_index: 0 }, "num_shards must be an integer"],
    [{ num_shards: "x", shard_index: 0 }, "num_shards must be an integer"],
  ])("%j is rejected naming %s", (dict, msg) => {
    expect(() => shardSliceFrom(dict as Record<string, unknown>)).toThrow(msg);
  });

  test("inShard partitions task indices", () => {
    for (let t = 0; t < 50; t++) {
      const owners = [0, 1, 2].filter((i) => inShard(t, { count: 3, index: i }));
      expect(owners).toEqual([t % 3]);
    }
    expect(inShard(7, undefined)).toBe(true);
  });
});

describe("materialize with a shard", () => {
  test("shards are disjoint, cover every (task, rollout) once, keep repeats together, and are stable", async () => {
    await using dir = await tempDir();
    const input = join(dir.path, "in.jsonl");
    const lines: string[] = [];
    for (let i = 0; i < 11; i++) lines.push(JSON.stringify({ id: i, responses_create_params: { input: `q${i}` }, agent_ref: { name: "a" } }));
    lines.push(lines[4]!); // a duplicate line shares task 4 and continues its rollout counter
    lines.push(JSON.stringify({ id: 99, _ng_task_index: 40, responses_create_params: { input: "pinned" }, agent_ref: { name: "a" } }));
    writeFileSync(input, `${lines.join("\n")}\n`);
    const base = { input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "o.jsonl"), num_repeats: 2 };
    const whole = join(dir.path, "whole.jsonl");
    await materialize(rolloutConfigFrom(base), whole);
    const all = rowsOf(whole);
    const shardRows: ReturnType<typeof rowsOf>[] = [];
    for (let k = 0; k < 3; k++) {
      const dest = join(dir.path, `s${k}.jsonl`);
      const res = await materialize(rolloutConfigFrom({ ...base, num_shards: 3, shard_index: k }), dest);
      const rows = rowsOf(dest);
      expect(res.total).toBe(rows.length);
      for (const r of rows) expect(r.t % 3).toBe(k);
      shardRows.push(rows);
      // Same slice again (a retry or a fresh resume) → byte-identical file.
      const again = join(dir.path, `s${k}-again.jsonl`);
      await materialize(rolloutConfigFrom({ ...base, num_shards: 3, shard_index: k }), again);
      expect(readFileSync(again, "utf8")).toBe(readFileSync(dest, "utf8"));
    }
    const key = (r: { t: number; r: number }) => `${r.t}-${r.r}`;
    const merged = shardRows.flat().map(key).sort();
    expect(merged).toEqual(all.map(key).sort());
    expect(new Set(merged).size).toBe(merged.length);
    // Task 4 appears twice with 2 repeats each → rollouts 0..3, all in shard 1.
    expect(shardRows[1]!.filter((r) => r.t === 4).map((r) => r.r)).toEqual([0, 1, 2, 3]);
    expect(shardRows[1]!.some((r) => r.t === 40)).toBe(true);
    expect(all.length).toBe(2 * 13);
  });
});
