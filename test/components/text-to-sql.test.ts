/** text_to_sql SQL extraction: upstream's tests (resources_servers/text_to_sql/tests/test_app.py) as data. */
import { describe, expect, test } from "bun:test";
import { extractSql, normalizeDialect } from "../../src/verify/judge/sql.ts";

// [name, answer text, exact result | undefined, substrings the result must contain]
const CASES: [string, string, string | undefined | null, string[]][] = [
  ["sql block", "Here's the query:\n\n```sql\nSELECT * FROM users;\n```", "SELECT * FROM users;", []],
  ["generic block", "Here's the query:\n\n```\nSELECT name FROM employees;\n```", "SELECT name FROM employees;", []],
  ["raw select", "The answer is SELECT id, name FROM products WHERE price > 100;", null, ["SELECT id, name FROM products WHERE price > 100"]],
  ["raw CTE", "Answer: WITH cte AS (SELECT * FROM t) SELECT * FROM cte;", null, ["WITH cte"]],
  ["none", "I don't know how to write this query.", undefined, []],
  ["empty", "", undefined, []],
  ["last block", "First:\n```sql\nSELECT 1;\n```\n\nSecond:\n```sql\nSELECT 2;\n```", "SELECT 2;", []],
  ["multiline", "```sql\nSELECT\n    u.name,\n    COUNT(o.id) as order_count\nFROM users u\nLEFT JOIN orders o ON u.id = o.user_id\nGROUP BY u.id, u.name\nORDER BY order_count DESC;\n```", null, ["SELECT", "LEFT JOIN", "GROUP BY"]],
  ["; in a literal", "WITH extracted AS (\n    SELECT\n        CASE\n            WHEN INSTR(status_log, ';') > 0\n            THEN SUBSTR(status_log, 1, INSTR(status_log, ';') - 1)\n            ELSE status_log\n        END AS clean_log\n    FROM sensor_reading\n)\nSELECT clean_log FROM extracted ORDER BY clean_log;", null, ["WITH extracted", "INSTR(status_log, ';')", "ORDER BY clean_log;"]],
  ["; in a line comment", "WITH current_semester AS (\n    SELECT semester_id,\n        occupied_seats -- convert to number;\n    FROM occupancy_log\n)\nSELECT building_id, AVG(occupied_seats) AS avg_occ\nFROM current_semester\nGROUP BY building_id\nORDER BY avg_occ DESC;", null, ["WITH current_semester", "ORDER BY avg_occ DESC;"]],
  ["no semicolon", "WITH t AS (SELECT 1 AS x) SELECT x FROM t", "WITH t AS (SELECT 1 AS x) SELECT x FROM t;", ["WITH t", "SELECT x FROM t"]],
];

describe("extractSql", () => {
  test.each(CASES)("%s", (_n, text, exact, parts) => {
    const got = extractSql(text);
    if (exact !== null) expect(got).toBe(exact);
    for (const p of parts) expect(got).toContain(p);
  });

  test("dialect aliases", () => {
    expect([normalizeDialect(" Postgres "), normalizeDialect("sqlite3"), normalizeDialect("MySQL"), normalizeDialect("")]).toEqual(["postgresql", "sqlite", "mysql", undefined]);
  });
});
