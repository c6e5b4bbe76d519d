/**
 * The shutdown sequence (runtime.md §4.3): SIGINT to every child, wait up to 1 s, SIGKILL the
 * rest and name them, reap with a 2 s bound. Children are waited for in parallel, so the whole
 * sequence takes at most ~3 s however many servers run.
 */
import type { ChildProcess } from "./children.ts";

const GRACE_MS = 1000;
const REAP_MS = 2000;

async function settled(procs: ChildProcess[], ms: number): Promise<void> {
  await Promise.race([Promise.all(procs.map((p) => p.proc.exited)), Bun.sleep(ms)]);
}

/** Interrupt, then kill, every process; reports through `out` with upstream's wording. */
export async function stopChildren(procs: ChildProcess[], out: (line: string) => void): Promise<void> {
  const running = procs.filter((p) => p.alive);
  try {
    await stopRunning(running, out);
  } finally {
    // An external server's own children share its process group: take the rest of the group down too.
    for (const p of procs) if (p.external) p.killGroup();
  }
}

async function stopRunning(running: ChildProcess[], out: (line: string) => void): Promise<void> {
  if (running.length === 0) return;
  out("Sending interrupt signals to servers...");
  for (const p of running) p.signal("SIGINT");
  out("Waiting for processes to finish...");
  await settled(running, GRACE_MS);
  const stubborn = running.filter((p) => p.alive);
  if (stubborn.length === 0) return;
  const names = [...new Set(stubborn.map((p) => p.name))].join(", ");
  out(`Some processes (${names}) didn't shutdown within the 1s timeout, killing instead. You may see messages like: "raylet ... GCS ... failed" from servers killed this way.`);
  for (const p of stubborn) p.signal("SIGKILL");
  await settled(stubborn, REAP_MS);
  const zombies = stubborn.filter((p) => p.alive);
  if (zombies.length > 0) {
    out(`WARNING: processes (${[...new Set(zombies.map((p) => p.name))].join(", ")}) did not exit within 2s after SIGKILL; they may remain as zombies until this process exits.`);
  }
}
