/**
 * Where a failure came from, kept recognisable behind the hops that relay it (D21). Upstream
 * 500 bodies already name the failing server as `<ClassName>___<instance>` when an inner call
 * failed (runtime.md §5.2: "Hit an exception in VLLMModel___policy_model calling an inner
 * server: b'…'"), and every relaying agent nests that text inside its own body. Model servers
 * (every call) and resources servers (`/verify`) also put the same token at the start of the
 * message of the failures they raise themselves (`"RuntimeError('VLLMModel___policy_model: …')"`),
 * so the body shape stays upstream's (`repr(e)`) and only the free-text message gains the
 * server's name. The collector reads the innermost token of a failed `/run` body
 * (rollout/record.ts): a model server there types the failure `model`, a resources server's own
 * `/verify` failure `verifier`.
 */
import { HttpError, InnerServerError } from "../runtime/http/http-types.ts";

/** `<ClassName>___<instance>`, the server identity upstream writes into 500 bodies. */
export function serverToken(className: string, instanceName: string): string {
  return `${className}___${instanceName}`;
}

/**
 * Class names of model servers: gym's built-ins and upstream's `responses_api_models` all end in
 * `Model` or `ModelServer` (`VLLMModel`, `SimpleModelServer`, `AzureOpenAIModelServer`, …); agents
 * (`SimpleAgent`) and resources servers (`…ResourcesServer`) do not.
 */
export function isModelServerClass(className: string): boolean {
  return /(?:Model|ModelServer)$/.test(className);
}

/** Class names of resources servers (`SimpleWeatherResourcesServer`, …). */
export function isResourcesServerClass(className: string): boolean {
  return /ResourcesServer$/.test(className);
}

/** Run a call; a failure the server raises itself is re-raised with its message naming the server. */
export async function tagServerFailure<T>(run: () => Promise<T>, className: string, instanceName: string): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw nameFailure(e, className, instanceName);
  }
}

/** The error to raise for a failure of this server: its message (or string detail) starts with the server's token. */
export function nameFailure(e: unknown, className: string, instanceName: string): unknown {
  const token = serverToken(className, instanceName);
  // The runtime already renders inner-server failures as "Hit an exception in <token> …".
  if (e instanceof InnerServerError) return e;
  if (e instanceof HttpError) {
    // 422 bodies are FastAPI's validation list (the caller's fault); string details name the server.
    if (e.status === 422 || typeof e.detail !== "string" || e.detail.startsWith(token)) return e;
    return new HttpError(e.status, `${token}: ${e.detail}`);
  }
  if (e instanceof Error && !e.message.startsWith(token)) e.message = `${token}: ${e.message}`;
  return e;
}

/** The innermost server a failed call's body names. */
export interface FailureOrigin {
  /** `<ClassName>___<instance>`. */
  server: string;
  /** What kind of server the class name says it is. */
  kind: "model" | "resources" | "other";
  /** The server raised the failure itself (a tagged message), rather than relaying an inner call's. */
  own: boolean;
  /** The failure is a `TimeoutError` (a deadline ran out inside that server). */
  timedOut: boolean;
}

const TOKEN = /\b([A-Za-z_][A-Za-z0-9_]*)___([A-Za-z0-9][A-Za-z0-9._-]*)/g;

/** The innermost server a failed call's body names (undefined when it names none). */
export function failureOrigin(body: string): FailureOrigin | undefined {
  let last: RegExpExecArray | undefined;
  for (const m of body.matchAll(TOKEN)) last = m as RegExpExecArray;
  if (!last) return undefined;
  const cls = last[1]!;
  const before = body.slice(Math.max(0, last.index - 40), last.index);
  return {
    server: `${cls}___${last[2]}`,
    kind: isModelServerClass(cls) ? "model" : isResourcesServerClass(cls) ? "resources" : "other",
    own: !before.endsWith("Hit an exception in "),
    // `TimeoutError('<token>: …')`, its quote escaped once per relaying hop.
    timedOut: /TimeoutError\(\\*['"]$/.test(before),
  };
}

/** simple_agent's own error when a model server answered something that is not a Responses object (§8.2). */
export const INVALID_MODEL_RESPONSE = "Received an invalid response from model server";
