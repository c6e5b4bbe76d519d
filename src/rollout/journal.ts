/**
 * The resume journal (runtime §11.7, D22): the main output and the failures sidecar are the
 * journal. A record counts once its line is in the file; resume repairs a torn last line, then
 * gates every (task, rollout) pair that succeeded, failed terminally or used up its attempts.
 */
import { existsSync } from "node:fs";
import { ConfigError, type SourceLocation } from "../errors.ts";
import { repairTornTail } from "./jsonl.ts";
import { readLines } from "../util/jsonl.ts";
import type { RolloutPaths } from "./paths.ts";

/** Rollout indices per task are below this; keys pack (task, rollout) into one number. */
const ROLLOUT_SPAN = 1 << 20;

/**
 * Pack a (task, rollout) pair into one map key. The indices come from files (a resumed journal,
 * `gym eval reverify --rollouts/--inputs`, `gym eval profile`): a bad one is a ConfigError naming
 * `where` (file:line) when the caller knows it.
 */
export function pairKey(task: number, rollout: number, where?: SourceLocation): number {
  if (!Number.isInteger(task) || !Number.isInteger(rollout) || task < 0 || rollout < 0 || rollout >= ROLLOUT_SPAN) {
    throw new ConfigError(`invalid (task, rollout) pair (${task}, ${rollout}): _ng_task_index and _ng_rollout_index must be non-negative integers, rollout < ${ROLLOUT_SPAN}`, {
      location: where,
      code: "E_BAD_PAIR",
      hint: "the record was not written by gym or was edited by hand: fix or remove its _ng_task_index/_ng_rollout_index",
    });
  }
  return task * ROLLOUT_SPAN + rollout;
}

/** Classes that `retry_terminal_timeouts` makes retryable again ([NEWER]). */
const RETRYABLE_WITH_FLAG = new Set(["timeout_exceeded", "reference_missing", "eval_missing", "transport_ineligible"]);

/** What the files on disk say about earlier attempts. */
export interface JournalState {
  successes: Set<number>;
  attempts: Map<number, number>;
  terminal: Set<number>;
  /** Sidecar lines read. */
  failureLines: number;
  /** Distinct tasks among sidecar lines. */
  failureTasks: number;
  /** Longest recorded `elapsed_seconds` per failed pair (for `dispatch_longest_first`). */
  elapsed: Map<number, number>;
  /** Repairs made to torn last lines, for the resume summary. */
  repaired: string[];
}

function indices(text: string): [number, number] | undefined {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    const t = v._ng_task_index;
    const r = v._ng_rollout_index ?? 0;
    return typeof t === "number" && typeof r === "number" ? [t, r] : undefined;
  } catch {
    return undefined;
  }
}

/** Read the journal of an earlier run. */
export async function readJournal(paths: RolloutPaths, opts: { retryTerminalTimeouts: boolean }): Promise<JournalState> {
  const repaired: string[] = [];
  for (const p of [paths.output, paths.failures]) {
    const r = repairTornTail(p);
    if (r === "dropped" || r === "terminated") repaired.push(`${p}: ${r === "dropped" ? "dropped a torn last line" : "terminated the last line"}`);
  }
  const successes = new Set<number>();
  for await (const l of readLines(paths.output)) {
    if (l.text.trim() === "") continue;
    const ix = indices(l.text);
    if (ix) successes.add(pairKey(ix[0], ix[1]));
  }
  const attempts = new Map<number, number>();
  const terminal = new Set<number>();
  const tasks = new Set<number>();
  const elapsed = new Map<number, number>();
  let failureLines = 0;
  if (existsSync(paths.failures)) {
    for await (const l of readLines(paths.failures)) {
      if (l.text.trim() === "") continue;
      let v: Record<string, unknown>;
      try {
        v = JSON.parse(l.text) as Record<string, unknown>;
      } catch {
        continue;
      }
      const t = v._ng_task_index;
      const r = v._ng_rollout_index ?? 0;
      if (typeof t !== "number" || typeof r !== "number") continue;
      failureLines++;
      tasks.add(t);
      const k = pairKey(t, r);
      attempts.set(k, (attempts.get(k) ?? 0) + 1);
      if (typeof v.elapsed_seconds === "number") elapsed.set(k, Math.max(elapsed.get(k) ?? 0, v.elapsed_seconds));
      const cls = String(v._ng_failure_class ?? "");
      const isTerminal = cls === "skipped" || (v._ng_failure_terminal === true && !(opts.retryTerminalTimeouts && RETRYABLE_WITH_FLAG.has(cls)));
      if (isTerminal) terminal.add(k);
    }
  }
  return { successes, attempts, terminal, failureLines, failureTasks: tasks.size, elapsed, repaired };
}
