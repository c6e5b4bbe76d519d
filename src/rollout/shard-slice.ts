/**
 * Sharded collection (issue 20): `num_shards` / `shard_index` pick a disjoint, deterministic slice
 * of the tasks. The slice is chosen by task (`_ng_task_index % num_shards`), so every repeat of a
 * task lands in the same shard, merged shard metrics equal a single run's, and a retry or
 * `--resume` of a shard collects exactly the same slice.
 */
import { ConfigError } from "../errors.ts";
import type { ConfigDict } from "../config/types.ts";

/** One shard of a sharded collection. */
export interface ShardSlice {
  count: number;
  index: number;
}

function intKey(dict: ConfigDict, key: string): number | undefined {
  const v = dict[key];
  if (v === undefined || v === null || v === "") return undefined;
  const n = typeof v === "number" ? v : typeof v === "string" && /^\s*-?\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isInteger(n)) throw new ConfigError(`${key} must be an integer, got ${JSON.stringify(v)}`, { key, hint: "pass +num_shards=N +shard_index=K with 0 ≤ K < N" });
  return n;
}

/** Read `num_shards` / `shard_index` (both or neither; 0 ≤ index < count). */
export function shardSliceFrom(dict: ConfigDict): ShardSlice | undefined {
  const count = intKey(dict, "num_shards");
  const index = intKey(dict, "shard_index");
  if (count === undefined && index === undefined) return undefined;
  if (count === undefined) throw new ConfigError("shard_index is set but num_shards is not", { key: "num_shards", hint: "pass both +num_shards=N and +shard_index=K, or neither" });
  if (index === undefined) throw new ConfigError(`num_shards=${count} is set but shard_index is not`, { key: "shard_index", hint: `pass +shard_index=K with 0 ≤ K < ${count} (a Slurm array task passes $SLURM_ARRAY_TASK_ID)` });
  if (count < 1) throw new ConfigError(`num_shards must be ≥ 1, got ${count}`, { key: "num_shards" });
  if (index < 0 || index >= count) throw new ConfigError(`shard_index must satisfy 0 ≤ shard_index < num_shards (${count}), got ${index}`, { key: "shard_index" });
  return { count, index };
}

/** True when task `taskIndex` belongs to `shard` (every task when unsharded). */
export function inShard(taskIndex: number, shard: ShardSlice | undefined): boolean {
  if (!shard) return true;
  return ((taskIndex % shard.count) + shard.count) % shard.count === shard.index;
}
