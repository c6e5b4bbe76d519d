/**
 * The shared outbound client, one per process (D15–D17, D34): import from here. `HttpClient`
 * sends with deadlines, bounded retries and limits; `ServerClient` addresses gym servers by name;
 * `setupServerClient` serves out-of-process callers through the head server.
 */
import type { ConfigDict } from "../../config/types.ts";
import { ServerClient } from "./server-client.ts";

export {
  answerCookies,
  answerText,
  callKindOf,
  clientPolicyFromConfig,
  DEFAULT_RETRY_BUDGET_SECONDS,
  DEFAULT_TIMEOUTS,
  HttpClient,
  raiseForStatus,
  RequestFailedError,
  responseCookies,
  type CallKind,
  type ClientPolicy,
  type HttpAnswer,
  type RequestOptions,
} from "./http-client.ts";
export { headAddress, parseHeadConfigBody, ServerClient, serverAddress, setupServerClient, type ServerAddress } from "./server-client.ts";
export { bunMaxHttpRequests, poolLimits, type PoolLimits } from "./pool.ts";
export { currentRolloutId, rolloutIdFromBody, withRolloutId } from "./rollout-context.ts";

let processClient: ServerClient | undefined;

/** The process-wide ServerClient (one pool per process), built on first use from the config. */
export function processServerClient(config: ConfigDict, opts: { workers?: number; serverName?: string } = {}): ServerClient {
  processClient ??= new ServerClient(config, opts);
  return processClient;
}
