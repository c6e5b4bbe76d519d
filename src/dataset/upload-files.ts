/**
 * Output files of the dataset commands are written next to their final path under a temporary
 * name and renamed into place only when everything succeeded, so a failed or interrupted download
 * (a 500, a hub that hangs past its deadline, Ctrl-C) never leaves a partial file where a later
 * step would take it for a complete dataset.
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ConfigError } from "../errors.ts";

/** A set of output files staged under temporary names; `commit` renames them all into place. */
export class StagedOutputs {
  private readonly staged = new Map<string, string>();
  private onSignal: ((signal: NodeJS.Signals) => void) | undefined;

  constructor() {
    // An interrupted command must not leave its temporary files behind either (exit 128 + signal).
    this.onSignal = (signal) => {
      this.abort();
      process.exit(signal === "SIGTERM" ? 143 : 130);
    };
    process.once("SIGINT", this.onSignal);
    process.once("SIGTERM", this.onSignal);
  }

  /** The temporary path to write `finalPath` to (its directory is created). */
  stage(finalPath: string): string {
    const abs = resolve(finalPath);
    if (existsSync(abs) && statSync(abs).isDirectory()) {
      throw new ConfigError(`output path ${abs} is a directory`, { hint: "give a file path (or use output_dirpath for a directory)" });
    }
    mkdirSync(dirname(abs), { recursive: true });
    const tmp = join(dirname(abs), `.${basename(abs)}.gym-partial-${process.pid}`);
    this.staged.set(abs, tmp);
    return tmp;
  }

  /** Rename every staged file into place; returns the final paths in staging order. */
  commit(): string[] {
    const done: string[] = [];
    for (const [abs, tmp] of this.staged) {
      renameSync(tmp, abs);
      done.push(abs);
    }
    this.staged.clear();
    this.release();
    return done;
  }

  /** Remove every staged temporary file (the final paths are left untouched). */
  abort(): void {
    for (const tmp of this.staged.values()) rmSync(tmp, { force: true });
    this.staged.clear();
    this.release();
  }

  private release(): void {
    if (this.onSignal) {
      process.removeListener("SIGINT", this.onSignal);
      process.removeListener("SIGTERM", this.onSignal);
    }
    this.onSignal = undefined;
  }
}

/** Run `fn` with a staging area: commit on success, remove every temporary file on failure. */
export async function withStagedOutputs<T>(fn: (out: StagedOutputs) => Promise<T>): Promise<{ value: T; paths: string[] }> {
  const out = new StagedOutputs();
  try {
    const value = await fn(out);
    return { value, paths: out.commit() };
  } catch (e) {
    out.abort();
    throw e;
  }
}
