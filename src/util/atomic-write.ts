/**
 * Write a file so a reader (or a run resumed after kill -9) sees the old content or the new,
 * never a truncated mix: write `<path>.tmp-<pid>` and rename it over `path` (same directory,
 * so the rename is atomic). The pid suffix lets a later run tell its own temps from a dead one's.
 */
import { renameSync, rmSync, writeFileSync } from "node:fs";

/** The temp name this process uses for `path`. */
export function tempNameFor(path: string): string {
  return `${path}.tmp-${process.pid}`;
}

/** Replace `path` with `data` atomically (temp file + rename); `mode` applies to the new file. */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode?: number): void {
  const tmp = tempNameFor(path);
  try {
    writeFileSync(tmp, data, mode === undefined ? undefined : { mode });
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
