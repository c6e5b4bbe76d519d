/**
 * Orphan protection for external servers. Built-in children notice a dead supervisor themselves
 * (IPC channel closed); a Python server cannot. So when externals run, the supervisor also starts
 * a tiny watchdog (this binary again) that holds their process-group ids and, if the supervisor
 * disappears without shutting them down, interrupts and then kills those groups.
 */
import type { Subprocess } from "bun";

type WatchMessage = { type: "watch"; pid: number } | { type: "unwatch"; pid: number };

/** Supervisor side: one watchdog process per run, started on first use. */
export class Watchdog {
  private proc: Subprocess | undefined;
  constructor(private readonly command: string[]) {}

  /** Ask the watchdog to take care of a process group. */
  watch(pid: number): void {
    this.proc ??= Bun.spawn([...this.command, "internal", "serve", "--watchdog"], {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "inherit",
      serialization: "json",
      ipc: () => {},
    });
    this.proc.send({ type: "watch", pid } satisfies WatchMessage);
  }

  /** The supervisor cleaned up itself: stop the watchdog and reap it. */
  async stop(): Promise<void> {
    const p = this.proc;
    this.proc = undefined;
    if (!p) return;
    p.kill("SIGKILL");
    await Promise.race([p.exited, Bun.sleep(2000)]);
  }

  /** Watchdog pid, when running (tests check the process table). */
  get pid(): number | undefined {
    return this.proc?.pid;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      // Gone already.
    }
  }
}

/** Watchdog side: wait for the supervisor to vanish, then take the watched groups down. Never returns normally. */
export async function runWatchdog(): Promise<number> {
  const pids = new Set<number>();
  process.on("message", (m: unknown) => {
    const msg = m as WatchMessage;
    if (msg?.type === "watch") pids.add(msg.pid);
    else if (msg?.type === "unwatch") pids.delete(msg.pid);
  });
  // Signals sent to the whole group (Ctrl+C, a closed terminal, `kill -TERM -<pgid>`) are for the
  // supervisor; the watchdog outlives it so it can clean up if the supervisor dies of them.
  for (const sig of ["SIGINT", "SIGHUP", "SIGTERM"] as const) process.on(sig, () => {});
  const parent = process.ppid;
  await new Promise<void>((resolve) => {
    process.on("disconnect", () => resolve());
    setInterval(() => {
      if (process.ppid !== parent) resolve();
    }, 500);
  });
  for (const pid of pids) signalGroup(pid, "SIGINT");
  const deadline = Date.now() + 1000;
  while (Date.now() < deadline && [...pids].some(alive)) await Bun.sleep(50);
  for (const pid of pids) signalGroup(pid, "SIGKILL");
  return 0;
}
