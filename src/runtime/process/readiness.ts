/**
 * Readiness (runtime.md §4.1 steps 8–9, D9): every server must answer any HTTP request at `/`
 * within `server_spinup_timeout_seconds`; then the upstream model endpoints (`*base_url` keys of
 * model servers) must answer within `model_endpoint_readiness_timeout_seconds` (0 skips; a host
 * that does not resolve is reported once and skipped). Probes never use a proxy (D34).
 */
import { maskUrlSecrets } from "../../util/url-secrets.ts";
import { OfflineError, offlinePolicy, reachable } from "../http/offline.ts";
import { configAccess } from "../../config/access.ts";
import type { ConfigDict } from "../../config/types.ts";
import { ConfigError, RuntimeError } from "../../errors.ts";

/** Outcome of one server probe (upstream's status names). */
export type ProbeStatus = "success" | "connection_error" | "timeout" | "unknown_error";

/** GET `url` once; any HTTP answer, whatever its status, is success. */
export async function probeServer(url: string, timeoutMs = 5000): Promise<ProbeStatus> {
  try {
    // D34 per request: `proxy: false` makes Bun's fetch ignore the proxy variables for this call only.
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual", proxy: false } as RequestInit);
    await res.body?.cancel().catch(() => {});
    return "success";
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string };
    if (e.name === "TimeoutError") return "timeout";
    if (/ECONNREFUSED|ECONNRESET|ConnectionRefused|Unable to connect|ENOTFOUND|EHOSTUNREACH|ENETUNREACH/i.test(`${e.code} ${e.message}`)) return "connection_error";
    return "unknown_error";
  }
}

/** One model endpoint to wait for: the URL and the config key it came from. */
export interface ModelEndpoint {
  url: string;
  key: string;
}

/** Every `*base_url` value (string or list) under `responses_api_models` servers, de-duplicated ignoring a trailing `/`. */
export function modelEndpoints(dict: ConfigDict, serverNames: string[]): ModelEndpoint[] {
  const out: ModelEndpoint[] = [];
  const seen = new Set<string>();
  const config = configAccess({ dict });
  for (const name of serverNames) {
    const top = dict[name] as Record<string, unknown> | undefined;
    const impls = top?.responses_api_models as Record<string, unknown> | undefined;
    if (!impls || typeof impls !== "object") continue;
    for (const impl of Object.keys(impls)) {
      const leaf = impls[impl] as Record<string, unknown> | undefined;
      if (!leaf || typeof leaf !== "object") continue;
      for (const key of Object.keys(leaf)) {
        if (!key.endsWith("base_url")) continue;
        let value: unknown;
        try {
          value = config.at([name, "responses_api_models", impl, key]);
        } catch (err) {
          // A URL that does not resolve here fails in the model server itself, with the key named.
          if (err instanceof ConfigError) continue;
          throw err;
        }
        for (const v of Array.isArray(value) ? value : [value]) {
          if (typeof v !== "string" || v.trim() === "") continue;
          const norm = v.trim().replace(/\/+$/, "");
          if (seen.has(norm)) continue;
          seen.add(norm);
          out.push({ url: v.trim(), key });
        }
      }
    }
  }
  return out;
}

/** Outcome of a model endpoint probe. */
export type EndpointStatus = "answering" | "refused" | "unresolvable";

/** Probe `<url>/models` for a `/v1` URL, else the URL: any HTTP reply or TLS error counts as answering, nothing else does. */
export async function probeModelEndpoint(url: string, timeoutMs = 5000): Promise<EndpointStatus> {
  const base = url.replace(/\/+$/, "");
  const target = base.endsWith("/v1") ? `${base}/models` : base;
  let host: string;
  try {
    host = new URL(target).hostname;
  } catch {
    return "unresolvable";
  }
  try {
    const res = await fetch(target, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual", proxy: false } as RequestInit);
    await res.body?.cancel().catch(() => {});
    return "answering";
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string };
    const text = `${e.code ?? ""} ${e.message ?? ""}`;
    if (/ENOTFOUND|EAI_AGAIN|getaddrinfo|DNS/i.test(text)) return "unresolvable";
    // A TLS failure means a server completed part of a handshake: something is listening.
    if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|HANDSHAKE/i.test(`${e.name ?? ""} ${text}`)) return "answering";
    // Anything else (refused, reset, timed out, a reply that is not HTTP, an error we do not know)
    // is not proof of a model server: keep waiting, and the timeout names the endpoint.
    return "refused";
  }
}

/** Wait for the model endpoints (step 9); throws a RuntimeError (D31: exit 1) naming every endpoint that never answered. */
export async function waitForModelEndpoints(
  endpoints: ModelEndpoint[],
  timeoutSeconds: number,
  io: { info: (line: string) => void; warn: (line: string) => void },
  opts: { pollMs?: number; probeTimeoutMs?: number } = {},
): Promise<void> {
  // Offline mode (issue 20 §3): name every model endpoint it forbids now, before any server waits on one.
  const policy = offlinePolicy();
  const refused = endpoints.filter((e) => !reachable(e.url, policy)).map((e) => `${maskUrlSecrets(e.url)} (${e.key})`);
  if (refused.length > 0) throw new OfflineError(refused);
  if (!(timeoutSeconds > 0) || endpoints.length === 0) return;
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  let waiting = endpoints;
  for (let round = 0; ; round++) {
    const results = await Promise.all(waiting.map(async (e) => ({ e, s: await probeModelEndpoint(e.url, opts.probeTimeoutMs ?? 5000) })));
    for (const r of results) {
      if (r.s === "unresolvable") io.warn(`Model endpoint ${r.e.url} (${r.e.key}) does not resolve. Waiting cannot fix a hostname, so it is not retried.`);
    }
    const before = waiting.length;
    waiting = results.filter((r) => r.s === "refused").map((r) => r.e);
    if (waiting.length === 0) {
      if (round > 0) io.info(`All model endpoints are answering after ${Math.round(elapsed())}s.`);
      return;
    }
    if (round === 0 || waiting.length !== before) {
      io.info(`Waiting for ${waiting.length} model endpoint(s) to answer: ${waiting.map((e) => `${e.url} (${e.key})`).join(", ")}`);
      if (round === 0) io.info(`If an inference server is still loading weights this is expected. Waiting up to ${timeoutSeconds}s...`);
    } else if (round % 10 === 0) io.info(`  still waiting, ${Math.round(elapsed())}s elapsed`);
    if (elapsed() >= timeoutSeconds) {
      const list = waiting.map((e) => `  - ${e.url} (from \`${e.key}\`)`).join("\n");
      // A runtime failure (D31: exit 1): the config may be right and the endpoint simply down.
      throw new RuntimeError(
        `${waiting.length} model endpoint(s) never answered within ${timeoutSeconds}s:\n${list}\nNothing accepted a connection there. Is the inference server running, and is the URL right?\n` +
          "  - Check the config key named beside each URL. Verify with `curl -i <base_url>/models` for a `/v1` endpoint, or `curl -i <base_url>` otherwise.\n" +
          "  - Any response, including 401 or 404, means something is listening.\n" +
          "  - Raise `model_endpoint_readiness_timeout_seconds` to wait longer, or set it to 0 to skip this check.",
        { code: "E_MODEL_ENDPOINT_TIMEOUT" },
      );
    }
    const remaining = timeoutSeconds - elapsed();
    await Bun.sleep(Math.max(0, Math.min(opts.pollMs ?? 3000, remaining * 1000)));
  }
}
