/** Pulling the SQL out of a model answer (upstream `text_to_sql`): the last ```sql block, a fenced statement, or a bare one. */
import { pyRegex } from "../../util/py-regex.ts";
import { pyStrip } from "../../util/py-str.ts";

const SQL_BLOCK = pyRegex("```sql\\s*([\\s\\S]*?)\\s*```", { ignoreCase: true });
const ANY_BLOCK = pyRegex("```\\s*([\\s\\S]*?)\\s*```");
const STATEMENT = pyRegex("^\\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP)\\s", { ignoreCase: true });
const BARE_START = pyRegex("(?:SELECT|INSERT|UPDATE|DELETE|WITH)\\s", { ignoreCase: true });

/** The SQL of an answer, or undefined. A bare statement runs to the last `;` (one `;` appended). */
export function extractSql(text: string): string | undefined {
  if (!text) return undefined;
  const sql = SQL_BLOCK.findall(text) as string[];
  if (sql.length > 0) return pyStrip(sql[sql.length - 1]!);
  const blocks = ANY_BLOCK.findall(text) as string[];
  for (let i = blocks.length - 1; i >= 0; i--) {
    const content = pyStrip(blocks[i]!);
    if (STATEMENT.match(content)) return content;
  }
  const m = BARE_START.search(text);
  if (!m) return undefined;
  const semi = text.lastIndexOf(";");
  const extracted = pyStrip(semi >= m.index ? text.slice(m.index, semi + 1) : text.slice(m.index));
  return `${extracted.replace(/;+$/, "")};`;
}

const ALIASES: Record<string, string> = { postgres: "postgresql", pg: "postgresql", sqlite3: "sqlite" };

/** A dialect name lower-cased with its aliases resolved (undefined when empty). */
export function normalizeDialect(d: string | null | undefined): string | undefined {
  if (!d) return undefined;
  const n = pyStrip(d).toLowerCase();
  return ALIASES[n] ?? n;
}
