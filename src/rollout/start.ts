/**
 * The start of a collection (runtime §11.3, §11.7): materialize a fresh run, or pick up the journal
 * of an earlier one (resume) and print its summary; then the gate that skips finished pairs and the
 * dispatch order (input order, or longest-first for retried rows with `dispatch_longest_first`).
 */
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { log } from "../log.ts";
import type { RolloutConfig } from "./config.ts";
import { pairKey, readJournal, type JournalState } from "./journal.ts";
import { readLines } from "./jsonl.ts";
import { checkInput, materialize, type MaterializeOptions } from "./materialize.ts";
import type { RolloutPaths } from "./paths.ts";
import { checkJournalInput, recordJournalInput } from "./journal-input.ts";
import { checkFreshOutput } from "./output-lock.ts";
import type { Progress } from "./progress.ts";
import { agentOf, type Row, verbatimLines } from "./record.ts";
import type { RunTargets } from "./targets.ts";

/** What the rest of the run needs from the start. */
export interface OpenedRun {
  /** The earlier run's journal (resume only). */
  journal: JournalState | undefined;
  /** True for a pair that must not run again: it succeeded, failed terminally or used up its attempts. */
  gated: (key: number) => boolean;
}

/** Count rows per agent in a materialized file (resume needs totals before dispatch). */
async function countMaterialized(path: string, p: Progress): Promise<void> {
  for await (const l of readLines(path)) {
    if (l.text.trim() === "") continue;
    const row = JSON.parse(l.text) as Row;
    const a = agentOf(row);
    p.agentTotal.set(a, (p.agentTotal.get(a) ?? 0) + 1);
    p.total++;
  }
}

function resumeSummary(p: Progress, j: JournalState, terminalCount: number, maxedCount: number, toRun: number, maxAttempts: number): string {
  return [
    "Resumed from cache. Found:",
    `- ${p.total} original input rows`,
    `- ${j.successes.size} rows already done (in main jsonl)`,
    `- ${j.failureLines} prior failure attempts (${j.failureTasks} unique tasks) in sidecar`,
    `- ${terminalCount} sidecar-terminal failures → not retried`,
    `- ${maxedCount} hit max_attempts=${maxAttempts} → not retried`,
    `- ${toRun} rows that still need to be run`,
  ].join("\n");
}

/** Materialize (fresh) or read the journal (resume); fills the progress totals. */
export async function openRun(
  cfg: RolloutConfig,
  paths: RolloutPaths,
  progress: Progress,
  deps: { targets: RunTargets; transform?: MaterializeOptions["transform"]; maxAttempts: number },
): Promise<OpenedRun> {
  const maxAttempts = deps.maxAttempts;
  let journal: JournalState | undefined;
  let resuming = false;
  if (cfg.resume) {
    const missing = [paths.materialized, paths.output].filter((f) => !existsSync(f));
    if (missing.length === 0) resuming = true;
    else log.info(`Skipping resume_from_cache because ${missing.map((m) => `${m} does not exist`).join(" and ")}; running fresh`);
  }
  if (resuming) {
    await checkJournalInput(paths, cfg.input);
    journal = await readJournal(paths, { retryTerminalTimeouts: cfg.retryTerminalTimeouts });
    for (const r of journal.repaired) log.warn(`resume: ${r}`);
    await countMaterialized(paths.materialized, progress);
  } else {
    // D38: check and materialize (which validates every row) before anything of an earlier run goes.
    checkInput(cfg);
    checkFreshOutput(paths, cfg.overwrite);
    const staged = `${paths.materialized}.tmp-${process.pid}-staged`;
    let m: Awaited<ReturnType<typeof materialize>>;
    try {
      m = await materialize(cfg, staged, {
        transform: deps.transform,
        checkAgent: (a) => void deps.targets.forAgent(a),
        checkServer: (srv) => void deps.targets.forServer(srv),
      });
    } catch (e) {
      rmSync(staged, { force: true });
      throw e;
    }
    for (const f of [paths.materialized, paths.output, paths.failures, paths.aggregate, paths.drained, paths.journal]) rmSync(f, { force: true });
    await recordJournalInput(paths, cfg.input);
    // The output exists before the materialized file does, so "both exist" means materialization finished.
    writeFileSync(paths.output, "");
    renameSync(staged, paths.materialized);
    progress.total = m.total;
    for (const [a, n] of m.perAgent) progress.agentTotal.set(a, n);
  }
  const gated = (key: number): boolean => {
    if (!journal) return false;
    return journal.successes.has(key) || journal.terminal.has(key) || (journal.attempts.get(key) ?? 0) >= maxAttempts;
  };
  if (journal) {
    let terminalCount = 0;
    let maxedCount = 0;
    for (const k of journal.terminal) if (!journal.successes.has(k)) terminalCount++;
    for (const [k, n] of journal.attempts) if (n >= maxAttempts && !journal.successes.has(k) && !journal.terminal.has(k)) maxedCount++;
    progress.done = progress.fromCache = journal.successes.size;
    progress.failed = terminalCount + maxedCount;
    const toRun = progress.total - progress.done - progress.failed;
    process.stderr.write(`${resumeSummary(progress, journal, terminalCount, maxedCount, toRun, maxAttempts)}\n`);
  }
  return { journal, gated };
}

/** Materialized rows in dispatch order; with `longestFirst` on resume, retried rows with a recorded duration come first. */
export async function* dispatchOrder(materialized: string, journal: JournalState | undefined, longestFirst: boolean, gated: (key: number) => boolean): AsyncGenerator<Row> {
  const keyOf = (row: Row) => pairKey(Number(row._ng_task_index), Number(row._ng_rollout_index ?? 0));
  const first = new Map<number, Row>();
  if (journal && longestFirst && journal.elapsed.size > 0) {
    for await (const l of readLines(materialized)) {
      if (l.text.trim() === "") continue;
      const row = JSON.parse(l.text) as Row;
      const key = keyOf(row);
      if (journal.elapsed.has(key) && !gated(key)) first.set(key, row);
    }
  }
  const keys = [...first.keys()].sort((a, b) => journal!.elapsed.get(b)! - journal!.elapsed.get(a)!);
  for (const k of keys) yield first.get(k)!;
  // A fresh run's materialized lines were written by JSON.stringify in this run, so each line is
  // the row's exact serialisation and `/run` can send it without re-serialising (record.ts).
  const verbatim = journal === undefined;
  for await (const l of readLines(materialized)) {
    if (l.text.trim() === "") continue;
    const row = JSON.parse(l.text) as Row;
    if (first.size > 0 && first.has(keyOf(row))) continue;
    if (verbatim) verbatimLines.set(row, l.text);
    yield row;
  }
}
