/**
 * Python's sqlite3 runs ONE statement per `cursor.execute`: leading empty statements (`;`) and
 * comments are skipped, text that is only whitespace/comments yields no rows, and anything but
 * whitespace/comments after the first statement is a ProgrammingError ("You can only execute one
 * statement at a time."). bun:sqlite silently ignores the tail, so the runner splits here first.
 * The scanner follows SQLite's tokenizer for the parts that can hide a `;`: '…' strings, "…", `…`
 * and […] identifiers, `--` line comments and `/* … *\/` block comments (unterminated runs to the end).
 */

/** The one statement to run, or why there is none. */
export type FirstStatement = { kind: "empty" } | { kind: "many" } | { kind: "one"; sql: string };

const SPACE = new Set([" ", "\t", "\n", "\f", "\r"]);

/** Index just past the comment or quoted token starting at `i`, or -1 when none starts there. */
function skipToken(sql: string, i: number): number {
  const c = sql[i];
  if (c === "-" && sql[i + 1] === "-") {
    const nl = sql.indexOf("\n", i + 2);
    return nl < 0 ? sql.length : nl + 1;
  }
  if (c === "/" && sql[i + 1] === "*") {
    const end = sql.indexOf("*/", i + 2);
    return end < 0 ? sql.length : end + 2;
  }
  const close = c === "'" ? "'" : c === '"' ? '"' : c === "`" ? "`" : c === "[" ? "]" : null;
  if (close === null) return -1;
  let j = i + 1;
  for (;;) {
    const k = sql.indexOf(close, j);
    if (k < 0) return sql.length;
    // A doubled quote is an escaped quote (not inside […]).
    if (close !== "]" && sql[k + 1] === close) {
      j = k + 2;
      continue;
    }
    return k + 1;
  }
}

/** Index of the first character that is not whitespace, a comment or (when `semis`) a `;`. */
function skipBlank(sql: string, i: number, semis: boolean): number {
  while (i < sql.length) {
    const c = sql[i]!;
    if (SPACE.has(c) || (semis && c === ";")) {
      i++;
      continue;
    }
    if ((c === "-" && sql[i + 1] === "-") || (c === "/" && sql[i + 1] === "*")) {
      i = skipToken(sql, i);
      continue;
    }
    break;
  }
  return i;
}

/** Split `sql` as Python's `cursor.execute` would see it. */
export function firstStatement(sql: string): FirstStatement {
  const start = skipBlank(sql, 0, true);
  if (start >= sql.length) return { kind: "empty" };
  let i = start;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === ";") break;
    const next = skipToken(sql, i);
    i = next < 0 ? i + 1 : next;
  }
  if (i >= sql.length) return { kind: "one", sql: sql.slice(start) };
  const tail = skipBlank(sql, i + 1, false);
  return tail < sql.length ? { kind: "many" } : { kind: "one", sql: sql.slice(start, i + 1) };
}
