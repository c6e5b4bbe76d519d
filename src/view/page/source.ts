/**
 * Where the page's data comes from: the `gym eval view` server's JSON API, or the gzip+base64 data
 * block embedded in a `--out` report (decoded with DecompressionStream, no network at all).
 */
import { searchText, type RowMeta } from "../row-meta.ts";
import { unpackRows, type WireRun } from "../query.ts";

/** One run as the page sees it. */
export interface RunInfo {
  path: string;
  metas: RowMeta[];
  bad: { count: number; first: string[] };
  torn: boolean;
  aggregate: unknown;
  /** Something the page must say about this run (e.g. a report holding only a prefix). */
  note?: string;
}

/** The page's data access, the same for served and embedded data. */
export interface Source {
  runs: RunInfo[];
  row(run: number, i: number): Promise<string>;
  search(run: number, q: string): Promise<Set<number>>;
}

function toInfo(w: WireRun): RunInfo {
  return { path: w.path, metas: unpackRows(w.rows), bad: w.bad, torn: w.torn, aggregate: w.aggregate, note: w.note };
}

async function gunzipBase64(b64: string): Promise<string> {
  const bin = Uint8Array.from(atob(b64.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([bin]).stream().pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).text();
}

/** Open the data source: embedded when the page carries a data block, else the server's API. */
export async function openSource(): Promise<Source> {
  const block = document.getElementById("gym-data");
  if (block) {
    const runs = JSON.parse(await gunzipBase64(block.textContent ?? "")) as WireRun[];
    const texts: (string[] | undefined)[] = [];
    return {
      runs: runs.map(toInfo),
      row: async (r, i) => runs[r]!.lines![i]!,
      search: async (r, q) => {
        const t = (texts[r] ??= runs[r]!.lines!.map((l) => searchText(JSON.parse(l) as Record<string, unknown>)));
        const words = q.toLowerCase().split(/\s+/).filter(Boolean);
        const hits = new Set<number>();
        t.forEach((s, i) => words.every((w) => s.includes(w)) && hits.add(i));
        return hits;
      },
    };
  }
  const runs = (await (await fetch("api/runs")).json()) as WireRun[];
  return {
    runs: runs.map(toInfo),
    row: async (r, i) => {
      const res = await fetch(`api/row?run=${r}&i=${i}`);
      if (!res.ok) throw new Error(await res.text());
      return await res.text();
    },
    search: async (r, q) => new Set(((await (await fetch(`api/search?run=${r}&q=${encodeURIComponent(q)}`)).json()) as { hits: number[] }).hits),
  };
}
