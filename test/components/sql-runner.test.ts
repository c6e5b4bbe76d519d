/**
 * The SQL runner pool: read-only execution in `gym internal sql-runner` children, the per-query
 * deadline (SIGKILL + a fresh process), concurrency up to the pool size, a crashed child, and no
 * child outliving its server process.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlRunnerPool } from "../../src/components/resources/_sql-runner.ts";

const RUNAWAY = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
const dir = mkdtempSync(join(tmpdir(), "gym-sql-runner-"));
const file = join(dir, "t.sqlite");
const db = new Database(file, { create: true });
db.run("CREATE TABLE t (a INTEGER, b REAL, c TEXT, d BLOB); INSERT INTO t VALUES (9007199254740993, 0.5, 'x', x'00ff'), (2, 2.0, NULL, NULL);");
db.close();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("SqlRunnerPool", () => {
  test("rows keep INTEGER as bigint, REAL as number, BLOB as bytes", async () => {
    const pool = new SqlRunnerPool({ size: 1 });
    try {
      const r = await pool.run(file, "SELECT * FROM t ORDER BY rowid", 10);
      expect(r).toEqual({ ok: true, rows: [[9007199254740993n, 0.5, "x", new Uint8Array([0, 255])], [2n, 2, null, null]] });
    } finally {
      pool.close();
    }
  });

  test("a runaway query is killed at its deadline; the next query gets a fresh process", async () => {
    const pool = new SqlRunnerPool({ size: 1 });
    try {
      expect((await pool.run(file, "SELECT 1", 10)).ok).toBe(true);
      const [first] = pool.pids();
      const t0 = performance.now();
      const r = await pool.run(file, RUNAWAY, 0.3);
      expect(r).toMatchObject({ ok: false, reason: "timeout" });
      expect(performance.now() - t0).toBeGreaterThanOrEqual(300);
      await Bun.sleep(0); // let the kill land
      const after = await pool.run(file, "SELECT 2", 10);
      expect(after).toEqual({ ok: true, rows: [[2n]] });
      expect(pool.pids()).not.toContain(first!);
      expect(pool.spawned).toBe(2);
      // The killed process is gone (it would otherwise burn a core forever).
      for (let i = 0; i < 200 && alive(first!); i++) await Bun.sleep(10);
      expect(alive(first!)).toBe(false);
    } finally {
      pool.close();
    }
  });

  test("runaway queries run side by side up to the pool size", async () => {
    const pool = new SqlRunnerPool({ size: 2 });
    try {
      const t0 = performance.now();
      const rs = await Promise.all([pool.run(file, RUNAWAY, 0.5), pool.run(file, RUNAWAY, 0.5)]);
      const took = performance.now() - t0;
      expect(rs.map((r) => (r.ok ? "ok" : r.reason))).toEqual(["timeout", "timeout"]);
      // Both deadlines ran at once: well under two deadlines back to back (plus process start-up).
      expect(took).toBeLessThan(1000 + 2000);
      // A third query waits for a free process rather than failing.
      expect(await pool.run(file, "SELECT 3", 10)).toEqual({ ok: true, rows: [[3n]] });
    } finally {
      pool.close();
    }
  });

  test("a child that dies answers crash; a closed pool answers crash", async () => {
    const pool = new SqlRunnerPool({ size: 1, command: ["sh", "-c", "exit 3"] });
    const r = await pool.run(file, "SELECT 1", 10);
    expect(r).toMatchObject({ ok: false, reason: "crash" });
    pool.close();
    expect(await pool.run(file, "SELECT 1", 10)).toMatchObject({ ok: false, reason: "crash" });
  });

  test("no runner outlives its server process (killed with SIGKILL)", async () => {
    const script = join(dir, "host.ts");
    await Bun.write(script, `import { SqlRunnerPool } from ${JSON.stringify(join(import.meta.dir, "../../src/components/resources/_sql-runner.ts"))};\nconst p = new SqlRunnerPool({ size: 1 });\nawait p.run(${JSON.stringify(file)}, "SELECT 1", 10);\nconsole.log(p.pids()[0]);\nsetInterval(() => {}, 1000);\n`);
    const host = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "inherit" });
    const reader = host.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const runner = Number(text.trim());
    expect(alive(runner)).toBe(true);
    host.kill("SIGKILL");
    await host.exited;
    for (let i = 0; i < 500 && alive(runner); i++) await Bun.sleep(10);
    expect(alive(runner)).toBe(false);
  }, 30_000);
});
