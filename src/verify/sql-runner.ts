/**
 * The SQL runner child process (`gym internal sql-runner`): executes one statement per request on a
 * SQLite file opened READ-ONLY with bun:sqlite and answers over IPC (structured clone, so INTEGER
 * cells stay `bigint` and BLOBs `Uint8Array`). It is a process, not a Worker, because a runaway
 * query never returns to JavaScript: neither Worker.terminate() nor a JS timer can stop sqlite3_step,
 * and bun:sqlite exposes no progress handler or sqlite3_interrupt — the parent's deadline SIGKILLs
 * this process instead (components/resources/_sql-runner.ts).
 */
import { Database } from "bun:sqlite";
import { firstStatement } from "./rules/sql/statement.ts";

/** A request: run `sql` on the database file `db`. */
export interface SqlRunRequest {
  id: number;
  db: string;
  sql: string;
}

/** The answer: the rows, or why the statement failed (what Python's sqlite3 would raise). */
export type SqlRunAnswer = { id: number; rows: unknown[][] } | { id: number; error: string };

// Statements that write outside the read-only main database (ATTACH creates files, VACUUM INTO
// writes a copy); upstream ran them on a writable (bird) or throwaway (spider) connection.
const OUTSIDE_WRITES = /^(?:ATTACH|VACUUM)\b/i;
const MAX_OPEN = 16;

const open = new Map<string, Database>();

function database(path: string): Database {
  let db = open.get(path);
  if (db) return db;
  if (open.size >= MAX_OPEN) {
    const [oldest, old] = open.entries().next().value as [string, Database];
    old.close();
    open.delete(oldest);
  }
  db = new Database(path, { readonly: true, safeIntegers: true });
  open.set(path, db);
  return db;
}

/** Run one request (exported for in-process tests of the statement rules). */
export function runSql(req: Omit<SqlRunRequest, "id">): { rows: unknown[][] } | { error: string } {
  try {
    const stmt = firstStatement(req.sql);
    if (stmt.kind === "many") return { error: "ProgrammingError: You can only execute one statement at a time." };
    const db = database(req.db);
    if (stmt.kind === "empty") return { rows: [] };
    if (OUTSIDE_WRITES.test(stmt.sql)) return { error: "refused: ATTACH and VACUUM are not run by the SQL verifier (the database is read-only)" };
    const prepared = db.prepare(stmt.sql);
    try {
      return { rows: prepared.values() as unknown[][] };
    } finally {
      prepared.finalize();
    }
  } catch (e) {
    return { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

/** The child's loop: answer every IPC request; exit when the parent goes away. */
export function serveSqlRunner(): void {
  process.on("message", (m: SqlRunRequest) => {
    const answer: SqlRunAnswer = { id: m.id, ...runSql(m) };
    process.send!(answer);
  });
  process.on("disconnect", () => process.exit(0));
}
