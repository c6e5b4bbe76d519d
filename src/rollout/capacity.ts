/**
 * Capacity checks made before the first rollout: the open-file budget of the agent and of the
 * driver (warn before the run, not EMFILE mid-run) and Bun's outbound fetch cap (D16: 256 in flight unless
 * `BUN_CONFIG_MAX_HTTP_REQUESTS` was set when the process started).
 */
import { fdCapPerHost, fdReserve, openFileLimits as runtimeOpenFileLimits, SOCKETS_PER_ROLLOUT_AGENT } from "../runtime/http/http-fd-budget.ts";

/** Bun's default outbound cap. */
export const BUN_DEFAULT_MAX_HTTP_REQUESTS = 256;
/** Bun accepts at most this value. */
export const BUN_MAX_HTTP_REQUESTS = 65_535;
/** Descriptors a driver needs besides its sockets (files, stdio, status server, slack). */
const FD_OVERHEAD = 64;
/** Servers raise their soft limit to the hard limit, at most this (runtime.md §5 step 9). */
const SERVER_SOFT_TARGET = 65_535;

/** The soft and hard open-file limits of this process, when the platform exposes them. */
export const openFileLimits = runtimeOpenFileLimits;

/**
 * The warning for `inFlight` concurrent rollouts, or undefined when the budget suffices. The
 * tightest process is the agent: a simple_agent holds 4 sockets per rollout (its inbound `/run`,
 * its HTTP self-call to `/v1/responses` on both ends, and that call's model or tool request).
 * Servers raise their soft limit to the hard one, and cap their pools per host to fit it
 * (runtime/http/http-fd-budget.ts), so demand beyond it queues instead of failing with EMFILE; the
 * driver itself holds one socket per rollout under its own soft limit.
 */
export function fdBudgetWarning(inFlight: number, limits = openFileLimits()): string | undefined {
  if (!limits) return undefined;
  const hard = limits.hard;
  const serverSoft = Math.max(limits.soft, Math.min(hard, SERVER_SOFT_TARGET));
  const agentNeed = SOCKETS_PER_ROLLOUT_AGENT * inFlight + fdReserve(serverSoft);
  const driverNeed = inFlight + FD_OVERHEAD;
  const hardText = Number.isFinite(hard) ? String(hard) : "unlimited";
  const parts: string[] = [];
  if (inFlight > fdCapPerHost(serverSoft)) {
    const most = fdCapPerHost(serverSoft);
    // Servers already raise their soft limit to the hard one, so only the hard limit can help.
    const raise = agentNeed <= SERVER_SOFT_TARGET
      ? `raise the hard open-file limit to at least ${agentNeed} (ulimit -Hn, systemd LimitNOFILE or limits.conf)`
      : `spread the rollouts over several agent servers (servers open at most ${SERVER_SOFT_TARGET} files)`;
    parts.push(
      `${inFlight} rollouts in flight need about ${agentNeed} open files in the agent server (${SOCKETS_PER_ROLLOUT_AGENT} sockets per rollout: its inbound /run, ` +
        `its HTTP call to its own /v1/responses on both ends, and that call's model or tool request), but a server process may open only ${serverSoft} ` +
        `(hard limit ${hardText}). The servers cap their connections at ${most} per host so nothing fails with "Too many open files" (EMFILE): ` +
        `about ${most} rollouts run at once and the rest queue. To run them all at once, ${raise}, or lower num_samples_in_parallel / max_resident_rollout_tasks to at most ${most}.`,
    );
  }
  if (driverNeed > limits.soft) {
    const most = Math.max(1, limits.soft - FD_OVERHEAD);
    const raise = driverNeed <= hard ? `raise it with \`ulimit -n ${driverNeed}\` before starting gym, or` : `raise the hard limit to at least ${driverNeed}, or`;
    parts.push(
      `The driver holds one socket per rollout in flight (${driverNeed} open files for ${inFlight}) but may open only ${limits.soft} (ulimit -n; hard limit ${hardText}): ` +
        `${raise} lower num_samples_in_parallel / max_resident_rollout_tasks to at most ${most}. Otherwise its requests fail with "Too many open files" (EMFILE) mid-run.`,
    );
  }
  return parts.length > 0 ? parts.join(" ") : undefined;
}

