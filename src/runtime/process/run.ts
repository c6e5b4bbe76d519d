/**
 * Run a supervisor in the foreground until Ctrl+C/SIGINT/SIGTERM/SIGHUP or a server failure
 * (runtime.md §4.2–§4.3): a signal shuts down cleanly (exit 0); a server that dies is reported by
 * name with its log tail, everything is shut down, and the error is thrown (exit 1).
 */
import type { Supervisor } from "./supervisor.ts";

/** Start, wait, and shut down; returns the exit code on a requested stop, throws on failure. */
export async function runUntilStopped(sup: Supervisor, opts: { onReady?: () => void } = {}): Promise<number> {
  const { promise: signalled, resolve: onSignal } = Promise.withResolvers<string>();
  let signalSeen = false;
  const handler = (sig: string) => () => {
    signalSeen = true;
    onSignal(sig);
  };
  const onInt = handler("SIGINT");
  const onTerm = handler("SIGTERM");
  // A closed terminal (SIGHUP) must also shut the servers down rather than kill us mid-way.
  const onHup = handler("SIGHUP");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  process.on("SIGHUP", onHup);
  try {
    const started = sup.start().then(() => "ready" as const);
    const first = await Promise.race([started, signalled]);
    if (first !== "ready") {
      // Interrupted while starting: stop what exists; start() then fails quietly.
      started.catch(() => {});
      await sup.shutdown();
      return 0;
    }
    opts.onReady?.();
    const outcome = await Promise.race([signalled.then(() => undefined), sup.waitForFailure()]);
    await sup.shutdown();
    // A terminal Ctrl+C reaches the servers too; their exit is then expected, not a failure.
    if (outcome && !signalSeen) throw outcome;
    return 0;
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    process.off("SIGHUP", onHup);
  }
}
