/**
 * The open-file budget of the outbound pools (runtime.md §2.4, §5 step 9). Every in-flight
 * request is a socket on each side, and a relaying server holds several per rollout: the agent
 * holds its inbound `/run`, its self-call to `/v1/responses` (out and in) and that call's model or
 * tool call, so 4 sockets per rollout. When the connection pools may open more sockets than the
 * soft limit allows, requests fail mid-run with EMFILE; capping every pool per host at
 * (soft − reserve) / 4 instead makes surplus requests queue in-process, so a stack whose hops all
 * carry the cap stays within the limit in every process, whatever the demand. The keep-alive pool
 * (http-pool.ts) keeps at most the same number of sockets in total, idle ones closed first.
 */
import { readFileSync } from "node:fs";

/** Descriptors kept free for files, logs, stdio, listening sockets and slack: 256, or 5 % of a large limit. */
export function fdReserve(softLimit: number): number {
  return Math.max(256, Math.ceil(softLimit * 0.05));
}
/** Sockets one in-flight rollout holds in the busiest built-in server (simple_agent, see above). */
export const SOCKETS_PER_ROLLOUT_AGENT = 4;
/** Sockets one in-flight request holds in a server that relays it (inbound + outbound). */
export const SOCKETS_PER_RELAYED_REQUEST = 2;

/** The soft and hard open-file limits of this process (Linux /proc), or undefined elsewhere. */
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

/** Connections per host that keep a process with `softLimit` open files out of EMFILE (never below 16). */
export function fdCapPerHost(softLimit: number): number {
  if (!Number.isFinite(softLimit)) return Number.POSITIVE_INFINITY;
  return Math.max(16, Math.floor((softLimit - fdReserve(softLimit)) / SOCKETS_PER_ROLLOUT_AGENT));
}

/** The per-host limit to enforce: the configured one (0 = unlimited) capped by the fd budget. */
export function effectivePerHostLimit(configured: number, softLimit: number | undefined): { limit: number; cappedByFds: boolean } {
  const cap = softLimit === undefined ? Number.POSITIVE_INFINITY : fdCapPerHost(softLimit);
  const wanted = configured <= 0 ? Number.POSITIVE_INFINITY : configured;
  if (cap < wanted) return { limit: cap, cappedByFds: true };
  return { limit: configured, cappedByFds: false };
}
