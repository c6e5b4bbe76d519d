/**
 * The merge job of a sharded benchmark (issue 20): queued `afterany` on the job array, it merges
 * the shards with `gym eval aggregate +merge_shards=true` once every array task finished. A shard
 * that failed but whose resumable chain queued a successor (`.gym_next_job`) is still running: the
 * merge job then re-queues itself behind those successors instead of merging a partial result.
 * (`afterok` on the array cannot express this: one failed-then-retried task leaves it unsatisfied.)
 */
import { layoutOf } from "../deployment.ts";
import type { SubmitConfig } from "../schema.ts";
import { mergedOutputOf, shardDirOf } from "./driver.ts";
import type { RunIdentity } from "./script.ts";
import { q } from "./shell.ts";

function directive(k: string, v: string | number): string {
  const s = String(v);
  return `#SBATCH --${k}=${/\s/.test(s) ? `"${s.replace(/(["\\])/g, "\\$1")}"` : s}`;
}

/** Render `aggregate.sh` of sharded benchmark `benchName` (undefined when it is not sharded). */
export function renderAggregateScript(cfg: SubmitConfig, id: RunIdentity, benchName: string): string | undefined {
  const bench = cfg.driver.benchmarks[benchName]!;
  if (!bench.shards) return undefined;
  const benchDir = `${id.runDir}/${benchName}`;
  const c = layoutOf(cfg).compute;
  const lines = ["#!/bin/bash", directive("job-name", `gym-${benchName}-merge`), directive("account", c.account)];
  if (c.walltime !== null) lines.push(directive("time", c.walltime));
  lines.push(directive("chdir", benchDir), directive("nodes", 1), directive("ntasks", 1), directive("output", "logs/merge-%j.log"));
  const partition = Object.values(c.node_pools)[0]?.partition;
  if (typeof partition === "string" && partition !== "") lines.push(directive("partition", partition));
  const shardDir = shardDirOf({ benchDir });
  const out = mergedOutputOf({ benchDir, bench });
  lines.push(
    "",
    "_gym_missing=\"\"",
    "_gym_pending=\"\"",
    `for _k in $(seq 0 ${bench.shards.count - 1}); do`,
    `  _d=${q(shardDir)}/$_k`,
    '  [ -f "$_d/.gym_shard_done" ] && continue',
    '  _next="$(cat "$_d/.gym_next_job" 2>/dev/null || true)"',
    '  if [ -n "$_next" ] && [ -n "$(squeue -h -j "$_next" -o %T 2>/dev/null)" ]; then',
    '    _gym_pending="$_gym_pending:$_next"',
    "  else",
    '    _gym_missing="$_gym_missing $_k"',
    "  fi",
    "done",
    'if [ -n "$_gym_pending" ]; then',
    '  echo "Shard retries still queued or running (jobs ${_gym_pending#:}); queueing the merge after them."',
    '  sbatch --dependency="afterany$_gym_pending" "$PWD/aggregate.sh"',
    "  exit $?",
    "fi",
    'if [ -n "$_gym_missing" ]; then',
    `  echo "Shard(s)$_gym_missing of ${bench.shards.count} did not finish (no .gym_shard_done under ${shardDir}/<k>); not merging. Look at logs/driver-*.log, then run: ${id.runDir}/gym eval aggregate -i '${shardDir}/*/rollouts.jsonl' -o ${out} +merge_shards=true"`,
    "  exit 1",
    "fi",
    `${q(`${id.runDir}/gym`)} eval aggregate -i ${q(`${shardDir}/*/rollouts.jsonl`)} -o ${q(out)} +merge_shards=true`,
  );
  return `${lines.join("\n")}\n`;
}
