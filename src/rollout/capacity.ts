/**
 * Capacity checks made before the first rollout: the open-file budget (warn before the run,
 * not EMFILE mid-run) and Bun's outbound fetch cap (D16: 256 in flight unless
 * `BUN_CONFIG_MAX_HTTP_REQUESTS` was set when the process started).
 */
import { readFileSync } from "node:fs";

/** Bun's default outbound cap. */
export const BUN_DEFAULT_MAX_HTTP_REQUESTS = 256;
/** Bun accepts at most this value. */
export const BUN_MAX_HTTP_REQUESTS = 65_535;
/** Descriptors a driver needs besides its sockets (files, stdio, status server, slack). */
const FD_OVERHEAD = 64;

/** The soft and hard open-file limits of this process, when the platform exposes them. */
export function openFileLimits(): { soft: number; hard: number } | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const m = line?.match(/Max open files\s+(\S+)\s+(\S+)/);
    if (!m) return undefined;
    const n = (s: string) => (s === "unlimited" ? Number.POSITIVE_INFINITY : Number(s));
    return { soft: n(m[1]!), hard: n(m[2]!) };
  } catch {
    return undefined;
  }
}

/**
 * The warning for `inFlight` concurrent rollouts, or undefined when the budget suffices. The
 * tightest process is a relaying server (environment server, agent): it holds an inbound and an
 * outbound socket per rollout, so it needs about twice the in-flight count.
 */
export function fdBudgetWarning(inFlight: number, limits = openFileLimits()): string | undefined {
  if (!limits) return undefined;
  const need = 2 * inFlight + FD_OVERHEAD;
  if (need <= limits.soft) return undefined;
  const most = Math.max(1, Math.floor((limits.soft - FD_OVERHEAD) / 2));
  const raise = limits.hard > limits.soft ? ` Raise it with \`ulimit -n ${Number.isFinite(limits.hard) ? limits.hard : need}\` before starting gym, or` : "";
  return (
    `${inFlight} rollouts in flight need about ${need} open files in each relaying server (an inbound and an outbound socket per rollout), ` +
    `but a process may open only ${limits.soft} (ulimit -n; hard limit ${limits.hard}).${raise} lower num_samples_in_parallel / max_resident_rollout_tasks to at most ${most}. ` +
    `Otherwise requests fail with "Too many open files" (EMFILE) mid-run.`
  );
}

/** The `BUN_CONFIG_MAX_HTTP_REQUESTS` value a driver with this in-flight cap must start with, or undefined when the default suffices. */
export function neededMaxHttpRequests(inFlight: number, current: number | undefined): number | undefined {
  const have = current ?? BUN_DEFAULT_MAX_HTTP_REQUESTS;
  // A few extra for aggregation, status and exporter calls made while rollouts are in flight.
  const want = Math.min(BUN_MAX_HTTP_REQUESTS, inFlight + 16);
  return want > have ? want : undefined;
}
