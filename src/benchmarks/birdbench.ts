/**
 * BIRD dev (upstream benchmarks/birdbench/prepare.py): rows `{question, gt_sql, sql_context, difficulty,
 * db_id, id}` from dev.json, where `sql_context` is each database's dump as Python's
 * `sqlite3.Connection.iterdump()` writes it (INSERT lines on one line, runs of spaces collapsed), with
 * upstream's two truncations (runs of INSERT lines cut after 10 and a "...", long VALUES chains
 * collapsed). The databases are left under the output root at `resources_servers/bird_sql/.bird_sql/
 * dev_20240627/dev_databases/`, where the bird_sql server's default `bird_sql_dir` finds them (the
 * prepared root is a search root); upstream's server downloads the same dev.zip at start-up.
 */
import { Database } from "bun:sqlite";
import { readZip } from "../dataset/formats/zip.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { BIRD_DEV_ZIP_URL } from "../components/resources/bird-sql.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { PY_SPACE_CLASS } from "../util/py-str.ts";
import type { BenchmarkPreparer, PreparedOutput } from "./types.ts";

/** Where the databases go under the output root (bird_sql's default `bird_sql_dir` + upstream's layout). */
export const BIRD_DB_ROOT = "resources_servers/bird_sql/.bird_sql/dev_20240627/dev_databases";

// Lines kept per run of INSERT lines: the truncation below keeps 10 and swallows the rest, so an 11th is
// enough to make it fire exactly as on the whole dump (which can be gigabytes).
const RUN_KEPT = 11;

/**
 * SQLite's `quote()` of a REAL as the SQLite of upstream's Python wrote it (3.40): `%!.15g`, or `%!.20e`
 * when 15 digits do not read back as the same double (bun:sqlite's newer SQLite writes `%!.17g`).
 * The 20-digit form is rounded exactly here; SQLite's long-double digit loop can differ in the last places.
 */
export function sqliteQuoteReal(x: number): string {
  if (Number.isNaN(x)) return "NULL";
  if (!Number.isFinite(x)) return x > 0 ? "9.0e+999" : "-9.0e+999";
  const exp = (e: number) => `e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  const [m, e] = x.toExponential(14).split("e") as [string, string];
  const X = Number(e);
  const trim = (digits: string) => digits.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, ".0");
  let g: string;
  if (X < -4 || X >= 15) g = `${trim(m)}${exp(X)}`;
  else {
    const neg = m.startsWith("-");
    const digits = m.replace("-", "").replace(".", "");
    const fixed = X >= 0 ? `${digits.slice(0, X + 1)}.${digits.slice(X + 1)}` : `0.${"0".repeat(-X - 1)}${digits}`;
    g = `${neg ? "-" : ""}${trim(fixed)}`;
  }
  if (Number(g) === x) return g;
  const [m20, e20] = x.toExponential(20).split("e") as [string, string];
  return `${m20}${exp(Number(e20))}`;
}

/** SQLite's `quote()` of one value (INTEGER as bigint, REAL as number). */
function quote(v: unknown): string {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return sqliteQuoteReal(v);
  if (typeof v === "string") return `'${v.replaceAll("'", "''")}'`;
  return `X'${Buffer.from(v as Uint8Array).toString("hex").toUpperCase()}'`;
}

/**
 * `iterdump()` of Python 3.11/3.12 as physical lines, INSERT lines flattened and every run of spaces
 * collapsed (upstream's per-line step), each table's rows read only as far as the truncation can see.
 */
function dumpLines(db: Database): string[] {
  const out: string[] = [];
  let run = 0;
  const push = (stmt: string) => {
    const flat = stmt.startsWith("INSERT") ? stmt.replaceAll("\n", " ") : stmt;
    for (const line of flat.replace(/ +/g, " ").split("\n")) {
      run = line.startsWith("INSERT") ? run + 1 : 0;
      if (run <= RUN_KEPT) out.push(line);
    }
  };
  push("BEGIN TRANSACTION;");
  const tables = db.query(`SELECT "name", "type", "sql" FROM "sqlite_master" WHERE "sql" NOT NULL AND "type" == 'table' ORDER BY "name"`).values() as [string, string, string][];
  let sequence: string[] = [];
  let writableSchema = false;
  for (const [name, , sql] of tables) {
    if (name === "sqlite_sequence") {
      const rows = db.query(`SELECT * FROM "sqlite_sequence";`).values() as [unknown, unknown][];
      sequence = [`DELETE FROM "sqlite_sequence"`, ...rows.map(([n, seq]) => `INSERT INTO "sqlite_sequence" VALUES('${String(n)}',${String(seq)})`)];
      continue;
    } else if (name === "sqlite_stat1") push(`ANALYZE "sqlite_master";`);
    else if (name.startsWith("sqlite_")) continue;
    else if (sql.startsWith("CREATE VIRTUAL TABLE")) {
      if (!writableSchema) {
        writableSchema = true;
        push("PRAGMA writable_schema=ON;");
      }
      push(`INSERT INTO sqlite_master(type,name,tbl_name,rootpage,sql)VALUES('table','${name.replaceAll("'", "''")}','${name.replaceAll("'", "''")}',0,'${sql.replaceAll("'", "''")}');`);
    } else push(`${sql};`);
    const ident = name.replaceAll('"', '""');
    const cols = (db.query(`PRAGMA table_info("${ident}")`).values() as unknown[][]).map((c) => String(c[1]));
    if (cols.length === 0) continue;
    const select = `SELECT ${cols.map((c) => `"${c.replaceAll('"', '""')}"`).join(",")} FROM "${ident}" LIMIT ${RUN_KEPT}`;
    for (const row of db.query(select).values()) push(`INSERT INTO "${ident}" VALUES(${row.map(quote).join(",")});`);
  }
  for (const [, , sql] of db.query(`SELECT "name", "type", "sql" FROM "sqlite_master" WHERE "sql" NOT NULL AND "type" IN ('index', 'trigger', 'view')`).values() as [string, string, string][]) push(`${sql};`);
  if (writableSchema) push("PRAGMA writable_schema=OFF;");
  for (const s of sequence) push(`${s};`);
  push("COMMIT;");
  return out;
}

// Upstream's two truncations, Python `re` under MULTILINE translated (`.` stops only at "\n").
const INSERT_CHAIN = /((INSERT[^\n]*\n){10})((INSERT[^\n]*\n)*)/g;
const MANY_VALUES = new RegExp(`(?:VALUES )(((\\([^)]*)\\)[,;][${PY_SPACE_CLASS}]*)){10}([^\\n]*)(?:;)`, "g");

/** One database's `sql_context`. */
export function birdSqlContext(bytes: Uint8Array): string {
  const db = Database.deserialize(bytes, { readonly: true, safeIntegers: true });
  try {
    const text = dumpLines(db).map((l) => `${l}\n`).join("");
    return text.replace(INSERT_CHAIN, "$1\n...\n").replace(MANY_VALUES, "...");
  } finally {
    db.close();
  }
}

const DB_FILE = /^dev_databases\/([^/]+)\/([^/]+)\.sqlite$/;

/** The birdbench preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "birdbench",
  server: "bird_sql",
  sources: [{ kind: "url", url: BIRD_DEV_ZIP_URL, file: "dev.zip" }],
  prepare(files): PreparedOutput {
    const zip = files[0]![0]!;
    const outer = readZip(zip.bytes, zip.name, (p) => p === "dev_20240627/dev.json" || p === "dev_20240627/dev_databases.zip");
    const devJson = outer.find((e) => e.path === "dev_20240627/dev.json");
    const inner = outer.find((e) => e.path === "dev_20240627/dev_databases.zip");
    if (!devJson || !inner) throw new SourceFormatError(zip.name, "expected dev_20240627/dev.json and dev_20240627/dev_databases.zip inside (BIRD's dev.zip layout)");
    // glob("*") of dev_databases/, sorted, keeping the folders that hold <name>/<name>.sqlite.
    const dbs = readZip(inner.data, "dev_databases.zip", (p) => {
      const m = DB_FILE.exec(p);
      return m !== null && m[1] === m[2] && !m[1]!.startsWith(".");
    })
      .map((e) => ({ id: DB_FILE.exec(e.path)![1]!, data: e.data }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const contexts = new Map(dbs.map((d) => [d.id, birdSqlContext(d.data)]));
    let entries: unknown;
    try {
      entries = JSON.parse(new TextDecoder().decode(devJson.data));
    } catch (e) {
      throw new SourceFormatError(`${zip.name}:dev_20240627/dev.json`, `not JSON (${(e as Error).message})`);
    }
    if (!Array.isArray(entries)) throw new SourceFormatError(`${zip.name}:dev_20240627/dev.json`, "expected a JSON list of questions");
    const lines = entries.map((entry: Record<string, unknown>, i) => {
      for (const k of ["question", "SQL", "difficulty", "db_id"]) if (!(k in entry)) throw new SourceFormatError(`${zip.name}:dev_20240627/dev.json[${i}]`, `the entry has no '${k}'`);
      const ctx = contexts.get(entry.db_id as string);
      if (ctx === undefined) throw new SourceFormatError(`${zip.name}:dev_20240627/dev.json[${i}]`, `db_id ${JSON.stringify(entry.db_id)} has no dev_databases/<db_id>/<db_id>.sqlite`);
      return pyDumps({ question: entry.question, gt_sql: entry.SQL, sql_context: ctx, difficulty: entry.difficulty, db_id: entry.db_id, id: i });
    });
    const extra = dbs.map((d) => ({ path: `${BIRD_DB_ROOT}/${d.id}/${d.id}.sqlite`, bytes: d.data }));
    return { lines, extra };
  },
};
