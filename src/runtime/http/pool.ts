/**
 * The outbound pool keys (D17, cli-config.md §7.3): `global_aiohttp_connector_limit(_per_host)`
 * divided by the worker count, the positive→0 rejection, intended-concurrency warnings, and the
 * `BUN_CONFIG_MAX_HTTP_REQUESTS` value a child is started with (D16).
 */
import { ConfigError } from "../../errors.ts";
import { log } from "../../log.ts";
import { effectivePerHostLimit, SOCKETS_PER_ROLLOUT_AGENT } from "./http-fd-budget.ts";

/** Effective per-process limits (0 = unlimited). */
export interface PoolLimits {
  limit: number;
  limitPerHost: number;
}

const DEFAULT_LIMIT = 102_400;
const DEFAULT_LIMIT_PER_HOST = 1024;
/** Bun accepts BUN_CONFIG_MAX_HTTP_REQUESTS only in [1, 65535]. */
const BUN_MAX_HTTP_REQUESTS = 65_535;

function intKey(dict: Record<string, unknown>, key: string, fallback: number): number {
  const v = dict[key];
  if (v === undefined || v === null) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${key} must be a non-negative integer, got ${JSON.stringify(v)}.`, { key });
  return n;
}

/** Per-process limits of a server with `workers` processes; throws when a positive limit would become 0. */
export function poolLimits(dict: Record<string, unknown>, workers = 1, serverName = "<client>"): PoolLimits {
  const w = Math.max(1, Math.floor(workers));
  const out: Record<string, number> = {};
  for (const [key, fallback] of [
    ["global_aiohttp_connector_limit", DEFAULT_LIMIT],
    ["global_aiohttp_connector_limit_per_host", DEFAULT_LIMIT_PER_HOST],
  ] as const) {
    const configured = intKey(dict, key, fallback);
    const effective = Math.floor(configured / w);
    if (configured > 0 && effective === 0) {
      throw new ConfigError(
        `${key}=${configured} is smaller than num_workers=${w} for server '${serverName}'; the per-worker limit would be 0 (unlimited). Raise the limit or lower num_workers.`,
        { key },
      );
    }
    out[key] = effective;
  }
  return { limit: out.global_aiohttp_connector_limit!, limitPerHost: out.global_aiohttp_connector_limit_per_host! };
}

/** Log the limits once per server and warn when the intended concurrency exceeds them (never fails). */
export function reportPoolLimits(dict: Record<string, unknown>, limits: PoolLimits, serverName: string, fdSoftLimit?: number): void {
  const fd = fdSoftLimit === undefined ? "" : `, file descriptors ${fdSoftLimit}`;
  const perHost = effectivePerHostLimit(limits.limitPerHost, fdSoftLimit);
  const capped = perHost.cappedByFds ? ` (capped from ${limits.limitPerHost || "unlimited"} so ${SOCKETS_PER_ROLLOUT_AGENT} sockets per rollout fit the open-file limit; more requests queue)` : "";
  // The client applies min(limit, per host) to each destination separately (http-client.ts: a shared total deadlocks nested hops).
  log.info(`(${serverName}) outbound pool: limit ${limits.limit || "unlimited"}, per host ${perHost.limit || "unlimited"} (each applied per destination)${capped}${fd}`);
  const pairs: [string, number][] = [
    ["global_aiohttp_intended_concurrency", limits.limit],
    ["global_aiohttp_intended_concurrency_per_host", limits.limitPerHost],
  ];
  for (const [key, cap] of pairs) {
    const intended = Number(dict[key]);
    if (!Number.isFinite(intended) || intended <= 0) continue;
    if (cap > 0 && intended > cap) log.warn(`(${serverName}) ${key}=${intended} exceeds the effective connection limit ${cap}; requests will queue.`);
    if (fdSoftLimit !== undefined && intended > fdSoftLimit) log.warn(`(${serverName}) ${key}=${intended} exceeds the file-descriptor soft limit ${fdSoftLimit}; raise \`ulimit -n\`.`);
  }
}

/** The BUN_CONFIG_MAX_HTTP_REQUESTS value for a process with these limits (Bun's range is 1..65535). */
export function bunMaxHttpRequests(limits: PoolLimits): number {
  const total = limits.limit <= 0 ? BUN_MAX_HTTP_REQUESTS : limits.limit;
  return Math.min(BUN_MAX_HTTP_REQUESTS, Math.max(1, total));
}
