/**
 * `gym eval view --out`: one self-contained HTML file — page, style and every row gzip-compressed and
 * base64-encoded inside it — that opens from disk with the network blocked.
 */
import { GymError, UsageError } from "../errors.ts";
import { pageHtml } from "./html.ts";
import { rowText, type LoadedRun } from "./load.ts";
import { wireRun } from "./server.ts";

/** Defaults for what a report may embed; above them the user narrows the run or raises the cap. */
export const REPORT_LIMITS = { maxRows: 50_000, maxBytes: 256 * 1024 * 1024 };

/** Build the report's HTML; refuses runs too large to embed, naming the cap and the flag. */
export async function buildReport(runs: LoadedRun[], opts: { maxRows?: number } = {}): Promise<string> {
  const maxRows = opts.maxRows ?? REPORT_LIMITS.maxRows;
  const wire = [];
  for (const full of runs) {
    // An explicit --max-rows embeds the first N rows (and says so in the page); the default cap refuses.
    const run = opts.maxRows !== undefined && full.metas.length > maxRows ? { ...full, metas: full.metas.slice(0, maxRows), where: full.where.slice(0, maxRows) } : full;
    if (run.metas.length > maxRows)
      throw new UsageError(`${run.path} has ${run.metas.length} rows; a report embeds at most ${maxRows}`, {
        hint: "serve it instead (`gym eval view FILE`), or pass --max-rows N to embed the first N rows",
      });
    let bytes = 0;
    const lines: string[] = [];
    for (let i = 0; i < run.metas.length; i++) {
      const t = await rowText(run, i);
      bytes += t.length;
      if (bytes > REPORT_LIMITS.maxBytes) throw new UsageError(`${run.path} is over ${REPORT_LIMITS.maxBytes >> 20} MiB of rows; too large to embed in one HTML file`, { hint: "serve it instead (`gym eval view FILE`) or pass --max-rows N to embed the first N rows" });
      lines.push(t);
    }
    const w = wireRun(run, lines);
    if (run !== full) w.note = `This report embeds the first ${maxRows} of ${full.metas.length} rows (--max-rows).`;
    wire.push(w);
  }
  let data: string;
  try {
    data = Buffer.from(Bun.gzipSync(new TextEncoder().encode(JSON.stringify(wire)))).toString("base64");
  } catch (e) {
    throw new GymError(`cannot compress the report: ${(e as Error).message}`, { code: "E_VIEW_REPORT" });
  }
  return pageHtml(runs.map((r) => r.path).join(" vs "), data);
}
