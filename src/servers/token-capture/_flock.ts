/**
 * flock(2) on a lock file, the same advisory lock upstream's Python store takes (`fcntl.flock` on
 * `<rollout_id>.tokens.lock`), so gym's model servers, gym's collector and a training framework's
 * Python reader serialise on one inode. Bun has no flock binding: libc's is reached through
 * bun:ffi, non-blocking and polled, so a held lock never blocks the event loop.
 */
import { closeSync, openSync } from "node:fs";
import { log } from "../../log.ts";

const LOCK_SH = 1;
const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;

type FlockFn = (fd: number, op: number) => number;
let flockFn: FlockFn | null | undefined;

function loadFlock(): FlockFn | null {
  if (flockFn !== undefined) return flockFn;
  try {
    // Loaded on first use: most commands never take a token-store lock.
    const ffi = require("bun:ffi") as typeof import("bun:ffi");
    for (const name of ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"]) {
      try {
        const lib = ffi.dlopen(name, { flock: { args: [ffi.FFIType.i32, ffi.FFIType.i32], returns: ffi.FFIType.i32 } });
        flockFn = lib.symbols.flock as unknown as FlockFn;
        return flockFn;
      } catch {
        // try the next name
      }
    }
  } catch {
    // no bun:ffi (not under Bun): in-process serialisation only
  }
  flockFn = null;
  log.warn("token capture: libc's flock could not be loaded; writers in this process are serialised, but other processes writing the same rollout (num_workers > 1, a framework's reader) are not");
  return null;
}

/** Whether cross-process locking is available here (false: only this process's own callers are serialised). */
export function flockAvailable(): boolean {
  return loadFlock() !== null;
}

/** Take the lock on `path` (created if missing), polling every few ms until `timeoutMs`; returns the release function. */
export async function acquireFileLock(path: string, opts: { shared?: boolean; timeoutMs?: number } = {}): Promise<() => void> {
  const fd = openSync(path, "a+");
  const flock = loadFlock();
  if (flock === null) return () => closeSync(fd);
  const op = (opts.shared ? LOCK_SH : LOCK_EX) | LOCK_NB;
  const deadline = performance.now() + (opts.timeoutMs ?? 60_000);
  let wait = 1;
  while (flock(fd, op) !== 0) {
    if (performance.now() > deadline) {
      closeSync(fd);
      throw new Error(`timed out after ${opts.timeoutMs ?? 60_000} ms waiting for the lock ${path}`);
    }
    await Bun.sleep(wait);
    wait = Math.min(wait * 2, 20);
  }
  return () => {
    flock(fd, LOCK_UN);
    closeSync(fd);
  };
}
