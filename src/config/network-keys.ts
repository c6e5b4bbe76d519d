/**
 * HTTP pool and reverse-proxy keys (D17, D18, cli-config §7.3). Names keep upstream's
 * aiohttp/uvicorn spelling; rules are as the seed documents them.
 */
import { ConfigError, ConfigErrors, type SourceLocation } from "../errors.ts";

/** Maps a top-level key to where its value came from, when known (D12). */
export type Locate = (key: string) => SourceLocation | undefined;
import type { ServerInstance } from "./types.ts";

/** Pool keys divided per worker. */
export const POOL_LIMIT_KEYS = ["global_aiohttp_connector_limit", "global_aiohttp_connector_limit_per_host"] as const;
/** Defaults of the pool keys (§7.2). */
export const POOL_LIMIT_DEFAULTS: Record<(typeof POOL_LIMIT_KEYS)[number], number> = {
  global_aiohttp_connector_limit: 102400,
  global_aiohttp_connector_limit_per_host: 1024,
};

/** Workers of a server: `num_workers` when > 1, else 1. */
export function workersOf(leaf: Record<string, unknown>): number {
  const w = leaf.num_workers;
  return typeof w === "number" && Number.isInteger(w) && w > 1 ? w : 1;
}

/** Per-worker limit: ⌊limit / W⌋; 0 stays 0 (unlimited). */
export function effectiveLimit(limit: number, workers: number): number {
  return limit === 0 ? 0 : Math.floor(limit / Math.max(1, workers));
}

/** Check that no positive pool limit divides to 0 for any server. */
export function checkPoolLimits(read: (key: string) => unknown, servers: ServerInstance[], locate: Locate = () => undefined): void {
  const errors: ConfigError[] = [];
  for (const key of POOL_LIMIT_KEYS) {
    const raw = read(key);
    const limit = raw === undefined || raw === null ? POOL_LIMIT_DEFAULTS[key] : raw;
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0) {
      errors.push(new ConfigError(`${key} must be a non-negative integer (0 = unlimited), got ${JSON.stringify(raw)}.`, { key, location: locate(key) }));
      continue;
    }
    for (const s of servers) {
      const w = workersOf(s.leaf);
      if (limit > 0 && effectiveLimit(limit, w) === 0) {
        errors.push(
          new ConfigError(
            `${key}=${limit} is smaller than num_workers=${w} for server '${s.name}'; the per-worker limit would be 0 (unlimited). Raise the limit or lower num_workers.`,
            { key, location: locate(key) },
          ),
        );
      }
    }
  }
  if (errors.length === 1) throw errors[0]!;
  if (errors.length > 1) throw new ConfigErrors("HTTP pool limits are invalid:", errors);
}

/** True when `entry` is an IPv4/IPv6 address or CIDR that does not cover every address. */
function allowEntryProblem(entry: unknown): string | undefined {
  if (typeof entry !== "string" || entry.trim() === "") return `uvicorn_forwarded_allow_ips entry ${JSON.stringify(entry)} is not an IP address or CIDR.`;
  const e = entry.trim();
  const wildcard = `uvicorn_forwarded_allow_ips entry '${e}' is not allowed: wildcards and all-address ranges trust every client.`;
  if (e.includes("*")) return wildcard;
  const [addr, prefix, extra] = e.split("/");
  // Required here, not imported: node:net costs every command ~2 ms of startup in the binary,
  // and only an allowlist entry needs it.
  const { isIP } = require("node:net") as typeof import("node:net");
  const family = isIP(addr ?? "");
  if (family === 0 || extra !== undefined) return `uvicorn_forwarded_allow_ips entry '${e}' is not an IP address or CIDR (e.g. 10.0.0.5 or 10.0.0.0/8).`;
  if (prefix !== undefined) {
    const n = /^\d+$/.test(prefix) ? Number(prefix) : NaN;
    if (!Number.isInteger(n) || n > (family === 4 ? 32 : 128)) return `uvicorn_forwarded_allow_ips entry '${e}' has an invalid prefix length.`;
    if (n === 0) return wildcard;
  }
  return undefined;
}

/** D18: proxy headers need a non-empty, specific allowlist. */
export function checkProxyKeys(read: (key: string) => unknown, locate: Locate = () => undefined): void {
  const on = read("uvicorn_proxy_headers");
  const ips = read("uvicorn_forwarded_allow_ips");
  if (on !== undefined && on !== null && typeof on !== "boolean") {
    throw new ConfigError(`uvicorn_proxy_headers must be a boolean (true/false), got ${JSON.stringify(on)}.`, { key: "uvicorn_proxy_headers", location: locate("uvicorn_proxy_headers") });
  }
  if (ips !== undefined && ips !== null && !Array.isArray(ips)) {
    throw new ConfigError(`uvicorn_forwarded_allow_ips must be a list of proxy addresses or CIDRs, got ${JSON.stringify(ips)}.`, {
      key: "uvicorn_forwarded_allow_ips",
      location: locate("uvicorn_forwarded_allow_ips"),
    });
  }
  const list = Array.isArray(ips) ? ips : [];
  for (const e of list) {
    const p = allowEntryProblem(e);
    if (p) throw new ConfigError(p, { key: "uvicorn_forwarded_allow_ips", location: locate("uvicorn_forwarded_allow_ips") });
  }
  if (on === true && list.length === 0) {
    throw new ConfigError("uvicorn_proxy_headers=true requires a non-empty uvicorn_forwarded_allow_ips list of proxy addresses or CIDRs.", {
      key: "uvicorn_proxy_headers",
      location: locate("uvicorn_proxy_headers"),
    });
  }
}
