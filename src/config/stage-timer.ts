/**
 * Stage timing marks for profiling the config pipeline inside the compiled binary, where a
 * profiler is awkward: with `GYM_TIMING=1` each mark prints the time since process start and
 * since the previous mark on stderr. Off (the default), a mark is one boolean test.
 */
import { writeSync } from "node:fs";
import { readEnv } from "../env.ts";

let enabled: boolean | undefined;
let last = 0;

/** Record that the stage `label` just ended (printed only when `GYM_TIMING=1`). */
export function mark(label: string): void {
  enabled ??= readEnv().timing;
  if (!enabled) return;
  const now = performance.now();
  // writeSync to fd 2, not process.stderr: building that stream would itself cost ~3 ms here.
  writeSync(2, `[timing] ${now.toFixed(2).padStart(8)} ms  +${(now - last).toFixed(2).padStart(6)} ms  ${label}\n`);
  last = now;
}
