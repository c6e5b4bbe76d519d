/**
 * Reads a rollouts file (and the failures sidecar and aggregate metrics beside it) for the viewer,
 * streaming: it keeps each row's summary, byte range and search text, never the whole file, so a
 * 100,000-row run opens in seconds and a row's full JSON is read again only when it is shown.
 */
import { existsSync, statSync } from "node:fs";
import { GymError, UsageError } from "../errors.ts";
import { rolloutPaths } from "../rollout/paths.ts";
import { rowMeta, searchText, type RowMeta } from "./row-meta.ts";

/** Search text kept per row is capped, so one giant row cannot hold the viewer's memory. */
const SEARCH_CAP = 16_384;

/** One viewed run: its rows, where each lives, and what could not be read. */
export interface LoadedRun {
  path: string;
  metas: RowMeta[];
  /** Per row: which file, and the byte range of its line. */
  where: { file: string; start: number; end: number }[];
  text: string[];
  /** Lines that are not JSON objects (count, and the first few line numbers with their file). */
  bad: { count: number; first: string[] };
  /** The rollouts file ends in a partial line (a run still writing, or a crash mid-write). */
  torn: boolean;
  /** `<stem>_aggregate_metrics.json` when present and valid JSON. */
  aggregate: unknown;
}

/** Scan one JSONL file chunk by chunk, keeping every object line's summary and byte range. */
async function scan(path: string, src: 0 | 1, run: LoadedRun, keepText: boolean): Promise<void> {
  const dec = new TextDecoder();
  let carry = new Uint8Array(0);
  let base = 0; // file offset of carry[0]
  let line = 0;
  const take = (bytes: Uint8Array, start: number, end: number, last: boolean) => {
    line++;
    const text = dec.decode(bytes.subarray(start, end));
    if (text.trim() === "") return;
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch {
      row = undefined;
    }
    if (row && typeof row === "object" && !Array.isArray(row)) {
      run.metas.push(rowMeta(row as Record<string, unknown>, line, src));
      run.where.push({ file: path, start: base + start, end: base + end });
      run.text.push(keepText ? searchText(row as Record<string, unknown>).slice(0, SEARCH_CAP) : "");
    } else if (last && src === 0) run.torn = true;
    else {
      run.bad.count++;
      if (run.bad.first.length < 10) run.bad.first.push(`${path}:${line}`);
    }
  };
  for await (const chunk of Bun.file(path).stream()) {
    const bytes = carry.length ? concat(carry, chunk) : chunk;
    let start = 0;
    for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
      take(bytes, start, nl, false);
      start = nl + 1;
    }
    carry = bytes.slice(start);
    base += start;
  }
  if (carry.length) take(carry, 0, carry.length, true);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Load a rollouts file and its sidecars; a missing or unreadable file is a usage error. */
export async function loadRun(path: string, opts: { keepText?: boolean } = {}): Promise<LoadedRun> {
  if (!existsSync(path)) throw new UsageError(`rollouts file not found: ${path}`, { hint: "pass the -o path of a `gym eval run` (e.g. results/rollouts.jsonl)" });
  if (statSync(path).isDirectory()) throw new UsageError(`${path} is a directory, not a rollouts JSONL file`, { hint: "pass the rollouts file inside it, e.g. results/rollouts.jsonl" });
  const run: LoadedRun = { path, metas: [], where: [], text: [], bad: { count: 0, first: [] }, torn: false, aggregate: null };
  const keep = opts.keepText ?? true;
  try {
    await scan(path, 0, run, keep);
    const paths = rolloutPaths(path);
    if (paths.failures !== path && existsSync(paths.failures)) await scan(paths.failures, 1, run, keep);
    if (existsSync(paths.aggregate)) {
      try {
        run.aggregate = JSON.parse(await Bun.file(paths.aggregate).text());
      } catch {
        run.aggregate = null; // a torn metrics file must not stop the viewer; the summary recomputes
      }
    }
  } catch (e) {
    if (e instanceof GymError) throw e;
    throw new GymError(`cannot read ${path}: ${(e as Error).message}`, { code: "E_VIEW_READ" });
  }
  return run;
}

/** The full JSON text of row `i` of a loaded run. */
export async function rowText(run: LoadedRun, i: number): Promise<string> {
  const w = run.where[i];
  if (!w) throw new UsageError(`no row ${i} in ${run.path}`);
  return await Bun.file(w.file).slice(w.start, w.end).text();
}

/** Indices of rows whose search text contains every word of `q` (case-insensitive). */
export function searchRows(run: LoadedRun, q: string): number[] {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const out: number[] = [];
  for (let i = 0; i < run.text.length; i++) if (words.every((w) => run.text[i]!.includes(w))) out.push(i);
  return out;
}
