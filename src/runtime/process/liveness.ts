/**
 * Liveness of running servers (issue 11): a server that stops answering (SIGSTOP, a debugger, a
 * wedged event loop) does not exit, so the exit watch never sees it and rollouts routed through it
 * just wait. Every few seconds each server's `GET /` gets a short deadline; one that has not
 * answered for `stallSeconds` is reported by name and pid, and again when it recovers.
 */

/** A server to watch. */
export interface LivenessTarget {
  name: string;
  url: string;
  pids: number[];
}

/** Options of the probe loop. */
export interface LivenessOptions {
  /** Seconds without an answer before a server is reported (0 = off). */
  stallSeconds: number;
  /** Probe period in ms (default: a fifth of the stall time, 1–5 s). */
  intervalMs?: number;
  report: (line: string) => void;
}

/** Probe every target until stopped; returns the stop function. */
export function watchLiveness(targets: LivenessTarget[], opts: LivenessOptions): () => void {
  if (opts.stallSeconds <= 0 || targets.length === 0) return () => {};
  const stallMs = opts.stallSeconds * 1000;
  const interval = opts.intervalMs ?? Math.min(5000, Math.max(1000, stallMs / 5));
  const lastAnswer = new Map(targets.map((t) => [t.name, performance.now()]));
  const reported = new Set<string>();
  const inFlight = new Set<string>();
  let stopped = false;

  const probe = async (t: LivenessTarget) => {
    if (inFlight.has(t.name)) return;
    inFlight.add(t.name);
    try {
      // Any HTTP answer counts: the process is scheduling its event loop.
      await fetch(`${t.url}/`, { signal: AbortSignal.timeout(Math.max(500, interval)) }).then((r) => r.body?.cancel());
      lastAnswer.set(t.name, performance.now());
      if (reported.delete(t.name) && !stopped) opts.report(`server \`${t.name}\` answers again`);
    } catch {
      const silent = performance.now() - lastAnswer.get(t.name)!;
      if (silent >= stallMs && !reported.has(t.name) && !stopped) {
        reported.add(t.name);
        opts.report(
          `server \`${t.name}\` (pid ${t.pids.join(",")}, ${t.url}) has not answered GET / for ${Math.round(silent / 1000)} s: it is stopped (SIGSTOP, a debugger) or hung; rollouts routed through it are waiting`,
        );
      }
    } finally {
      inFlight.delete(t.name);
    }
  };
  const timer = setInterval(() => {
    for (const t of targets) void probe(t);
  }, interval);
  timer.unref?.();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
