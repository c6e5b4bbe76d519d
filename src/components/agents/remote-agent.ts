/**
 * responses_api_agents/remote_agent: drives a user-hosted agent service through gym's tool loop.
 * The service implements one endpoint, `POST {agent_base_url}/v1/responses`: it gets the row's
 * create params with the trajectory so far appended to `input` and answers a Responses object.
 * A `function_call` it did not answer itself (no paired `function_call_output`) is executed here
 * against the resources server, and the loop re-posts until the service gives a final message.
 * The resources server, its cookies and `verifier_metadata` never reach the service.
 * `/run` never fails with a 500: every failure becomes a reward-0 row carrying
 * `_ng_failure_class: remote_agent_error` (the failures sidecar; retried on `--resume`), marked
 * terminal when retrying cannot help (an invalid Responses object).
 */
import Type from "typebox";
import { Compile } from "typebox/compile";
import { ConfigError } from "../../errors.ts";
import { log } from "../../log.ts";
import { answerCookies, answerText, type HttpClient } from "../../runtime/http/client.ts";
import { InnerServerError, type RequestContext, type Route, type ServerApp } from "../../runtime/http/http-types.ts";
import { Semaphore } from "../../servers/environment.ts";
import { PATHS } from "../../servers/episode-protocol.ts";
import { innerJson, type InnerClient } from "../../servers/inner-client.ts";
import { NeMoGymResponse, ResponseCreateParams } from "../../servers/openai-schemas.ts";
import { pyErrorRepr, pyJsonLoads } from "../../servers/py-json.ts";
import { bodyValidator } from "../../servers/validation.ts";
import { pyJsonDumps } from "../../util/py-json.ts";
import { clientsFor, refName } from "../_support.ts";
import { addUsage, type Usage } from "./_usage.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "RemoteAgent";
/** The failure class of every remote_agent failure row. */
export const REMOTE_AGENT_FAILURE_CLASS = "remote_agent_error";
/** Connection-level tries of one remote call (refused/reset); everything else fails at once. */
const REMOTE_RETRY_BUDGET_SECONDS = 1.0;
const AGGREGATE_TIMEOUT_MS = 600_000;
/** Row keys this server produces; stale copies in an input row (a re-fed rollouts file) are dropped. */
const RESERVED = ["reward", "response", "error", "_ng_failure_class", "_ng_no_persist", "_ng_failure_terminal"];

type Obj = Record<string, unknown>;
const createParams = bodyValidator(ResponseCreateParams);
const runRow = bodyValidator(Type.Object({ responses_create_params: ResponseCreateParams }, { additionalProperties: true }));
const validResponse = Compile(NeMoGymResponse);

/** remote_agent's leaf config. */
export interface RemoteAgentConfig {
  agentBaseUrl: string;
  resourcesServer: string;
  concurrency: number;
  remoteTimeoutSeconds: number;
  runTimeoutSeconds: number;
  maxSteps: number | null;
}

/** Check `agent_base_url`: absolute http(s), no query/fragment, no credentials; trailing slash removed. */
export function normalizeRemoteUrl(url: string, instanceName: string): string {
  const bad = (why: string) => new ConfigError(`${instanceName}: agent_base_url ${why}`, { key: "agent_base_url", hint: "give the service's base URL, e.g. http://agent-host:8000 (gym appends /v1/responses); pass auth through your service's own configuration" });
  const normalized = url.trim().replace(/\/+$/, "");
  let parsed: URL;
  try {
    parsed = new URL(normalized);
  } catch {
    throw bad(`must be an absolute http:// or https:// URL, got ${JSON.stringify(url)}`);
  }
  if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || !parsed.host) throw bad(`must be an absolute http:// or https:// URL, got ${JSON.stringify(url)}`);
  // "/v1/responses" is appended as text: a query or fragment would swallow it.
  if (normalized.includes("?") || normalized.includes("#") || normalized.includes(";")) throw bad(`must not carry a query string or fragment, got ${JSON.stringify(url)}`);
  // Never echoed: credentials would land in logged configs and error messages.
  if (parsed.username || parsed.password) throw bad("must not embed credentials (user:pass@host)");
  return normalized;
}

function positive(ctx: Pick<ComponentContext, "instanceName" | "config">, key: string, fallback: number, integer: boolean): number {
  const v = ctx.config[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number" || !(v > 0) || (integer && !Number.isInteger(v))) {
    throw new ConfigError(`${ctx.instanceName}: ${key} must be a positive ${integer ? "integer" : "number"}, got ${JSON.stringify(v)}`, { key });
  }
  return v;
}

/** Read and check the leaf. */
export function remoteAgentConfig(ctx: Pick<ComponentContext, "instanceName" | "config">): RemoteAgentConfig {
  const raw = ctx.config.agent_base_url;
  if (typeof raw !== "string" || raw === "" || raw === "???") {
    throw new ConfigError(`${ctx.instanceName}: agent_base_url is not set (the base URL of your agent service)`, { key: "agent_base_url", hint: `+${ctx.instanceName}.responses_api_agents.remote_agent.agent_base_url=http://<host>:<port>` });
  }
  const max = ctx.config.max_steps;
  return {
    agentBaseUrl: normalizeRemoteUrl(raw, ctx.instanceName),
    resourcesServer: refName(ctx, "resources_server"),
    concurrency: positive(ctx, "concurrency", 32, true),
    remoteTimeoutSeconds: positive(ctx, "remote_responses_timeout_secs", 1800, false),
    runTimeoutSeconds: positive(ctx, "run_timeout_secs", 2100, false),
    maxSteps: typeof max === "number" && max > 0 ? max : null,
  };
}

/** A failure of the remote hop; `terminal` when a retry cannot fix it. The name crosses the self-call in the 500 body. */
function remoteError(message: string, terminal = false): Error {
  const e = new Error(message);
  e.name = terminal ? "RemoteAgentTerminalError" : "RemoteAgentError";
  return e;
}


/** The calls of one answer gym must execute: function_calls without a paired output (last of a duplicated call_id wins). */
export function pendingCalls(output: Obj[]): Obj[] {
  const pending = new Map<unknown, Obj>();
  const answered = new Set<unknown>();
  for (const item of output) {
    if (item.type === "function_call_output") {
      answered.add(item.call_id);
      pending.delete(item.call_id);
    } else if (item.type === "function_call" && !answered.has(item.call_id)) {
      pending.delete(item.call_id);
      pending.set(item.call_id, item);
    }
  }
  return [...pending.values()];
}

/** First few occurrences of a warning, then every 100th: per-rollout prints would drown the progress line. */
function throttled(): (key: string, message: string) => void {
  const counts = new Map<string, number>();
  return (key, message) => {
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    if (n <= 5 || n % 100 === 0) log.warn(`${message} (occurrence #${n})`);
  };
}

const EMPTY_RESPONSE: Obj = {
  id: "remote_agent_failure",
  created_at: 0.0,
  model: "remote_agent",
  object: "response",
  output: [{ type: "message", role: "assistant", status: "completed", id: "msg_0", content: [{ type: "output_text", text: "", annotations: [] }] }],
  parallel_tool_calls: false,
  tools: [],
  tool_choice: "auto",
};

/** Build the remote_agent server. */
export function remoteAgentApp(opts: { instanceName: string; config: RemoteAgentConfig; client: InnerClient; http: HttpClient }): ServerApp {
  const { config, client, http, instanceName } = opts;
  const sem = new Semaphore(config.concurrency);
  const warn = throttled();
  const remoteUrl = `${config.agentBaseUrl}/v1/responses`;

  async function postRemote(body: Obj, cookies: Record<string, string>, signal: AbortSignal | undefined): Promise<[Obj, Record<string, string>]> {
    let a;
    try {
      a = await http.exchange(remoteUrl, { method: "POST", json: body, cookies, signal, timeoutSeconds: config.remoteTimeoutSeconds, retryBudgetSeconds: REMOTE_RETRY_BUDGET_SECONDS, followRedirects: false, breaker: false });
    } catch (e) {
      const err = e as Error & { timedOut?: boolean };
      if (err.timedOut || err.name === "TimeoutError") throw remoteError(`remote /v1/responses timed out after ${config.remoteTimeoutSeconds}s (remote_responses_timeout_secs; raise it if agent calls legitimately run longer)`);
      throw remoteError(`could not reach the remote service (${err.message}). Is your service running at ${config.agentBaseUrl}?`);
    }
    const text = answerText(a);
    if (a.status < 200 || a.status >= 300) {
      const location = a.headers.find(([k]) => k === "location")?.[1];
      throw remoteError(`HTTP ${a.status}${location ? ` (redirect to ${location}; fix agent_base_url to point at the final address)` : ""}: ${text.slice(0, 500)}`);
    }
    let result: unknown;
    try {
      result = JSON.parse(text);
    } catch (e) {
      throw remoteError(`response is not valid JSON: ${(e as Error).message}`);
    }
    if (!result || typeof result !== "object" || Array.isArray(result)) throw remoteError(`expected a JSON object from /v1/responses, got ${Array.isArray(result) ? "list" : typeof result}`);
    if (!validResponse.Check(result)) {
      const first = [...validResponse.Errors(result)][0];
      throw remoteError(`remote service returned an invalid Responses API object: ${first ? `${first.instancePath || "/"} ${first.message}` : "schema mismatch"}`, true);
    }
    return [result as Obj, { ...cookies, ...answerCookies(a) }];
  }

  async function responses(ctx: RequestContext): Promise<Obj> {
    const body = createParams.parse(ctx.body);
    const input: Obj[] = typeof body.input === "string" ? [{ role: "user", content: body.input }] : [...body.input];
    const outputs: Obj[] = [];
    let usage: Usage | null = null;
    // The service's own cookies (its per-rollout state) round-trip to it and nowhere else.
    let agentCookies: Record<string, string> = {};
    let resourcesCookies: Record<string, string> = { ...ctx.cookies };
    let last: Obj = {};
    for (let step = 1; ; step++) {
      [last, agentCookies] = await postRemote({ ...body, input: [...input, ...outputs] }, agentCookies, ctx.signal);
      const output = (last.output as Obj[]) ?? [];
      outputs.push(...output);
      usage = addUsage(usage, last.usage as Usage | null | undefined);
      if (last.incomplete_details) break;
      const calls = pendingCalls(output);
      const hasMessage = output.some((o) => o.type === "message" && o.role === "assistant");
      if (calls.length === 0 && hasMessage) break;
      for (const fc of calls) {
        let args: unknown;
        try {
          args = pyJsonLoads(fc.arguments);
        } catch (e) {
          outputs.push({ type: "function_call_output", call_id: fc.call_id, output: pyJsonDumps({ error: `Invalid tool call arguments: ${pyErrorRepr(e as Error)}` }) });
          continue;
        }
        // The tool name is one path segment: a service-made name must not steer the call elsewhere.
        const tool = await client.call(config.resourcesServer, `/${encodeURIComponent(String(fc.name))}`, { json: args, cookies: resourcesCookies, signal: ctx.signal });
        // A tool error is a valid answer the service should see and react to.
        resourcesCookies = tool.cookies;
        outputs.push({ type: "function_call_output", call_id: fc.call_id, output: tool.text });
      }
      if (config.maxSteps !== null && step >= config.maxSteps) break;
    }
    // Only the resources server's cookies go on (verify needs its session); the service's stay private.
    Object.assign(ctx.responseCookies, resourcesCookies);
    return { ...last, output: outputs, usage };
  }

  // Pure: run() logs the failure that wins the race with the deadline (the loser's is noise).
  function failure(record: Obj, error: string, terminal = false): Obj {
    const out: Obj = { ...record, reward: 0.0, response: EMPTY_RESPONSE, _ng_failure_class: REMOTE_AGENT_FAILURE_CLASS, error };
    if (terminal) out._ng_failure_terminal = true;
    return out;
  }

  async function runOnce(ctx: RequestContext, row: Obj, record: Obj, signal: AbortSignal): Promise<Obj> {
    if (record.skills_ref) warn("skills_ref", "this run carries a skills_ref, but remote_agent cannot stage skills into a remote service; the skills config is ignored");
    let cookies = ctx.cookies;
    try {
      const seed = await client.call(config.resourcesServer, PATHS.seedSession, { json: record, cookies, signal });
      if (seed.status < 200 || seed.status >= 300) throw new InnerServerError(seed.status, seed.text, `${config.resourcesServer}${PATHS.seedSession}`);
      cookies = seed.cookies;
    } catch (e) {
      return failure(record, `/seed_session on the resources server failed: ${(e as Error).name}: ${(e as Error).message}`);
    }
    let response: unknown;
    try {
      const path = ctx.rolloutId ? `/ng-rollout/${ctx.rolloutId}/v1/responses` : "/v1/responses";
      const loop = await client.call(instanceName, path, { json: row.responses_create_params, cookies, signal });
      if (loop.status < 200 || loop.status >= 300) {
        // Terminal classification crosses the self-call by the exception's name in the 500 body.
        return failure(record, `agent loop failed: ${loop.text.slice(0, 500)}`, loop.text.includes("RemoteAgentTerminalError"));
      }
      response = innerJson(loop, `agent ${instanceName}`);
      cookies = loop.cookies;
    } catch (e) {
      return failure(record, `agent loop failed: ${(e as Error).name}: ${(e as Error).message}`.slice(0, 520));
    }
    if (!(response as Obj).usage) {
      warn("missing_usage", "the remote response carries no usage; token metrics for this agent will be empty. Have your service report {input_tokens, output_tokens, total_tokens, input_tokens_details: {cached_tokens}, output_tokens_details: {reasoning_tokens}}");
    }
    try {
      const verify = await client.call(config.resourcesServer, PATHS.verify, { json: { ...record, response }, cookies, signal });
      if (verify.status < 200 || verify.status >= 300) throw new InnerServerError(verify.status, verify.text, `${config.resourcesServer}${PATHS.verify}`);
      return innerJson(verify, `resources server ${config.resourcesServer}`) as Obj;
    } catch (e) {
      return failure(record, `/verify on the resources server failed: ${(e as Error).name}: ${(e as Error).message}`);
    }
  }

  async function run(ctx: RequestContext): Promise<Obj> {
    const row = runRow.parse(ctx.body);
    const record: Obj = { ...row };
    for (const k of RESERVED) delete record[k];
    await sem.acquire(null);
    // The whole-rollout bound starts after the queue wait, as upstream's does.
    const ac = new AbortController();
    const onAbort = () => ac.abort(ctx.signal?.reason);
    ctx.signal?.addEventListener("abort", onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const deadline = new Promise<Obj>((resolve) => {
        timer = setTimeout(() => {
          ac.abort(new Error("run_timeout_secs"));
          resolve(failure(record, `/run exceeded run_timeout_secs=${config.runTimeoutSeconds}s (seed + agent/tool loop + verify)`));
        }, config.runTimeoutSeconds * 1000);
      });
      const out = await Promise.race([runOnce(ctx, row, record, ac.signal).catch((e: Error) => failure(record, `unexpected error: ${e.name}: ${e.message}`)), deadline]);
      if (out._ng_failure_class === REMOTE_AGENT_FAILURE_CLASS) warn("failure", `[remote_agent] rollout failed: ${String(out.error)}`);
      return out;
    } finally {
      clearTimeout(timer);
      ctx.signal?.removeEventListener("abort", onAbort);
      sem.release();
    }
  }

  const routes: Route[] = [
    { method: "POST", path: "/v1/responses", handler: responses },
    { method: "POST", path: PATHS.run, handler: run },
    {
      method: "POST",
      path: PATHS.aggregateMetrics,
      handler: async (ctx) => {
        // Bounded: a dead resources server at the end of a run must not hang the collector.
        const res = await client.call(config.resourcesServer, PATHS.aggregateMetrics, { json: ctx.body, signal: AbortSignal.timeout(AGGREGATE_TIMEOUT_MS) });
        if (res.status < 200 || res.status >= 300) throw new InnerServerError(res.status, res.text, `${config.resourcesServer}${PATHS.aggregateMetrics}`);
        return innerJson(res, `resources server ${config.resourcesServer}`);
      },
    },
  ];
  return { className: CLASS_NAME, instanceName, routes, sessions: true, rolloutPrefix: "model" };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_agents",
  implementation: "remote_agent",
  className: CLASS_NAME,
  checkConfig: (ctx) => void remoteAgentConfig(ctx),
  async create(ctx) {
    const { inner, http } = clientsFor(ctx);
    return remoteAgentApp({ instanceName: ctx.instanceName, config: remoteAgentConfig(ctx), client: inner, http });
  },
};
