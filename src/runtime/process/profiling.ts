/**
 * Per-server profiling (D20, runtime.md §13): wall-clock `ncall`/`tsub`/`ttot`/`tavg` for the
 * handlers and the runtime-wrapped calls they make, written to `<dir>/<server>.log` in yappi's
 * `print_all` column layout on shutdown and on `GET /stats`.
 */
import type { AsyncLocalStorage } from "node:async_hooks";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

interface Frame {
  childSeconds: number;
}

interface Stat {
  ncall: number;
  ttot: number;
  tsub: number;
}

const COLS: [string, number][] = [
  ["name", 200],
  ["ncall", 10],
  ["tsub", 8],
  ["ttot", 8],
  ["tavg", 8],
];

function cell(text: string, width: number): string {
  return text.length > width ? text.slice(0, width) : text.padEnd(width);
}

function seconds(x: number): string {
  return x.toFixed(6);
}

/** Collects timings of wrapped calls in one process. */
export class Profiler {
  private readonly stats = new Map<string, Stat>();
  // Required here, not imported: a static node:async_hooks import would load on every CLI start.
  private readonly frames: AsyncLocalStorage<Frame> = new (require("node:async_hooks") as typeof import("node:async_hooks")).AsyncLocalStorage<Frame>();

  /** Time `fn` under `name`; time spent in nested timed calls counts toward `ttot` but not `tsub`. */
  async time<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const parent = this.frames.getStore();
    const frame: Frame = { childSeconds: 0 };
    const started = performance.now();
    try {
      return await this.frames.run(frame, fn);
    } finally {
      const dt = (performance.now() - started) / 1000;
      let s = this.stats.get(name);
      if (!s) this.stats.set(name, (s = { ncall: 0, ttot: 0, tsub: 0 }));
      s.ncall++;
      s.ttot += dt;
      s.tsub += Math.max(0, dt - frame.childSeconds);
      if (parent) parent.childSeconds += dt;
    }
  }

  /** The table text: preamble, header line, one row per function by total time. */
  render(serverName: string): string {
    const lines = [`Profile of ${serverName}`, "Clock type: WALL", "Ordered by: totaltime, desc", "", COLS.map(([n, w]) => cell(n, w)).join("  ")];
    const rows = [...this.stats.entries()].sort((a, b) => b[1].ttot - a[1].ttot);
    for (const [name, s] of rows) {
      const vals = [name, String(s.ncall), seconds(s.tsub), seconds(s.ttot), seconds(s.ttot / s.ncall)];
      lines.push(vals.map((v, i) => cell(v, COLS[i]![1])).join("  "));
    }
    return `${lines.join("\n")}\n`;
  }

  /** Write `<dir>/<serverName>.log`; returns its path. */
  async dump(dir: string, serverName: string): Promise<string> {
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${serverName}.log`);
    await writeFile(path, this.render(serverName));
    return path;
  }
}

let active: Profiler | undefined;

/** Install the process profiler so runtime-wrapped calls (outbound requests) are timed too. */
export function setActiveProfiler(p: Profiler | undefined): void {
  active = p;
}

/** Whether a process profiler is installed (callers skip building timing labels when not). */
export function profilingActive(): boolean {
  return active !== undefined;
}

/** Time `fn` with the active profiler, or just run it. */
export function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  return active ? active.time(name, fn) : fn();
}
