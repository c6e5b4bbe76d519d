/**
 * How a model failure stays recognisable behind the hops that relay it (D21). Upstream 500
 * bodies already name the failing server as `<ClassName>___<instance>` when an inner call
 * failed (runtime.md §5.2: "Hit an exception in VLLMModel___policy_model calling an inner
 * server: b'…'"), and every relaying agent nests that text inside its own body. A model server
 * also puts the same token at the start of the message of the failures it raises itself
 * (`"RuntimeError('VLLMModel___policy_model: …')"`), so the body shape stays upstream's
 * (`repr(e)`) and only the free-text message gains the server's name. The collector reads the
 * innermost token of a failed `/run` body: a model server class there types the failure `model`.
 */
import { HttpError, InnerServerError } from "../runtime/http-types.ts";

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

/** Run one model call; a failure the server raises itself is re-raised with its message naming the server. */
export async function tagModelFailure<T>(run: () => Promise<T>, className: string, instanceName: string): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw tagged(e, serverToken(className, instanceName));
  }
}

function tagged(e: unknown, token: string): unknown {
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

const TOKEN = /\b([A-Za-z_][A-Za-z0-9_]*)___([A-Za-z0-9][A-Za-z0-9._-]*)/g;

/** The innermost failing model server a body names, and whether its failure was a deadline. */
export interface FailingModelServer {
  /** `<ClassName>___<instance>`. */
  server: string;
  /** The model server raised `TimeoutError` (its call to the inference endpoint ran out of time). */
  timedOut: boolean;
}

/**
 * The model server a failed call's body names as the innermost failing hop, or undefined when
 * the innermost named server is not a model server (or none is named).
 */
export function failingModelServer(body: string): FailingModelServer | undefined {
  let last: RegExpExecArray | undefined;
  for (const m of body.matchAll(TOKEN)) last = m as RegExpExecArray;
  if (!last || !isModelServerClass(last[1]!)) return undefined;
  // `TimeoutError('<token>: …')`, its quote escaped once per relaying hop.
  const timedOut = /TimeoutError\(\\*['"]$/.test(body.slice(Math.max(0, last.index - 40), last.index));
  return { server: `${last[1]}___${last[2]}`, timedOut };
}

/** simple_agent's own error when a model server answered something that is not a Responses object (§8.2). */
export const INVALID_MODEL_RESPONSE = "Received an invalid response from model server";
