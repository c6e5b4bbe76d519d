/**
 * Calls from a model server to its inference endpoint (OpenAI, vLLM, Azure): bearer auth merged
 * over default headers, an optional concurrency cap, the shared client's deadlines and retry
 * budget (D15), and upstream's error path (a non-2xx becomes the inner-server 500 body).
 */
import { answerText, type HttpClient } from "../../runtime/http/client.ts";
import { InnerServerError } from "../../runtime/http/http-types.ts";
import { Semaphore } from "../../servers/environment.ts";
import { RuntimeError } from "../../errors.ts";

/** One endpoint answer. */
export interface EndpointAnswer {
  status: number;
  text: string;
}

/** A configured inference endpoint. */
export class Endpoint {
  private readonly sem: Semaphore | undefined;
  /** The base URL without trailing slashes (paths start with one). */
  private readonly root: string;
  constructor(
    private readonly http: HttpClient,
    readonly baseUrl: string,
    private readonly headers: Record<string, string>,
    maxConcurrent?: number | null,
  ) {
    this.sem = maxConcurrent && maxConcurrent > 0 ? new Semaphore(maxConcurrent) : undefined;
    this.root = baseUrl.replace(/\/+$/, "");
  }

  /** The same endpoint settings at another base URL (vLLM's `/tokenize` lives outside `/v1`). */
  withBase(baseUrl: string): Endpoint {
    return new Endpoint(this.http, baseUrl, this.headers);
  }

  /** POST JSON to `<base><path>` and return status and text, whatever the status. */
  async post(path: string, json: unknown, signal?: AbortSignal, query = ""): Promise<EndpointAnswer> {
    await this.sem?.acquire(null);
    try {
      // Read whole (no Response object): the answer is parsed or passed on as text.
      const a = await this.http.exchange(`${this.root}${path}${query}`, { method: "POST", json, headers: this.headers, signal, kind: "model" });
      return { status: a.status, text: answerText(a) };
    } finally {
      this.sem?.release();
    }
  }

  /** POST and parse a 2xx JSON answer; a non-2xx raises the inner-server error (500 body of §5.2). */
  async postOk(path: string, json: unknown, signal?: AbortSignal, query = ""): Promise<Record<string, unknown>> {
    const a = await this.post(path, json, signal, query);
    if (a.status < 200 || a.status >= 300) throw new InnerServerError(a.status, a.text, `${this.baseUrl}${path}`);
    try {
      return JSON.parse(a.text) as Record<string, unknown>;
    } catch {
      throw new RuntimeError(`the endpoint ${this.baseUrl}${path} answered ${a.status} with a body that is not JSON: ${a.text.slice(0, 200)}`);
    }
  }
}

/** `Authorization: Bearer <key>` merged over the configured default headers (upstream order). */
export function authHeaders(apiKey: string | undefined, defaults: Record<string, unknown> | undefined): Record<string, string> {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(defaults ?? {})) h[k] = String(v);
  if (apiKey) h.authorization = `Bearer ${apiKey}`;
  return h;
}
