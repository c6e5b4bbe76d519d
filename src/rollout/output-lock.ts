/**
 * D38 output safety: one run at a time per output path. The lock is a small JSON file beside the
 * output (`<stem>.gym-lock`: pid, host, process start time) created with O_EXCL, held for the whole
 * run and removed on exit. A lock whose process is gone (kill -9) is stale and taken over, so it
 * never blocks `--resume`. The start time guards against a recycled pid holding a dead run's lock.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { ConfigError, GymError } from "../errors.ts";
import { log } from "../log.ts";
import type { RolloutPaths } from "./paths.ts";

interface LockBody {
  pid: number;
  host: string;
  /** Process start time (clock ticks since boot, /proc/<pid>/stat field 22); absent off Linux. */
  start?: string;
  started_at: string;
  argv: string[];
}

/** Locks this process holds: path → hold count (the CLI and the driver both claim the same output). */
const held = new Map<string, number>();
let exitHookInstalled = false;

/** A process's start time from /proc, or undefined where /proc does not exist. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces and parentheses: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** True while the process that wrote `body` is still running. */
function holderAlive(body: LockBody): boolean {
  if (body.host !== hostname()) return true; // a lock from another machine (shared FS): never guess it is dead
  try {
    process.kill(body.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const now = startTimeOf(body.pid);
  return body.start === undefined || now === undefined || now === body.start;
}

function readBody(path: string): LockBody | undefined {
  try {
    const v = JSON.parse(readFileSync(path, "utf8")) as LockBody;
    return typeof v.pid === "number" ? v : undefined;
  } catch {
    return undefined;
  }
}

function tryCreate(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  const body: LockBody = { pid: process.pid, host: hostname(), start: startTimeOf(process.pid), started_at: new Date().toISOString(), argv: process.argv.slice(2) };
  writeSync(fd, `${JSON.stringify(body)}\n`);
  closeSync(fd);
  return true;
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // process.exit (parent-death watch, fatal errors) skips finally blocks; the lock must still go.
  process.on("exit", () => {
    for (const p of held.keys()) rmSync(p, { force: true });
    held.clear();
  });
}

/** Take the exclusive lock on a run's output (re-entrant within this process). Returns the release function. */
export function lockOutput(paths: RolloutPaths): () => void {
  const path = paths.lock;
  const n = held.get(path);
  if (n !== undefined) {
    held.set(path, n + 1);
    return once(() => release(path));
  }
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(path)) {
      held.set(path, 1);
      installExitHook();
      return once(() => release(path));
    }
    const body = readBody(path);
    if (body && holderAlive(body)) {
      throw new GymError(`${paths.output} is in use by another gym run (pid ${body.pid} on ${body.host}, started ${body.started_at}: gym ${body.argv.join(" ")})`, {
        code: "E_OUTPUT_LOCKED",
        hint:
          body.host === hostname()
            ? `wait for it to finish or stop it (kill ${body.pid}), or pick another -o/--output; the lock file is ${path}`
            : `that run is on another machine (${body.host}): wait for it, or, if it is gone, delete ${path}; or pick another -o/--output`,
      });
    }
    // Stale (its process is gone) or torn (killed while writing it): take it over.
    if (body) log.info(`output lock ${path}: pid ${body.pid} is gone; taking the lock over`);
    else if (existsSync(path) && Date.now() - statSync(path).mtimeMs < 2000) {
      // A lock created this instant may not have its body yet: give its writer a moment.
      Bun.sleepSync(100);
      continue;
    }
    rmSync(path, { force: true });
  }
  throw new GymError(`could not take the lock on ${paths.output}: another run keeps creating ${path}`, { code: "E_OUTPUT_LOCKED", hint: "stop the other run or pick another -o/--output" });
}

function release(path: string): void {
  const n = held.get(path);
  if (n === undefined) return;
  if (n > 1) held.set(path, n - 1);
  else {
    held.delete(path);
    rmSync(path, { force: true });
  }
}

function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
}

/**
 * Remove temp files a killed run left beside the output (`<sidecar>.tmp-<pid>…`). Safe only while
 * holding the lock: no other live run writes these names then.
 */
export function removeStaleTemps(paths: RolloutPaths): string[] {
  const dir = dirname(paths.output);
  const stems = [paths.output, paths.materialized, paths.failures, paths.aggregate, paths.status, paths.drained, paths.journal].map((p) => `${basename(p)}.tmp`);
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = stems.find((s) => name.startsWith(s));
    if (!m) continue;
    const pid = Number(/^-(\d+)/.exec(name.slice(m.length))?.[1]);
    if (pid === process.pid) continue;
    rmSync(join(dir, name), { force: true, recursive: false });
    removed.push(name);
  }
  if (removed.length > 0) log.info(`removed ${removed.length} temp file(s) of an earlier, interrupted run: ${removed.join(", ")}`);
  return removed;
}

/** D38: a fresh run never truncates earlier results (a non-empty output) unless asked. Throws naming --overwrite and --resume. */
export function checkFreshOutput(paths: RolloutPaths, overwrite: boolean): void {
  if (overwrite || !existsSync(paths.output)) return;
  const st = statSync(paths.output);
  if (!st.isFile() || st.size === 0) return;
  throw new ConfigError(`${paths.output} already holds results of an earlier run (${st.size} bytes); a fresh run would replace them`, {
    key: "output_jsonl_fpath",
    hint: "pass --resume (+resume_from_cache=true) to continue that run, --overwrite (+overwrite_output=true) to start over and replace it, or another -o/--output",
  });
}

/**
 * Claim a run's output before any work (servers, data preparation): take the lock, and for a run
 * that will start fresh, refuse to replace earlier results without `overwrite`. Returns the release.
 */
export function claimOutput(cfg: { output: string; resume: boolean; overwrite: boolean }, paths: RolloutPaths): () => void {
  const release = lockOutput(paths);
  try {
    const resumable = cfg.resume && existsSync(paths.materialized) && existsSync(paths.output);
    if (!resumable) checkFreshOutput(paths, cfg.overwrite);
    return release;
  } catch (e) {
    release();
    throw e;
  }
}
