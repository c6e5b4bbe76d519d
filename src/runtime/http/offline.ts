/**
 * Offline hard mode (issue 20 §3: `--offline` / `GYM_OFFLINE=1`): gym reaches no host but loopback and
 * the hosts `GYM_OFFLINE_ALLOW` names. Checked where calls leave the process (the outbound client, the
 * model-endpoint readiness probe, hub downloads), so a forgotten download fails at once, never after a
 * connect timeout, and says how to stage what it wanted.
 */
import { readEnv } from "../../env.ts";
import { GymError, EXIT_USAGE } from "../../errors.ts";
import { maskUrlSecrets } from "../../util/url-secrets.ts";

/** What offline mode allows: off, or on with the hosts it may still reach. */
export interface OfflinePolicy {
  on: boolean;
  allow: Set<string>;
}

/** The policy of this process, from the environment (read when a client is built, not per call). */
export function offlinePolicy(): OfflinePolicy {
  const env = readEnv();
  return { on: env.offline, allow: new Set((env.offlineAllow ?? "").split(",").map((h) => h.trim().toLowerCase()).filter(Boolean)) };
}

/** The staging recipe every offline refusal ends with. */
export const STAGE_HINT =
  "stage it on a connected machine and copy it over: benchmarks with `gym eval prepare --all --bundle benchmarks.tar` (then `gym eval prepare --from-bundle benchmarks.tar`), datasets with `gym dataset download`; a cluster-internal host can be allowed with GYM_OFFLINE_ALLOW=host";

/** A request offline mode refused; `urls` lists everything the command would have fetched. */
export class OfflineError extends GymError {
  constructor(readonly urls: string[]) {
    super(`offline mode (--offline / GYM_OFFLINE=1): gym will not reach ${urls.length === 1 ? urls[0] : `these ${urls.length} URLs:\n${urls.map((u) => `  - ${u}`).join("\n")}`}`, { code: "E_OFFLINE", exitCode: EXIT_USAGE, hint: STAGE_HINT });
    this.name = "OfflineError";
  }
}

/** Loopback names and addresses, which offline mode always allows. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h) || h === "0.0.0.0";
}

/** Whether the policy lets a request to `url` leave the process. */
export function reachable(url: string, policy: OfflinePolicy): boolean {
  if (!policy.on) return true;
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return true; // not a URL: the caller's own error says so
  }
  return isLoopbackHost(hostname) || policy.allow.has(hostname.toLowerCase());
}

/** Throw OfflineError when the policy forbids reaching `url`. */
export function assertReachable(url: string, policy: OfflinePolicy = offlinePolicy()): void {
  if (!reachable(url, policy)) throw new OfflineError([maskUrlSecrets(url)]);
}
