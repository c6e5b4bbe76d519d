/**
 * `gym eval aggregate` inputs (runtime §11.9): comma-separated globs, each pattern's matches
 * sorted, patterns in the order given, a path kept once at its first position, and the run's
 * own sidecars (`*_failures`, `*_materialized_inputs`) skipped. `merge_shards` concatenates
 * the shards sorted by (task, rollout).
 */
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { basename, extname, isAbsolute, resolve } from "node:path";
import { JsonlAppender } from "./jsonl.ts";
import { readJsonl } from "../util/jsonl.ts";

function hasGlob(p: string): boolean {
  return /[*?[\]{}]/.test(p);
}

/** Expand `input_glob` into files. */
export function expandShardGlobs(inputGlob: string, cwd = process.cwd()): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of inputGlob.split(",")) {
    const pattern = raw.trim();
    if (!pattern) continue;
    let matches: string[];
    if (!hasGlob(pattern)) matches = existsSync(resolve(cwd, pattern)) ? [resolve(cwd, pattern)] : [];
    else {
      const abs = isAbsolute(pattern);
      const glob = new Bun.Glob(abs ? pattern.slice(1) : pattern);
      matches = [...glob.scanSync({ cwd: abs ? "/" : cwd, absolute: true, onlyFiles: true })].sort();
    }
    for (const m of matches) {
      const stem = basename(m, extname(m));
      if (stem.endsWith("_failures") || stem.endsWith("_materialized_inputs")) continue;
      if (seen.has(m)) continue;
      seen.add(m);
      out.push(m);
    }
  }
  return out;
}

/** Concatenate shards into `dest`, sorted by (task, rollout). */
export async function mergeShards(files: string[], dest: string): Promise<number> {
  const rows: { t: number; r: number; line: string }[] = [];
  for (const f of files) {
    if (resolve(f) === resolve(dest)) continue;
    for await (const { value } of readJsonl(f)) rows.push({ t: Number(value._ng_task_index ?? 0), r: Number(value._ng_rollout_index ?? 0), line: JSON.stringify(value) });
  }
  rows.sort((a, b) => a.t - b.t || a.r - b.r);
  const tmp = `${dest}.tmp-${process.pid}`;
  writeFileSync(tmp, "");
  const out = new JsonlAppender(tmp);
  for (const row of rows) out.appendLine(row.line);
  out.close();
  renameSync(tmp, dest);
  return rows.length;
}
