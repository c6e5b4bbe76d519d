/**
 * What a person watching the run sees, on stderr: the live bar on a TTY, the upstream
 * percentage blocks otherwise, and the stall watchdog that names rollouts with no progress
 * for `stall_warning_seconds` together with the server each one waits on.
 */
import { log } from "../log.ts";
import { barLine, PERCENT_MARKS, percentBlock, type Progress } from "./progress.ts";

/** One in-flight rollout, as the watchdog sees it. */
export interface InFlight {
  id: string;
  server: string;
  url: string;
  startedAt: number;
  warnedAt?: number;
}

/** Drives the display and the watchdog from timers; `stop()` clears them. */
export class Monitor {
  private timers: ReturnType<typeof setInterval>[] = [];
  private nextMark = 0;
  private lastBarLen = 0;
  private running = false;
  readonly inFlight = new Map<string, InFlight>();

  constructor(
    private readonly progress: Progress,
    private readonly opts: {
      tty: boolean;
      stallWarningSeconds: number;
      write?: (s: string) => void;
      /** One line naming the deepest waiting hop behind a stalled rollout's server (stall-trace.ts). */
      trace?: (server: string, url: string) => Promise<string>;
    },
  ) {}

  private out(s: string): void {
    (this.opts.write ?? ((x: string) => process.stderr.write(x)))(s);
  }

  /** Start the bar refresh (TTY) and the watchdog. */
  start(): void {
    this.running = true;
    if (this.opts.tty) {
      const t = setInterval(() => this.drawBar(), 250);
      t.unref?.();
      this.timers.push(t);
    }
    const period = Math.max(50, Math.min(5000, (this.opts.stallWarningSeconds * 1000) / 4));
    const w = setInterval(() => this.checkStalls(), period);
    w.unref?.();
    this.timers.push(w);
  }

  /** Call after each finished rollout: prints the percentage block when a mark is crossed (non-TTY). */
  onFinished(): void {
    if (this.opts.tty) return;
    const p = this.progress;
    if (p.total === 0) return;
    const pct = (100 * (p.done + p.failed)) / p.total;
    let crossed = false;
    while (this.nextMark < PERCENT_MARKS.length && pct >= PERCENT_MARKS[this.nextMark]!) {
      this.nextMark++;
      crossed = true;
    }
    if (crossed) this.out(`${percentBlock(p)}\n`);
  }

  /** Skip marks already passed (resume starts part-way). */
  skipPassedMarks(): void {
    const p = this.progress;
    const pct = p.total > 0 ? (100 * (p.done + p.failed)) / p.total : 0;
    while (this.nextMark < PERCENT_MARKS.length && pct >= PERCENT_MARKS[this.nextMark]!) this.nextMark++;
  }

  private drawBar(): void {
    const line = barLine(this.progress);
    this.out(`\r${line}${" ".repeat(Math.max(0, this.lastBarLen - line.length))}`);
    this.lastBarLen = line.length;
  }

  /** Log every rollout in flight longer than the stall threshold (again after each further period). */
  checkStalls(now = performance.now()): InFlight[] {
    const limit = this.opts.stallWarningSeconds * 1000;
    const stalled: InFlight[] = [];
    for (const f of this.inFlight.values()) {
      if (now - f.startedAt < limit) continue;
      if (f.warnedAt !== undefined && now - f.warnedAt < limit) continue;
      f.warnedAt = now;
      stalled.push(f);
    }
    if (stalled.length > 0) {
      const shown = stalled.slice(0, 10).map((f) => `  rollout ${f.id}: ${Math.round((now - f.startedAt) / 1000)} s waiting on ${f.server} (${f.url})`);
      if (stalled.length > 10) shown.push(`  … and ${stalled.length - 10} more`);
      log.warn(`${stalled.length} rollout(s) made no progress for ${this.opts.stallWarningSeconds} s (stall_warning_seconds):\n${shown.join("\n")}`);
      this.lastTrace = this.traceStalls(stalled);
    }
    return stalled;
  }

  private tracing = false;
  /** The trace started by the last stall warning (tests await it). */
  lastTrace: Promise<string[]> | undefined;

  /** Follow the stalled rollouts' servers to the deepest waiting hop and log what it waits on (one trace at a time). */
  async traceStalls(stalled: InFlight[]): Promise<string[]> {
    const trace = this.opts.trace;
    if (!trace || this.tracing) return [];
    this.tracing = true;
    try {
      const seen = new Map<string, InFlight>();
      for (const f of stalled) if (!seen.has(f.server) && seen.size < 3) seen.set(f.server, f);
      const lines = await Promise.all([...seen.values()].map((f) => trace(f.server, f.url).catch((e) => `${f.server}: trace failed: ${(e as Error).message}`)));
      if (lines.length > 0) log.warn(`deepest waiting hop:\n${lines.map((l) => `  ${l}`).join("\n")}`);
      return lines;
    } finally {
      this.tracing = false;
    }
  }

  /** Stop the timers; on a TTY, draw the final bar and end its line. */
  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    if (this.opts.tty && this.running) {
      this.drawBar();
      this.out("\n");
    }
    this.running = false;
  }
}
