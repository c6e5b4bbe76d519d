/**
 * Per-server output: each line of a child's stdout/stderr is appended to its log file
 * (`<log dir>/<instance with / → _>.log`) and echoed on our stderr as `(<instance>) line`,
 * coloured per server on a terminal. The last lines are kept for error reports.
 */
import { maskUrlSecrets } from "../../util/url-secrets.ts";
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readEnv } from "../../env.ts";
import { ConfigError } from "../../errors.ts";

const COLORS = [36, 32, 35, 33, 34, 96, 92, 95, 93, 94];
const TAIL_LINES = 40;

/** The log file name of an instance. */
export function logFileName(instance: string): string {
  return `${instance.replaceAll("/", "_")}.log`;
}

/** A default log directory when `nemo_gym_log_dir` is unset: one per run under the temp dir. */
export function defaultLogDir(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
  return join(tmpdir(), "gym-logs", `${stamp}-${process.pid}`);
}

/** Default of `log_dirs_to_keep`: how many per-run default log dirs survive (this run's included). */
export const DEFAULT_LOG_DIRS_TO_KEEP = 20;

/** `log_dirs_to_keep` checked: a non-negative integer (0 keeps every dir), default 20. */
export function logDirsToKeep(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_LOG_DIRS_TO_KEEP;
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
    throw new ConfigError(`log_dirs_to_keep must be a non-negative integer (0 keeps every run's logs), got ${JSON.stringify(v)}`, { key: "log_dirs_to_keep" });
  }
  return n;
}

/** Name of a per-run default log dir: `<UTC stamp>-<pid>`. */
const RUN_DIR = /^(\d{8}T\d{6})-(\d+)$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Remove the oldest per-run log dirs under `parent` so that, with the one about to be created,
 * at most `keep` remain (0 keeps everything). Dirs of runs still alive and anything not named
 * like a run dir are left alone; a dir that cannot be removed is skipped.
 */
export function pruneLogDirs(parent: string, keep: number): string[] {
  if (keep <= 0) return [];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  const runs = names.filter((n) => RUN_DIR.test(n)).sort();
  const removed: string[] = [];
  for (const name of runs.slice(0, Math.max(0, runs.length - (keep - 1)))) {
    const pid = Number(RUN_DIR.exec(name)![2]);
    if (pid === process.pid || alive(pid)) continue;
    try {
      rmSync(join(parent, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Someone else's dir on a shared /tmp: not ours to remove.
    }
  }
  return removed;
}

/** Output sink for one server. */
export class ServerLog {
  readonly file: string;
  private readonly tail: string[] = [];
  private readonly prefix: string;
  private fd: number | undefined;

  constructor(
    readonly instance: string,
    dir: string,
    index: number,
    private readonly echo: (line: string) => void,
  ) {
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, logFileName(instance));
    const env = readEnv();
    const color = process.stderr.isTTY && !env.noColor && !env.testing;
    this.prefix = color ? `\x1b[${COLORS[index % COLORS.length]}m(${instance})\x1b[0m ` : `(${instance}) `;
  }

  /** Record one line (no trailing newline). */
  line(raw: string): void {
    // D39: a child's own output (a crash trace quoting its base_url) is masked before it is stored or echoed.
    const text = maskUrlSecrets(raw);
    this.tail.push(text);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
    try {
      // One append-mode descriptor per server: a write per line, no open/close per line.
      this.fd ??= openSync(this.file, "a");
      writeSync(this.fd, `${text}\n`);
    } catch {
      // A full disk must not take the server down with it; the terminal copy remains.
    }
    // consola pads its boxes with empty lines: keep them in the file, not on the shared terminal.
    if (text.trim() !== "") this.echo(`${this.prefix}${text}`);
  }

  /** Close the log file (after the process's output is drained). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** The last lines seen, for "finished unexpectedly" reports. */
  lastLines(n = 20): string[] {
    return this.tail.slice(-n);
  }

  /** Pump a child's stream into this log line by line; resolves at end of stream. */
  async pump(stream: ReadableStream<Uint8Array> | null | undefined): Promise<void> {
    if (!stream) return;
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of stream) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        this.line(buf.slice(0, nl).replace(/\r$/, ""));
        buf = buf.slice(nl + 1);
      }
    }
    buf += decoder.decode();
    if (buf !== "") this.line(buf);
  }
}
