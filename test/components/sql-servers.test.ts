/**
 * bird_sql and spider2_lite over real loopback servers on fixture SQLite databases built in upstream's
 * layouts: upstream's unit tests (tests/test_app.py) as data, plus bad input — no SQL, syntax errors,
 * several statements, a write attempt (the file stays unchanged), a runaway query (the deadline
 * answers and the server keeps serving), a db_id that is a path, missing databases (the error names
 * the key, the path and the fetch command) and bodies that fail the schema.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { birdComputeMetrics, birdKeyMetrics } from "../../src/components/resources/bird-sql.ts";
import { findBuiltin } from "../../src/components/registry.ts";
import "../../src/components/index.ts";
import type { ServerApp } from "../../src/runtime/http/http-types.ts";
import { serveApp } from "../../src/runtime/http/http.ts";
import { buildBirdDir, buildSpider2Dir } from "../fixtures/sql/build.ts";
import { postJson } from "../servers/_stack.ts";

type Obj = Record<string, any>;
const RUNAWAY = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";

const response = (text: string) => ({ id: "r", created_at: 0, model: "m", object: "response", output: [{ id: "m1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }], parallel_tool_calls: false, tool_choice: "auto", tools: [] });
const body = (text: string, extra: Obj) => ({ responses_create_params: { input: [{ role: "user", content: "q" }] }, response: response(text), ...extra });

async function serve(impl: string, leaf: Obj): Promise<{ url: string; stop: () => Promise<void>; app: ServerApp }> {
  const comp = (await findBuiltin("resources_servers", impl))!;
  const config = { entrypoint: "app.py", host: "127.0.0.1", name: `${impl}_test`, ...leaf };
  const app = await comp.create({ instanceName: `${impl}_test`, config, globalConfig: {} });
  const server = serveApp(app, { host: "127.0.0.1", port: 0 });
  return { url: `http://127.0.0.1:${server.port}`, app, stop: async () => { await server.stop(true); await app.close?.(); } };
}

const root = mkdtempSync(join(tmpdir(), "gym-sql-servers-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("bird_sql", () => {
  const dir = join(root, "bird");
  let s: Awaited<ReturnType<typeof serve>>;
  let dbFile: string;
  beforeAll(async () => {
    dbFile = join(buildBirdDir(dir), "california_schools", "california_schools.sqlite");
    s = await serve("bird_sql", { bird_sql_dir: dir, max_concurrency: 4, sql_execution_timeout_s: 1.0 });
  });
  afterAll(async () => await s.stop());
  const row = { question: "q", gt_sql: "SELECT `School Name` FROM frpm WHERE `County Name` = 'Alameda' AND `Charter School (Y/N)` = 1", db_id: "california_schools", difficulty: "simple", id: 3 };
  const verify = (text: string, extra: Obj = {}) => postJson(`${s.url}/verify`, body(text, { ...row, ...extra }));

  // [case, answer text, extra row fields, reward, failure_reason, had_codeblock, extracted_sql]
  const CASES: [string, string, Obj, number, string, boolean, string][] = [
    ["match (other order, duplicates)", "```sql\nSELECT `School Name` FROM frpm WHERE `Charter School (Y/N)` = 1 UNION ALL SELECT `School Name` FROM frpm WHERE `Charter School (Y/N)` = 1 ORDER BY 1 DESC\n```", {}, 1, "none", true, "SELECT `School Name` FROM frpm WHERE `Charter School (Y/N)` = 1 UNION ALL SELECT `School Name` FROM frpm WHERE `Charter School (Y/N)` = 1 ORDER BY 1 DESC"],
    ["mismatch with a block", "```sql\nSELECT `School Name` FROM frpm\n```", {}, 0, "execution_error", true, "SELECT `School Name` FROM frpm"],
    ["no block: the SELECT 1 filler runs", "SELECT * FROM frpm;", {}, 0, "no_sql_extracted", false, "SELECT 1"],
    ["empty answer: the filler runs", "", {}, 0, "no_sql_extracted", false, "SELECT 1"],
    ["filler matches a SELECT 1 gold", "no sql", { gt_sql: "SELECT 1" }, 1, "none", false, "SELECT 1"],
    ["pred syntax error", "```sql\nSELEC BROKEN\n```", {}, 0, "execution_error", true, "SELEC BROKEN"],
    ["pred missing table", "```sql\nSELECT * FROM nope\n```", {}, 0, "execution_error", true, "SELECT * FROM nope"],
    ["gold error", "```sql\nSELECT 1\n```", { gt_sql: "SELECT * FROM nope" }, 0, "gold_execution_error", true, "SELECT 1"],
    ["two statements are refused like Python's sqlite3", "```sql\nSELECT 1; SELECT 2\n```", { gt_sql: "SELECT 1" }, 0, "execution_error", true, "SELECT 1; SELECT 2"],
    ["a -- comment eats the rest: empty SQL gives no rows", "```sql\n-- all of it\nSELECT 1\n```", { gt_sql: "SELECT 1 WHERE 0" }, 1, "none", true, ""],
    ["unknown db_id", "```sql\nSELECT 1\n```", { db_id: "no_such_db" }, 0, "gold_execution_error", true, "SELECT 1"],
    ["db_id that is a path", "```sql\nSELECT 1\n```", { db_id: "../bird/dev_20240627" }, 0, "gold_execution_error", true, "SELECT 1"],
  ];
  test.each(CASES)("%s", async (_n, text, extra, reward, failure, block, extracted) => {
    const r = await verify(text, extra);
    expect(r.status).toBe(200);
    expect({ reward: r.json.reward, failure: r.json.failure_reason, block: r.json.had_codeblock, extracted: r.json.extracted_sql, match: r.json.execution_match }).toEqual({ reward, failure, block, extracted, match: reward === 1 });
    expect(r.json).toMatchObject({ question: "q", db_id: extra.db_id ?? "california_schools", difficulty: "simple", id: 3, model_output: text });
  });

  test("a write statement fails and leaves the database file unchanged", async () => {
    const before = readFileSync(dbFile);
    for (const sql of ["DELETE FROM frpm", "DROP TABLE schools", "UPDATE frpm SET `County Name` = 'x'", "CREATE TABLE evil (x)", "ATTACH DATABASE '" + join(dir, "evil.sqlite") + "' AS e", "VACUUM INTO '" + join(dir, "copy.sqlite") + "'"]) {
      const r = await verify("```sql\n" + sql + "\n```", { gt_sql: "SELECT 1" });
      expect([sql, r.json.reward, r.json.failure_reason]).toEqual([sql, 0, "execution_error"]);
    }
    expect(readFileSync(dbFile).equals(before)).toBe(true);
    const db = new Database(dbFile, { readonly: true });
    expect(db.query("SELECT count(*) AS n FROM frpm").get()).toEqual({ n: 14 });
    db.close();
  });

  test("a runaway query answers at its deadline and the server keeps serving", async () => {
    const t0 = performance.now();
    const r = await verify("```sql\n" + RUNAWAY + "\n```", { gt_sql: "SELECT 1" });
    const took = performance.now() - t0;
    expect([r.status, r.json.reward, r.json.failure_reason]).toEqual([200, 0, "execution_error"]);
    expect(took).toBeGreaterThanOrEqual(1000);
    const after = await verify("```sql\nSELECT 1\n```", { gt_sql: "SELECT 1" });
    expect([after.json.reward, after.json.failure_reason]).toEqual([1, "none"]);
    // A runaway gold query is a gold error.
    const gold = await verify("```sql\nSELECT 1\n```", { gt_sql: RUNAWAY });
    expect(gold.json.failure_reason).toBe("gold_execution_error");
  });

  test("bad bodies: missing gt_sql / db_id → 422", async () => {
    const { gt_sql: _g, ...noGold } = row;
    expect((await postJson(`${s.url}/verify`, { ...body("x", noGold) })).status).toBe(422);
    const { db_id: _d, ...noDb } = row;
    expect((await postJson(`${s.url}/verify`, { ...body("x", noDb) })).status).toBe(422);
  });

  test("metrics: pass@k over extracted_sql and per difficulty; key metrics per subset", () => {
    const t = (reward: number, difficulty: string, i: number) => [{ reward, difficulty, extracted_sql: `q${i}`, _ng_task_index: i, _ng_rollout_index: 0 }];
    const m = birdComputeMetrics([t(1, "simple", 0), t(0, "simple", 1), t(1, "moderate", 2)]);
    expect(m["pass@1/accuracy"]).toBeCloseTo(200 / 3, 6);
    expect([m["simple/pass@1/accuracy"], m["moderate/pass@1/accuracy"]]).toEqual([50, 100]);
    const key = birdKeyMetrics({ ...m, "mean/input_tokens": 10 });
    expect(Object.keys(key).sort()).toEqual(["mean/input_tokens", "moderate/pass@1[avg-of-1]/accuracy", "pass@1/accuracy", "pass@1[avg-of-1]/accuracy", "simple/pass@1[avg-of-1]/accuracy"].sort());
  });
});

describe("missing databases", () => {
  test("bird_sql: /verify fails naming bird_sql_dir, the path and the fetch command", async () => {
    const empty = join(root, "empty-bird");
    mkdirSync(empty, { recursive: true });
    const s = await serve("bird_sql", { bird_sql_dir: empty });
    try {
      const r = await postJson(`${s.url}/verify`, body("```sql\nSELECT 1\n```", { question: "q", gt_sql: "SELECT 1", db_id: "x" }));
      expect(r.status).toBe(500);
      expect(r.text).toContain("bird_sql_dir");
      expect(r.text).toContain(join(empty, "dev_20240627", "dev_databases"));
      expect(r.text).toContain("https://bird-bench.oss-cn-beijing.aliyuncs.com/dev.zip");
    } finally {
      await s.stop();
    }
  });
  test("spider2_lite: the same for spider2_lite_dir", async () => {
    const s = await serve("spider2_lite", { spider2_lite_dir: join(root, "nowhere") });
    try {
      const r = await postJson(`${s.url}/verify`, body("```sql\nSELECT 1\n```", { question: "q", gold_sql: "SELECT 1", db_id: "x" }));
      expect(r.status).toBe(500);
      for (const s2 of ["spider2_lite_dir", join(root, "nowhere", "sqlite"), "drive.usercontent.google.com"]) expect(r.text).toContain(s2);
    } finally {
      await s.stop();
    }
  });
  test("bad settings are config errors", async () => {
    const comp = (await findBuiltin("resources_servers", "bird_sql"))!;
    for (const [k, v] of [["sql_execution_timeout_s", 0], ["max_concurrency", 1.5], ["bird_sql_dir", 3]] as const) {
      expect(() => comp.checkConfig!({ instanceName: "b", config: { [k]: v } })).toThrow(k);
    }
  });
});

describe("spider2_lite", () => {
  const dir = join(root, "spider");
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    const dbs = buildSpider2Dir(dir);
    // Upstream's unit-test database.
    const db = new Database(join(dbs, "TestDB.sqlite"), { create: true });
    db.run("CREATE TABLE items (id INTEGER, name TEXT, val REAL); INSERT INTO items VALUES (1, 'alpha', 1.0), (2, 'beta', 2.0);");
    db.close();
    s = await serve("spider2_lite", { spider2_lite_dir: dir, sql_execution_timeout_s: 1.0 });
  });
  afterAll(async () => await s.stop());
  const verify = (text: string, extra: Obj) => postJson(`${s.url}/verify`, body(text, { db_id: "TestDB", question: "test question", ...extra }));

  // upstream TestSpider2LiteServerUnit + bad input: [case, text, fields, reward, failure_reason, extracted_sql]
  const CASES: [string, string, Obj, number, string, string | null][] = [
    ["gold_sql match", "```sql\nSELECT id, name, val FROM items ORDER BY id;\n```", { gold_sql: "SELECT id, name, val FROM items ORDER BY id" }, 1, "none", "SELECT id, name, val FROM items ORDER BY id;"],
    ["gold_sql mismatch", "```sql\nSELECT 1;\n```", { gold_sql: "SELECT id FROM items" }, 0, "execution_error", "SELECT 1;"],
    ["no SQL extracted", "I don't know.", { gold_sql: "SELECT 1" }, 0, "no_sql_extracted", null],
    ["empty response", "", { gold_sql: "SELECT 1" }, 0, "no_sql_extracted", null],
    ["gold_result mode", "```sql\nSELECT name FROM items ORDER BY id;\n```", { gold_result: [[["alpha"], ["beta"]]], ignore_order: true, condition_cols: null }, 1, "none", "SELECT name FROM items ORDER BY id;"],
    ["gold_result mismatch", "```sql\nSELECT id FROM items;\n```", { gold_result: [[["alpha"], ["beta"]]], ignore_order: true }, 0, "execution_error", "SELECT id FROM items;"],
    ["pred execution error", "```sql\nSELECT * FROM nonexistent_table;\n```", { gold_sql: "SELECT 1" }, 0, "execution_error", "SELECT * FROM nonexistent_table;"],
    ["gold execution error", "```sql\nSELECT 1;\n```", { gold_sql: "SELECT * FROM nonexistent_table" }, 0, "execution_error", "SELECT 1;"],
    ["ignore_order", "```sql\nSELECT name FROM items ORDER BY name DESC;\n```", { gold_sql: "SELECT name FROM items ORDER BY name ASC", ignore_order: true }, 1, "none", "SELECT name FROM items ORDER BY name DESC;"],
    ["order kept when ignore_order is false", "```sql\nSELECT name FROM items ORDER BY name DESC;\n```", { gold_sql: "SELECT name FROM items ORDER BY name ASC", ignore_order: false }, 0, "execution_error", "SELECT name FROM items ORDER BY name DESC;"],
    ["condition_cols", "```sql\nSELECT id, val FROM items ORDER BY id;\n```", { gold_sql: "SELECT id, name FROM items ORDER BY id", condition_cols: [0], ignore_order: true }, 1, "none", "SELECT id, val FROM items ORDER BY id;"],
    ["multi gold_result", "```sql\nSELECT name FROM items ORDER BY id;\n```", { gold_result: [[["wrong"]], [["alpha"], ["beta"]]], ignore_order: true }, 1, "none", "SELECT name FROM items ORDER BY id;"],
    ["write attempt", "```sql\nDELETE FROM items;\n```", { gold_sql: "SELECT id FROM items WHERE 0" }, 0, "execution_error", "DELETE FROM items;"],
    ["runaway query", "```sql\n" + RUNAWAY + "\n```", { gold_sql: "SELECT 1" }, 0, "execution_error", RUNAWAY],
    ["raw SQL in prose", "The answer is SELECT name FROM items WHERE id = 2; hope it helps", { gold_result: [[["beta"]]] }, 1, "none", "SELECT name FROM items WHERE id = 2;"],
  ];
  test.each(CASES)("%s", async (_n, text, extra, reward, failure, extracted) => {
    const r = await verify(text, extra);
    expect(r.status).toBe(200);
    expect({ reward: r.json.reward, failure: r.json.failure_reason, extracted: r.json.extracted_sql, match: r.json.execution_match }).toEqual({ reward, failure, extracted, match: reward === 1 });
    // Upstream's answer drops gold_result/ignore_order/condition_cols and always carries uuid/instance_id/metadata.
    for (const k of ["gold_result", "ignore_order", "condition_cols"]) expect(r.json).not.toHaveProperty([k]);
    expect(r.json).toMatchObject({ uuid: null, instance_id: null, metadata: null, db_id: "TestDB", question: "test question", model_output: text, gold_sql: extra.gold_sql ?? null });
  });

  test("uuid passes through", async () => {
    const r = await verify("```sql\nSELECT 1;\n```", { gold_sql: "SELECT 1", uuid: "task-42" });
    expect(r.json.uuid).toBe("task-42");
  });

  test("gold_result keeps Python's int/float distinction (it orders the vectors)", async () => {
    // Sorted by str(): float 1.0 → "1.0" sorts after "1+", int 1 → "1" before it. Upstream (json.loads) reads 1.0 as a
    // float and matches; a reading that lost the distinction would pair 1 with "1+" and miss (facts from upstream's functions).
    const raw = (gold: string) => '{"responses_create_params":{"input":[{"role":"user","content":"q"}]},"response":' + JSON.stringify(response("```sql\nSELECT 1.0 UNION ALL SELECT '1+'\n```")) + `,"db_id":"TestDB","question":"q","gold_result":[[[${gold}],["1+"]]]}`;
    const post = async (gold: string) => ((await (await fetch(`${s.url}/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: raw(gold) })).json()) as Obj).reward;
    expect(await post("1.0")).toBe(1);
    expect(await post("1")).toBe(0);
  });

  test("neither gold_sql nor gold_result → 422", async () => {
    expect((await verify("```sql\nSELECT 1;\n```", {})).status).toBe(422);
  });
  test("bad bodies: no db_id / gold_result of the wrong shape → 422", async () => {
    expect((await postJson(`${s.url}/verify`, body("x", { question: "q", gold_sql: "SELECT 1" }))).status).toBe(422);
    expect((await verify("x", { gold_result: [["alpha"]] })).status).toBe(422);
  });
});
