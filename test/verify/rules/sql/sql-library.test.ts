/**
 * The SQL verifiers' pure rules against facts computed once with upstream's own functions
 * (test/fixtures/library/sql.json: bird_sql/spider2_lite extract_sql_from_response, has_sql_codeblock,
 * result_sets_match, compare_result_sets, compare_multi_result_sets, and Python sqlite3's
 * one-statement execute), so Python's regex, set and sort semantics are held to the recorded outcome.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import facts from "../../../fixtures/library/sql.json";
import { birdResultsMatch, spiderMultiMatch, spiderResultsMatch } from "../../../../src/verify/rules/sql/compare.ts";
import { birdExtractSql, birdHasSqlBlock, spiderExtractSql } from "../../../../src/verify/rules/sql/extract.ts";
import { firstStatement } from "../../../../src/verify/rules/sql/statement.ts";
import { pyFloatRepr, type SqlRow, type SqlValue } from "../../../../src/verify/rules/sql/values.ts";
import { runSql } from "../../../../src/verify/sql-runner.ts";

type Enc = null | string | boolean | { i?: string; f?: number | string; b?: string };
const dec = (v: Enc): SqlValue => {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (v.i !== undefined) return BigInt(v.i);
  if (v.f !== undefined) return typeof v.f === "number" ? v.f : v.f === "inf" ? Infinity : v.f === "-inf" ? -Infinity : NaN;
  return Uint8Array.from(Buffer.from(v.b!, "hex"));
};
const rows = (rs: Enc[][]): SqlRow[] => rs.map((r) => r.map(dec));
// Compare decoded cells as the JSON the facts hold (bigint and bytes spelled as in the fixture).
const enc = (v: unknown): Enc => (typeof v === "bigint" ? { i: v.toString() } : typeof v === "number" ? { f: Number.isFinite(v) ? v : v > 0 ? "inf" : "-inf" } : v instanceof Uint8Array ? { b: Buffer.from(v).toString("hex") } : (v as Enc));

describe("SQL extraction (upstream extract_sql_from_response / has_sql_codeblock)", () => {
  test.each(facts.extract.map((c, i) => [i, c] as const))("case %d", (_i, c) => {
    expect(birdExtractSql(c.text)).toBe(c.bird);
    expect(birdHasSqlBlock(c.text)).toBe(c.bird_block);
    expect(spiderExtractSql(c.text)).toBe(c.spider);
  });
});

describe("BIRD result_sets_match (set equality of rows)", () => {
  test.each(facts.bird.map((c, i) => [i, c] as const))("case %d", (_i, c) => {
    expect(birdResultsMatch(rows(c.gold as Enc[][]), rows(c.pred as Enc[][]))).toBe(c.match);
  });
});

describe("Spider 2.0-Lite compare_result_sets (column vectors)", () => {
  test.each(facts.spider.map((c, i) => [i, c] as const))("case %d", (_i, c) => {
    expect(spiderResultsMatch(rows(c.gold as Enc[][]), rows(c.pred as Enc[][]), c.cols as number[] | null, c.ignore_order)).toBe(c.match);
  });
});

describe("Spider 2.0-Lite compare_multi_result_sets", () => {
  test.each(facts.multi.map((c, i) => [i, c] as const))("case %d", (_i, c) => {
    expect(spiderMultiMatch((c.golds as Enc[][][]).map(rows), rows(c.pred as Enc[][]), c.cols as unknown[] | null, c.ignore_order)).toBe(c.match);
  });
});

describe("one statement per execute, as Python's sqlite3 (runner rules on a read-only file)", () => {
  const dir = mkdtempSync(join(tmpdir(), "gym-sql-stmt-"));
  const file = join(dir, "t.sqlite");
  const db = new Database(file, { create: true });
  db.run(facts.statements_setup);
  db.close();
  test.each(facts.statements.map((c) => [JSON.stringify(c.sql), c] as const))("%s", (_n, c) => {
    const got = runSql({ db: file, sql: c.sql });
    if ("error" in c) expect("error" in got).toBe(true);
    else {
      expect("rows" in got).toBe(true);
      if ("rows" in got) expect(got.rows.map((r) => r.map(enc))).toEqual(c.rows as Enc[][]);
    }
  });
  test("cleanup", () => rmSync(dir, { recursive: true, force: true }));
});

describe("statement splitting", () => {
  test.each([
    ["SELECT 1", { kind: "one", sql: "SELECT 1" }],
    ["  -- x\n ; SELECT 1 ; -- y", { kind: "one", sql: "SELECT 1 ;" }],
    ["SELECT 1; x", { kind: "many" }],
    ["CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END;", { kind: "many" }],
    ["/* */ ; ;", { kind: "empty" }],
  ] as const)("%j", (sql, want) => {
    expect(firstStatement(sql)).toEqual(want);
  });
});

describe("Python float repr (the spider sort key)", () => {
  test.each([
    [1, "1.0"],
    [0.1, "0.1"],
    [1e16, "1e+16"],
    [1.5e16, "1.5e+16"],
    [123456789012345.6, "123456789012345.6"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [-0, "-0.0"],
    [Infinity, "inf"],
    [1e300, "1e+300"],
  ] as const)("%p → %s", (n, s) => {
    expect(pyFloatRepr(n)).toBe(s);
  });
});
