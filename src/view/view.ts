/**
 * `gym eval view` as a use case: load the run(s), then either write one self-contained HTML report or
 * serve the viewer on loopback until interrupted.
 */
import { writeFileSync, renameSync } from "node:fs";
import { GymError } from "../errors.ts";
import { log } from "../log.ts";
import { loadRun } from "./load.ts";
import { buildReport } from "./report.ts";
import { createViewHandler } from "./server.ts";

/** What `gym eval view` was asked to do. */
export interface ViewOptions {
  rollouts: string;
  baseline?: string;
  host: string;
  port: number;
  out?: string;
  maxRows?: number;
  /** Called with the URL once serving (the CLI prints it; tests read it). */
  onListening?: (url: string) => void;
  /** Resolves when serving should stop (Ctrl+C in the CLI). */
  until?: Promise<unknown>;
}

/** Write the report (returns its path and size) or serve until `until` resolves. */
export async function viewRollouts(o: ViewOptions): Promise<{ out?: string; bytes?: number; url?: string }> {
  const t0 = performance.now();
  const runs = [await loadRun(o.rollouts, { keepText: o.out === undefined })];
  if (o.baseline) runs.push(await loadRun(o.baseline, { keepText: o.out === undefined }));
  log.info(`loaded ${runs.map((r) => `${r.metas.length} rows from ${r.path}`).join(", ")} in ${Math.round(performance.now() - t0)} ms`);
  if (o.out) {
    const html = await buildReport(runs, { maxRows: o.maxRows });
    const tmp = `${o.out}.tmp-${process.pid}`;
    try {
      writeFileSync(tmp, html);
      renameSync(tmp, o.out); // a half-written report never replaces a good one
    } catch (e) {
      throw new GymError(`cannot write ${o.out}: ${(e as Error).message}`, { code: "E_VIEW_WRITE", hint: "check the directory exists and is writable" });
    }
    return { out: o.out, bytes: Buffer.byteLength(html) };
  }
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({ hostname: o.host, port: o.port, idleTimeout: 0, fetch: createViewHandler(runs) });
  } catch (e) {
    throw new GymError(`cannot listen on ${o.host}:${o.port}: ${(e as Error).message}`, { code: "E_VIEW_LISTEN", hint: "pick another --port, or --port 0 for any free one" });
  }
  const url = `http://${o.host.includes(":") ? `[${o.host}]` : o.host}:${server.port}/`;
  o.onListening?.(url);
  try {
    await (o.until ?? new Promise(() => undefined));
  } finally {
    server.stop(true);
  }
  return { url };
}
