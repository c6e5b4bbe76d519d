/**
 * The contract of one experiment-tracking backend, and the helpers both backends share:
 * rollout sanitising (components §5), config flattening, and a deadline on every call.
 */
import { RuntimeError } from "../errors.ts";
import { HttpClient } from "../runtime/http/http-client.ts";

/** An open tracking run. Every method may throw; the caller turns errors into warnings. */
export interface Exporter {
  name: string;
  logMetrics(flat: Record<string, unknown>): Promise<void>;
  /** Each item is one rollout as a JSON line. */
  logRollouts(rows: string[]): Promise<void>;
  close(): Promise<void>;
}

/** Reads a resolved top-level config key (undefined when absent or unresolvable). */
export type ConfigGetter = (key: string) => unknown;

/** Opens a backend, or returns undefined when its keys are not all set (silently skipped). */
export type ExporterFactory = (get: ConfigGetter, dict: Record<string, unknown>) => Promise<Exporter | undefined>;

/** Deadline of each tracker call (D15: external calls get a deadline too). */
export const TRACKER_TIMEOUT_MS = 60_000;

/** A configured string value, treating `****` (a masked secret) and empty as unset. */
export function setting(get: ConfigGetter, key: string): string | undefined {
  const v = get(key);
  if (v === undefined || v === null) return undefined;
  const s = String(v);
  return s === "" || s === "****" ? undefined : s;
}

/** Drop `ng_trajectory` and model-call capture payloads before a rollout leaves the machine. */
export function sanitizeRollout(record: Record<string, unknown>): Record<string, unknown> {
  const out = { ...record };
  delete out.ng_trajectory;
  const cap = out.ng_model_call_capture as Record<string, unknown> | undefined;
  if (cap && typeof cap === "object") {
    const { calls: _calls, ...rest } = cap;
    out.ng_model_call_capture = rest;
  }
  return out;
}

/** Flatten a config into `a.b[0].c` keys with scalar values. */
export function flattenParams(value: unknown, prefix = "", out: Record<string, string> = {}): Record<string, string> {
  if (Array.isArray(value)) value.forEach((v, i) => flattenParams(v, `${prefix}[${i}]`, out));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) flattenParams(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out[prefix] = value === null || value === undefined ? "None" : String(value);
  return out;
}

/** Trackers are control-plane calls: the runtime's one client (D15 deadline and retries, proxy variables honoured). */
const trackerClient = new HttpClient({ timeoutSeconds: TRACKER_TIMEOUT_MS / 1000, retryBudgetSeconds: 30, limits: { limit: 16, limitPerHost: 8 }, debug: false });

/** One tracker request: body and headers as given. */
export interface TrackerCall {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Non-2xx statuses the caller handles itself (e.g. 404 for "not there yet"). */
  okStatuses?: number[];
}

/** Error code of a tracker (W&B, MLflow) that answered a call with an error status. */
export const E_TRACKER = "E_TRACKER";

/** A tracker call with the D15 deadline and retries; a non-2xx is a RuntimeError (E_TRACKER) with the status and the start of the body. */
export async function call(url: string, init: TrackerCall = {}): Promise<Response> {
  const res = await trackerClient.request(url, { method: init.method ?? "GET", headers: init.headers, body: init.body, kind: "other" });
  if (!res.ok && !(init.okStatuses ?? []).includes(res.status)) {
    const text = await res.text().catch(() => "");
    throw new RuntimeError(`${init.method ?? "GET"} ${url} → ${res.status} ${text.slice(0, 300)}`, {
      code: E_TRACKER,
      hint: res.status === 401 || res.status === 403 ? "check the tracker's API key / token (wandb_api_key, mlflow_tracking_token)" : "check the tracker's URL (wandb_base_url, mlflow_tracking_uri) and that the service is up",
    });
  }
  return res;
}
