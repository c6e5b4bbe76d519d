/**
 * The SQL verifiers' executor (components/resources/_sql-runner.ts): per-query cost of a warm runner
 * process against bun:sqlite in process (the floor), how closely a runaway query's answer follows its
 * deadline, and what a kill costs the next query (a fresh process). Prints figures and ratios only.
 *   bun scripts/bench-sql.ts
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlRunnerPool } from "../src/components/resources/_sql-runner.ts";

const RUNAWAY = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
const dir = mkdtempSync(join(tmpdir(), "gym-bench-sql-"));
const file = join(dir, "b.sqlite");
const setup = new Database(file, { create: true });
setup.run("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, v REAL)");
const ins = setup.prepare("INSERT INTO t (name, v) VALUES (?, ?)");
setup.transaction(() => {
  for (let i = 0; i < 20_000; i++) ins.run(`n${i % 997}`, i / 7);
})();
setup.close();

const QUERY = "SELECT name, count(*), avg(v) FROM t WHERE id % 3 = 0 GROUP BY name ORDER BY name LIMIT 50";
const N = 300;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const local = new Database(file, { readonly: true, safeIntegers: true });
const inProc: number[] = [];
for (let i = 0; i < N; i++) {
  const t = performance.now();
  const st = local.prepare(QUERY);
  st.values();
  st.finalize();
  inProc.push(performance.now() - t);
}
local.close();

const pool = new SqlRunnerPool({ size: 1 });
let t = performance.now();
await pool.run(file, "SELECT 1", 30);
const coldStart = performance.now() - t;
const viaRunner: number[] = [];
for (let i = 0; i < N; i++) {
  t = performance.now();
  const r = await pool.run(file, QUERY, 30);
  if (!r.ok) throw new Error(r.message);
  viaRunner.push(performance.now() - t);
}
console.log(`query (GROUP BY over 20k rows), median of ${N}: in process ${median(inProc).toFixed(3)} ms, via runner ${median(viaRunner).toFixed(3)} ms (ratio ${(median(viaRunner) / median(inProc)).toFixed(2)}×, IPC overhead ${(median(viaRunner) - median(inProc)).toFixed(3)} ms)`);
const trivial: number[] = [];
for (let i = 0; i < N; i++) {
  t = performance.now();
  await pool.run(file, "SELECT 1", 30);
  trivial.push(performance.now() - t);
}
console.log(`round trip of SELECT 1 via runner (IPC + prepare), median of ${N}: ${median(trivial).toFixed(3)} ms`);
console.log(`runner cold start (spawn + first query): ${coldStart.toFixed(1)} ms`);

for (const deadline of [0.2, 0.5, 1.0]) {
  t = performance.now();
  const r = await pool.run(file, RUNAWAY, deadline);
  const answered = performance.now() - t;
  t = performance.now();
  await pool.run(file, "SELECT 1", 30);
  const next = performance.now() - t;
  console.log(`runaway query, deadline ${deadline * 1000} ms: answered '${r.ok ? "rows" : r.reason}' after ${answered.toFixed(1)} ms (+${(answered - deadline * 1000).toFixed(1)} ms); next query (fresh process) ${next.toFixed(1)} ms`);
}
pool.close();
rmSync(dir, { recursive: true, force: true });
