/**
 * The `gym eval view` data server: a pure handler over loaded runs — the page, the row list, one
 * row's JSON on demand, and free-text search — wired to Bun.serve by the CLI.
 */
import { pageHtml } from "./html.ts";
import { rowText, searchRows, type LoadedRun } from "./load.ts";
import { packRows, type WireRun } from "./query.ts";

/** The wire form of a loaded run (without row texts: the page asks for rows one at a time). */
export function wireRun(run: LoadedRun, withLines?: string[]): WireRun {
  return { path: run.path, rows: packRows(run.metas), bad: run.bad, torn: run.torn, aggregate: run.aggregate, ...(withLines ? { lines: withLines } : {}) };
}

const json = (v: unknown, status = 200) => new Response(JSON.stringify(v), { status, headers: { "content-type": "application/json" } });

/** A `(req) => Response` handler serving the viewer for `runs` (A, and B when comparing). */
export function createViewHandler(runs: LoadedRun[]): (req: Request) => Promise<Response> {
  const page = pageHtml(runs.map((r) => r.path).join(" vs "));
  let packed: string | undefined;
  return async (req) => {
    if (req.method !== "GET") return json({ detail: "Method Not Allowed" }, 405);
    const url = new URL(req.url);
    const runIdx = (): LoadedRun | undefined => runs[Number(url.searchParams.get("run") ?? "0")];
    switch (url.pathname) {
      case "/":
        return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
      case "/api/runs":
        packed ??= JSON.stringify(runs.map((r) => wireRun(r)));
        return new Response(packed, { headers: { "content-type": "application/json" } });
      case "/api/row": {
        const run = runIdx();
        const i = Number(url.searchParams.get("i"));
        if (!run || !Number.isInteger(i) || i < 0 || i >= run.metas.length) return json({ detail: "no such row" }, 404);
        return new Response(await rowText(run, i), { headers: { "content-type": "application/json" } });
      }
      case "/api/search": {
        const run = runIdx();
        if (!run) return json({ detail: "no such run" }, 404);
        return json({ hits: searchRows(run, (url.searchParams.get("q") ?? "").slice(0, 1000)) });
      }
      default:
        return json({ detail: "Not Found" }, 404);
    }
  };
}
