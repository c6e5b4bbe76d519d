/**
 * HTTP for the dataset hubs (Hugging Face, and GitLab's MLflow API): the runtime's client with a
 * deadline on every call and bounded retries of connect errors and 429/502/503/504 (D15), through
 * the standard proxy variables (D34: hubs are external endpoints). The bearer token goes only to
 * the hub's own origin (never to presigned storage URLs) and never into a message (D10).
 */
import { RuntimeError } from "../errors.ts";
import { HttpClient, RequestFailedError } from "../runtime/http/http-client.ts";
import type { Keys } from "./upload-keys.ts";

/** Default per-request deadline of hub calls in seconds (D15's "other" calls). */
export const HUB_TIMEOUT_SECONDS = 600;

/** Options of one hub request. */
export interface HubRequest {
  method?: string;
  json?: unknown;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Send the bearer token (default: only when the URL is on the hub's origin). */
  auth?: boolean;
}

/** A non-2xx answer from a hub. */
export class HubHttpError extends RuntimeError {
  constructor(
    message: string,
    readonly status: number,
    /** The hub's own error text (`error`, `message`, `X-Error-Message`), when it sent one. */
    readonly detail: string,
    /** MLflow's `error_code` (e.g. RESOURCE_DOES_NOT_EXIST), when present. */
    readonly errorCode: string | undefined,
    hint?: string,
  ) {
    super(message, { hint, code: "E_HUB_HTTP" });
    this.name = "HubHttpError";
  }
}

function num(v: unknown): number | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** A client for one hub: base URL, token, and the deadline/retry keys of the config. */
export class HubHttp {
  private readonly client: HttpClient;
  private readonly origin: string;

  constructor(
    /** Base URL without a trailing slash. */
    readonly baseUrl: string,
    private readonly token: string | undefined,
    /** Who answers, for messages ("Hugging Face", "GitLab"). */
    readonly service: string,
    keys?: Keys,
  ) {
    this.origin = new URL(baseUrl).origin;
    this.client = new HttpClient({
      timeoutSeconds: num(keys?.get("request_timeout_seconds")) ?? HUB_TIMEOUT_SECONDS,
      retryBudgetSeconds: num(keys?.get("request_retry_budget_seconds")) ?? 120,
      limits: { limit: 16, limitPerHost: 8 },
      debug: false,
    });
  }

  /** An absolute URL for a path under the base URL (absolute URLs pass through). */
  url(pathOrUrl: string): string {
    return /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${this.baseUrl}${pathOrUrl.startsWith("/") ? "" : "/"}${pathOrUrl}`;
  }

  /** How a URL is shown in messages: query strings of foreign (presigned) URLs are dropped. */
  display(url: string): string {
    const u = new URL(url);
    return u.origin === this.origin ? url : `${u.origin}${u.pathname}`;
  }

  /** Send a request; any non-2xx answer becomes a HubHttpError naming the URL, status and the hub's message. */
  async request(pathOrUrl: string, req: HubRequest = {}): Promise<Response> {
    const res = await this.send(pathOrUrl, req);
    if (res.ok) return res;
    throw await this.errorOf(res, req.method ?? (req.json === undefined && req.body === undefined ? "GET" : "POST"), this.url(pathOrUrl));
  }

  /** Send a request and return the response whatever its status (callers that tolerate some codes). */
  async send(pathOrUrl: string, req: HubRequest = {}): Promise<Response> {
    const url = this.url(pathOrUrl);
    const method = req.method ?? (req.json === undefined && req.body === undefined ? "GET" : "POST");
    const headers: Record<string, string> = { ...req.headers };
    const auth = req.auth ?? new URL(url).origin === this.origin;
    if (auth && this.token) headers.authorization = `Bearer ${this.token}`;
    try {
      return await this.client.request(url, { method, json: req.json, body: req.body, headers, kind: "other" });
    } catch (e) {
      if (e instanceof RequestFailedError) {
        throw new RuntimeError(`${this.service}: ${e.message.replace(url, this.display(url))}`, {
          code: "E_HUB_UNREACHABLE",
          hint: e.timedOut ? "the hub did not answer in time; raise +request_timeout_seconds=N (0 disables) or retry later" : `check that ${this.origin} is reachable (and the proxy variables, if you need a proxy)`,
          cause: e,
        });
      }
      throw e;
    }
  }

  /** GET/POST and parse a JSON answer. */
  async json<T>(pathOrUrl: string, req: HubRequest = {}): Promise<T> {
    const res = await this.request(pathOrUrl, req);
    const text = await res.text();
    try {
      return (text === "" ? {} : JSON.parse(text)) as T;
    } catch {
      throw new RuntimeError(`${this.service}: ${this.display(this.url(pathOrUrl))} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
  }

  /** The HubHttpError for a non-2xx response (consumes its body). */
  async errorOf(res: Response, method: string, url: string): Promise<HubHttpError> {
    const text = await res.text().catch(() => "");
    let detail = res.headers.get("x-error-message") ?? "";
    let errorCode: string | undefined;
    try {
      const body = JSON.parse(text) as Record<string, unknown>;
      if (typeof body.error_code === "string") errorCode = body.error_code;
      const msg = body.error ?? body.message;
      if (!detail && msg !== undefined) detail = typeof msg === "string" ? msg : JSON.stringify(msg);
    } catch {
      if (!detail) detail = text.trim().slice(0, 300);
    }
    const hint =
      res.status === 401
        ? `the ${this.service} token was refused: check it (it is never printed)`
        : res.status === 403
          ? `the ${this.service} token has no permission for this; ask for write access or use a token that has it`
          : res.status >= 500
            ? `${this.service} failed on its side; retry later`
            : undefined;
    const shown = this.display(url);
    return new HubHttpError(`${this.service}: ${method} ${shown} → HTTP ${res.status}${detail ? `: ${detail}` : ""}`, res.status, detail, errorCode, hint);
  }
}
