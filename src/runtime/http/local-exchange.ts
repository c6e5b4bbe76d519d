/**
 * The client side of an in-process call (local-dispatch.ts): the request is built as HttpClient
 * would put it on the wire (compact JSON body, content-type, the `cookie` header in the caller's
 * order, host, content-length) and gets the same deadline (D15: the kind's default or
 * request_timeout_seconds) and the same retries of 429/502/503/504 inside the budget. What only a
 * network can do (connect errors, the breaker, the liveness probe) has no counterpart here.
 */
import { callKindOf, DEFAULT_TIMEOUTS, RequestFailedError, type ClientPolicy, type HttpAnswer, type RequestOptions } from "./http-client.ts";
import type { LocalHandler } from "./local-dispatch.ts";
import { backoffMs, logRetry, RETRY_STATUSES, retryAfterMs, sleep } from "./retry-policy.ts";

const NEVER = new AbortController().signal;

/** Send one request to a local server entry; the answer carries its body as `text` (no bytes). */
export async function localExchange(local: LocalHandler, baseUrl: string, target: string, opts: RequestOptions, policy: ClientPolicy): Promise<HttpAnswer> {
  const started = performance.now();
  const url = baseUrl + target;
  const headers: Record<string, string> = { host: baseUrl.slice(baseUrl.indexOf("//") + 2) };
  if (opts.headers) for (const k in opts.headers) headers[k.toLowerCase()] = opts.headers[k]!;
  let body = typeof opts.body === "string" ? opts.body : opts.body === undefined ? undefined : Buffer.from(opts.body.buffer, opts.body.byteOffset, opts.body.byteLength).toString("utf8");
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers["content-type"] ??= "application/json";
  }
  if (opts.cookies) {
    let cookie = "";
    for (const k in opts.cookies) cookie += `${cookie === "" ? "" : "; "}${k}=${opts.cookies[k]}`;
    if (cookie !== "") headers.cookie = cookie;
  }
  const method = opts.method ?? (body === undefined ? "GET" : "POST");
  if (body !== undefined || (method !== "GET" && method !== "HEAD")) headers["content-length"] = String(body === undefined ? 0 : Buffer.byteLength(body));
  const kind = opts.kind ?? callKindOf(target);
  const timeoutS = opts.timeoutSeconds ?? policy.timeoutSeconds ?? DEFAULT_TIMEOUTS[kind];
  const budgetS = opts.retryBudgetSeconds ?? policy.retryBudgetSeconds;
  const outer = opts.signal;
  const elapsed = () => (performance.now() - started) / 1000;

  for (let attempt = 0; ; attempt++) {
    if (opts.stats) opts.stats.attempts = attempt + 1;
    if (outer?.aborted) throw outer.reason;
    let answer: HttpAnswer;
    if (timeoutS <= 0) {
      const a = await local({ method, target, headers, body, signal: outer ?? NEVER });
      answer = { status: a.status, statusText: a.statusText, headers: a.headers, body: EMPTY, text: a.text };
    } else {
      // The deadline aborts the handler's own calls (its request signal), as a closed socket would.
      const ac = new AbortController();
      const onOuter = () => ac.abort(outer!.reason);
      outer?.addEventListener("abort", onOuter, { once: true });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        ac.abort(new DOMException("The operation timed out.", "TimeoutError"));
      }, timeoutS * 1000);
      const { promise: aborted, reject } = Promise.withResolvers<never>();
      ac.signal.addEventListener("abort", () => reject(ac.signal.reason), { once: true });
      try {
        const a = await Promise.race([local({ method, target, headers, body, signal: ac.signal }), aborted]);
        answer = { status: a.status, statusText: a.statusText, headers: a.headers, body: EMPTY, text: a.text };
      } catch (err) {
        if (timedOut) throw new RequestFailedError(`${method} ${url} timed out after ${timeoutS}s (request_timeout_seconds); elapsed ${elapsed().toFixed(1)}s`, url, elapsed(), true, { cause: err, kind: "timeout", attempts: attempt + 1 });
        if (outer?.aborted) throw outer.reason ?? err;
        throw err;
      } finally {
        clearTimeout(timer);
        outer?.removeEventListener("abort", onOuter);
        aborted.catch(() => {});
      }
    }
    if (!RETRY_STATUSES.has(answer.status)) return answer;
    let asked: number | undefined;
    for (const [k, v] of answer.headers) if (k === "retry-after") asked = retryAfterMs(v);
    const delay = asked ?? backoffMs(attempt);
    if (elapsed() + delay / 1000 > budgetS) return answer;
    const after = asked === undefined ? "" : ` retry_after_s=${(asked / 1000).toFixed(1)}`;
    // HttpClient's two retry line shapes: model calls and everything else.
    if (kind === "model") logRetry(`[model_retry url=${url} status=${answer.status} kind=${answer.status === 429 ? "rate_limit" : "server_error"} try=${attempt + 1} elapsed_s=${elapsed().toFixed(1)}${after} error_msg=HTTP ${answer.status}]`);
    else logRetry(`[request_retry url=${url} error=HTTP ${answer.status} retry=${attempt + 1} elapsed_s=${elapsed().toFixed(1)}${after}]`);
    await sleep(delay, outer);
  }
}

const EMPTY = new Uint8Array(0);
