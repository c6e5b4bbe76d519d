/**
 * Global defaults after server discovery (cli-config §4.9, D8, D9). Keys the config leaves out
 * are appended in upstream's order; explicit values are validated and kept. Ports the config
 * leaves unset stay unset: the runtime allocates them race-free (D14).
 */
import { realpathSync } from "node:fs";
import { hostname } from "node:os";
import { homeDir } from "../env.ts";
import { dirname, basename, join, resolve } from "node:path";
import { ConfigError, type SourceLocation } from "../errors.ts";
import { isPlainMap } from "./merge.ts";
import type { ConfigDict, ServerInstance } from "./types.ts";

/** Default head server port. */
export const DEFAULT_HEAD_PORT = 11000;
/** Default readiness timeouts in seconds (D9). */
export const DEFAULT_TIMEOUT_SECONDS = 600;

/** Options of `applyDefaults`. */
export interface DefaultsOptions {
  cwd: string;
  /** No DNS lookup (offline resolution). */
  offline?: boolean;
  /** Reads a top-level key with interpolations resolved. */
  read: (key: string) => unknown;
  /** Where a top-level key's value came from (D12). */
  locate: (key: string) => SourceLocation | undefined;
}

function setDefault(dict: ConfigDict, key: string, value: unknown): void {
  if (!Object.hasOwn(dict, key) || dict[key] === undefined) dict[key] = value;
}

/** Expand `~`, make absolute against cwd, and canonicalise the longest existing prefix. */
export function absolutePath(p: string, cwd: string): string {
  const expanded = p === "~" ? homeDir() : p.startsWith("~/") ? join(homeDir(), p.slice(2)) : p;
  const abs = resolve(cwd, expanded);
  let head = abs;
  const tail: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), ...tail);
    } catch {
      const parent = dirname(head);
      if (parent === head) return abs;
      tail.unshift(basename(head));
      head = parent;
    }
  }
}

/** The host servers bind by default: the machine IP with use_absolute_ip, else default_host, else 127.0.0.1. */
export async function defaultHost(useAbsoluteIp: boolean, configured: unknown, offline = false): Promise<string> {
  if (useAbsoluteIp && !offline) {
    try {
      // Required on use: only use_absolute_ip needs DNS, and loading it costs every command's startup.
      const { lookup } = require("node:dns/promises") as typeof import("node:dns/promises");
      return (await lookup(hostname(), { family: 4 })).address;
    } catch {
      return "127.0.0.1";
    }
  }
  return typeof configured === "string" && configured !== "" ? configured : "127.0.0.1";
}

function numberSetting(opts: DefaultsOptions, key: string, message: (raw: unknown) => string): number {
  const raw = opts.read(key);
  if (raw === undefined || raw === null) return DEFAULT_TIMEOUT_SECONDS;
  const n = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
  if (!Number.isFinite(n)) throw new ConfigError(message(raw), { key, location: opts.locate(key) });
  return n;
}

function pathSetting(dict: ConfigDict, opts: DefaultsOptions, key: string, fallback: string): string {
  if (!Object.hasOwn(dict, key) || dict[key] === null) return fallback;
  const raw = opts.read(key);
  if (typeof raw !== "string" || raw.trim() === "") {
    throw new ConfigError(`${key} must be a non-empty path string, got ${typeof raw === "string" ? `'${raw}'` : JSON.stringify(raw)}.`, {
      key,
      location: opts.locate(key),
    });
  }
  return absolutePath(raw, opts.cwd);
}

/** Apply the post-discovery defaults to `dict` (in place), filling server hosts. */
export async function applyDefaults(dict: ConfigDict, servers: ServerInstance[], opts: DefaultsOptions): Promise<void> {
  const useAbs = opts.read("use_absolute_ip");
  if (useAbs !== undefined && useAbs !== null && typeof useAbs !== "boolean") {
    throw new ConfigError(`use_absolute_ip must be a boolean (true/false), got ${JSON.stringify(useAbs)}.`, { key: "use_absolute_ip", location: opts.locate("use_absolute_ip") });
  }
  setDefault(dict, "use_absolute_ip", false);
  const host = await defaultHost(useAbs === true, opts.read("default_host"), opts.offline);

  const userHead = opts.read("head_server");
  if (userHead !== undefined && userHead !== null && userHead !== false && !isPlainMap(userHead)) {
    throw new ConfigError(`head_server must be a map like {host: 127.0.0.1, port: 11000}, got ${JSON.stringify(userHead)}.`, {
      key: "head_server",
      location: opts.locate("head_server"),
    });
  }
  const headPort = isPlainMap(userHead) && userHead.port !== undefined && userHead.port !== null ? userHead.port : DEFAULT_HEAD_PORT;
  if (typeof headPort !== "number" || !Number.isInteger(headPort)) {
    throw new ConfigError(`head_server.port must be an integer, got ${JSON.stringify(headPort)}.`, { key: "head_server.port", location: opts.locate("head_server") });
  }
  const disallowed: number[] = [headPort];
  const userDisallowed = opts.read("disallowed_ports");
  if (Array.isArray(userDisallowed)) for (const p of userDisallowed) if (typeof p === "number" && !disallowed.includes(p)) disallowed.push(p);

  for (const s of servers) {
    if (!s.leaf.host) s.leaf.host = host;
    const port = s.leaf.port;
    if (typeof port === "number" && port > 0 && !disallowed.includes(port)) disallowed.push(port);
    if (s.serverType === "responses_api_agents") {
      for (const k of ["skip_verification", "skip_verification_reward"]) {
        if (Object.hasOwn(dict, k) && dict[k] !== null && !Object.hasOwn(s.leaf, k)) s.leaf[k] = dict[k];
      }
    }
  }

  if (!isPlainMap(dict.head_server)) dict.head_server = { host, port: DEFAULT_HEAD_PORT };
  else {
    const hs = dict.head_server;
    if (!hs.host) hs.host = host;
    if (hs.port === undefined || hs.port === null) hs.port = DEFAULT_HEAD_PORT;
  }
  dict.disallowed_ports = disallowed;
  setDefault(dict, "port_range_low", 10001);
  setDefault(dict, "port_range_high", 20000);
  setDefault(dict, "skip_venv_if_present", false);
  setDefault(dict, "dry_run", false);

  const readiness = numberSetting(opts, "model_endpoint_readiness_timeout_seconds", (raw) =>
    `\`model_endpoint_readiness_timeout_seconds\` must be a number of seconds, got '${String(raw)}'. Set it to 0 to skip waiting for model endpoints.`,
  );
  const spinup = numberSetting(opts, "server_spinup_timeout_seconds", (raw) =>
    `\`server_spinup_timeout_seconds\` must be a number of seconds, got '${String(raw)}'. Set it to 0 or less to wait without a limit.`,
  );
  setDefault(dict, "model_endpoint_readiness_timeout_seconds", readiness);
  setDefault(dict, "server_spinup_timeout_seconds", spinup);

  const skew = Object.hasOwn(dict, "allow_openai_version_skew") ? opts.read("allow_openai_version_skew") : false;
  if (typeof skew !== "boolean") {
    throw new ConfigError(`allow_openai_version_skew must be a boolean (true/false), got '${String(skew)}'.`, {
      key: "allow_openai_version_skew",
      location: opts.locate("allow_openai_version_skew"),
    });
  }
  dict.allow_openai_version_skew = skew;

  const resultsDir = pathSetting(dict, opts, "results_dir", join(opts.cwd, "results"));
  const cacheDir = pathSetting(dict, opts, "cache_dir", join(opts.cwd, "cache"));
  setDefault(dict, "uv_cache_dir", join(cacheDir, "uv"));
  setDefault(dict, "uv_venv_dir", opts.cwd);
  dict.results_dir = resultsDir;
  dict.cache_dir = cacheDir;
}
