/**
 * The SQL verifiers' executor: a small pool of `gym internal sql-runner` child processes
 * (verify/sql-runner.ts) that run one read-only statement each under a wall-clock deadline. A query
 * past its deadline gets its process SIGKILLed (a sqlite3_step loop cannot be interrupted from
 * JavaScript, and bun:sqlite has no progress handler) and answers `timeout`; the next query starts a
 * fresh process. Upstream ran sqlite3 in threads (bird) or Ray tasks (spider) under an asyncio
 * semaphore; the pool's size plays the semaphore's part and the deadline starts when a process takes
 * the query, as upstream's did once the semaphore was held.
 */
import type { Subprocess } from "bun";
import type { SqlRunAnswer, SqlRunRequest } from "../../verify/sql-runner.ts";
import type { SqlRow } from "../../verify/rules/sql/values.ts";

/** What one query came to: rows, or why there are none (each counts as upstream's `None`). */
export type SqlOutcome = { ok: true; rows: SqlRow[] } | { ok: false; reason: "error" | "timeout" | "crash"; message: string };

interface Job {
  req: SqlRunRequest;
  timeoutMs: number;
  resolve(o: SqlOutcome): void;
}

interface Slot {
  proc: Subprocess;
  job: Job | null;
  timer: ReturnType<typeof setTimeout> | null;
  dead: boolean;
}

/** `gym internal sql-runner` as this process can start it (the binary itself, or bun + src/main.ts). */
export function sqlRunnerCommand(): string[] {
  const here = import.meta.url;
  if (here.includes("$bunfs") || here.includes("~BUN")) return [process.execPath, "internal", "sql-runner"];
  return [process.execPath, Bun.fileURLToPath(new URL("../../main.ts", import.meta.url)), "internal", "sql-runner"];
}

/** Pool settings. */
export interface SqlRunnerOptions {
  /** Child processes at most (queries beyond wait their turn). */
  size: number;
  /** The child's argv (tests may point it elsewhere); default `sqlRunnerCommand()`. */
  command?: string[];
}

/** Runs queries in child processes with a per-query deadline. */
export class SqlRunnerPool {
  private slots: Slot[] = [];
  private queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Processes started so far (a timeout or crash costs one more). */
  spawned = 0;

  constructor(private readonly opts: SqlRunnerOptions) {}

  /** Run `sql` on the database file `db`; never rejects while the pool is open. */
  run(db: string, sql: string, timeoutS: number): Promise<SqlOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, reason: "crash", message: "SQL runner pool is closed" });
    return new Promise<SqlOutcome>((resolve) => {
      this.queue.push({ req: { id: this.nextId++, db, sql }, timeoutMs: Math.max(1, timeoutS * 1000), resolve });
      this.pump();
    });
  }

  /** Process ids of the running children (tests and operators). */
  pids(): number[] {
    return this.slots.map((s) => s.proc.pid);
  }

  /** Stop every child; queued queries answer `crash`. */
  close(): void {
    this.closed = true;
    for (const s of this.slots) this.retire(s, { ok: false, reason: "crash", message: "SQL runner pool closed" });
    for (const j of this.queue.splice(0)) j.resolve({ ok: false, reason: "crash", message: "SQL runner pool closed" });
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      let slot = this.slots.find((s) => s.job === null && !s.dead);
      if (!slot && this.slots.length < this.opts.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      const s = slot;
      s.timer = setTimeout(() => this.retire(s, { ok: false, reason: "timeout", message: `query overran its ${job.timeoutMs / 1000} s deadline` }), job.timeoutMs);
      try {
        s.proc.send(job.req);
      } catch (e) {
        this.retire(s, { ok: false, reason: "crash", message: `SQL runner unreachable: ${e instanceof Error ? e.message : String(e)}` });
      }
    }
  }

  private spawn(): Slot {
    this.spawned++;
    const slot: Slot = { proc: undefined as unknown as Subprocess, job: null, timer: null, dead: false };
    slot.proc = Bun.spawn(this.opts.command ?? sqlRunnerCommand(), {
      stdio: ["ignore", "ignore", "inherit"],
      serialization: "advanced",
      ipc: (m: SqlRunAnswer) => this.answer(slot, m),
      onExit: () => {
        if (!slot.dead) this.retire(slot, { ok: false, reason: "crash", message: "SQL runner process exited" });
      },
    });
    // An idle runner must not keep the server process alive on its own.
    slot.proc.unref();
    this.slots.push(slot);
    return slot;
  }

  private answer(slot: Slot, m: SqlRunAnswer): void {
    const job = slot.job;
    if (!job || m.id !== job.req.id) return;
    if (slot.timer) clearTimeout(slot.timer);
    slot.job = null;
    slot.timer = null;
    job.resolve("rows" in m ? { ok: true, rows: m.rows as SqlRow[] } : { ok: false, reason: "error", message: m.error });
    this.pump();
  }

  // The process is past its deadline, dead, or the pool is closing: kill it and answer its query.
  private retire(slot: Slot, outcome: SqlOutcome & { ok: false }): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.dead = true;
    slot.timer = null;
    slot.proc.kill("SIGKILL");
    this.slots = this.slots.filter((s) => s !== slot);
    const job = slot.job;
    slot.job = null;
    job?.resolve(outcome);
    this.pump();
  }
}
