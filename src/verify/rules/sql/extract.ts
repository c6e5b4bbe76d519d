/**
 * Reading the SQL out of a model answer, as each upstream server does (Python `re` translated:
 * `\s` is Python's Unicode whitespace, `$` without MULTILINE also matches before a final newline).
 */
import { PY_SPACE_CLASS, pyStrip } from "../../../util/py-str.ts";

const WS = `[${PY_SPACE_CLASS}]`;

/** BIRD's answer when no ```sql block holds a letter: runs harmlessly, matches almost nothing. */
export const BIRD_NO_ANSWER_FILLER = "SELECT 1";

const BIRD_BLOCK_SOURCE = /```sql([\s\S]*?[a-zA-Z][\s\S]*?)```/.source;
// Separate objects: a global regex's lastIndex survives .test() and matchAll() copies it.
const BIRD_BLOCK_ANY = new RegExp(BIRD_BLOCK_SOURCE);
const BIRD_BLOCKS = new RegExp(BIRD_BLOCK_SOURCE, "g");
// `--.*?$` under DOTALL without MULTILINE: a `--` comment eats to the end of the text (bar a final "\n").
const BIRD_COMMENT = /--[\s\S]*?(?=\n?$)|\/\*[\s\S]*?\*\//g;
const BIRD_SPACES = new RegExp(`${WS}+`, "g");

/** BIRD `has_sql_codeblock`: a ```sql … ``` block with at least one ASCII letter. */
export function birdHasSqlBlock(text: string | null | undefined): boolean {
  if (!text) return false;
  return BIRD_BLOCK_ANY.test(text);
}

/**
 * BIRD `extract_sql_from_response`: the LAST ```sql block, comments stripped, whitespace collapsed,
 * a leading `**bold**` header dropped; the filler when there is no block; "" when stripping ate it all.
 */
export function birdExtractSql(text: string | null | undefined): string {
  if (!text) return BIRD_NO_ANSWER_FILLER;
  const blocks = [...text.matchAll(BIRD_BLOCKS)].map((m) => m[1]!);
  if (blocks.length === 0) return BIRD_NO_ANSWER_FILLER;
  let ans = blocks[blocks.length - 1]!;
  ans = ans.replace(BIRD_COMMENT, "");
  ans = ans.replace(BIRD_SPACES, " ");
  ans = ans.replace(/^\*\*.*\*\*/, "");
  return pyStrip(ans);
}

const SPIDER_SQL_BLOCK = new RegExp(`\`\`\`sql${WS}*([\\s\\S]*?)${WS}*\`\`\``, "giu");
const SPIDER_ANY_BLOCK = new RegExp(`\`\`\`${WS}*([\\s\\S]*?)${WS}*\`\`\``, "gu");
const SPIDER_STATEMENT_START = new RegExp(`^${WS}*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP)${WS}`, "iu");
const SPIDER_RAW_START = new RegExp(`(?:SELECT|INSERT|UPDATE|DELETE|WITH)${WS}`, "iu");

/**
 * Spider 2.0-Lite `extract_sql_from_response`: the last ```sql block; else the last generic block
 * that starts with a SQL keyword; else raw text from the first SELECT/INSERT/UPDATE/DELETE/WITH to
 * the last `;` (one `;` appended); null when nothing looks like SQL.
 */
export function spiderExtractSql(text: string | null | undefined): string | null {
  if (!text) return null;
  const sqlBlocks = [...text.matchAll(SPIDER_SQL_BLOCK)];
  if (sqlBlocks.length > 0) return pyStrip(sqlBlocks[sqlBlocks.length - 1]![1]!);
  const blocks = [...text.matchAll(SPIDER_ANY_BLOCK)];
  for (let i = blocks.length - 1; i >= 0; i--) {
    const content = pyStrip(blocks[i]![1]!);
    if (SPIDER_STATEMENT_START.test(content)) return content;
  }
  const start = SPIDER_RAW_START.exec(text);
  if (start) {
    const last = text.lastIndexOf(";");
    const extracted = pyStrip(last >= start.index ? text.slice(start.index, last + 1) : text.slice(start.index));
    return `${extracted.replace(/;+$/, "")};`;
  }
  return null;
}
