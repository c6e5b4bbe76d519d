/**
 * The agent server kind with upstream simple_agent's behaviour (runtime.md §8): `/run` (seed →
 * own `/v1/responses` → verify; that self-call is served in process when this server is the
 * target, runtime/http/local-dispatch.ts), the `/v1/responses` tool loop with the cookie
 * hand-off rules of §6.2, `/aggregate_metrics`, and the agent-session endpoints that native
 * environment servers use to hand over direct-HTTP tool access (§10.4).
 */
import Type from "typebox";
import { log } from "../log.ts";
import { HttpError, InnerServerError, RawJson, RequestValidationError, type RequestContext, type Route, type ServerApp } from "../runtime/http/http-types.ts";
import { AgentSessionClose, AgentSessionCreate, PATHS, type ToolAccess } from "./episode-protocol.ts";
import { innerJson, type InnerClient, type InnerResponse } from "./inner-client.ts";
import { NeMoGymResponse, ResponseCreateParams } from "./openai-schemas.ts";
import { pyJsonDumps } from "../util/py-json.ts";
import { pyErrorRepr, pyJsonLoads } from "./py-json.ts";
import { pyError } from "./py-error.ts";
import { bodyValidator } from "./validation.ts";
import { Compile } from "typebox/compile";
import { ConfigError } from "../errors.ts";
import { rolloutIdFromBody } from "../runtime/http/rollout-context.ts";

type Obj = Record<string, unknown>;

/** simple_agent's config (leaf keys, §8). */
export interface AgentConfig {
  /** Absent when a native environment server hands tool access over per session. */
  resourcesServer: string | undefined;
  modelServer: string;
  /** null = unlimited. */
  maxSteps: number | null;
  skipVerification: boolean;
  skipVerificationReward: number;
  /** This agent's rollouts take part in training-token capture (`token_id_capture.enabled` and `all_agents` or the leaf's `token_id_capture`). */
  tokenCapture?: boolean;
}

/** Read the agent leaf config (`resources_server`/`model_server` refs, limits). */
export function agentConfigFromLeaf(leaf: Obj, instanceName: string): AgentConfig {
  const ref = (key: string, optional = false): string | undefined => {
    const v = leaf[key] as { name?: unknown } | undefined;
    if (optional && (v === undefined || v === null)) return undefined;
    if (!v || typeof v.name !== "string" || v.name === "" || v.name === "???") {
      throw new ConfigError(`${instanceName}: ${key}.name is not set`, { key: `${key}.name`, hint: `point it at a ${key === "model_server" ? "responses_api_models" : "resources_servers"} instance` });
    }
    return v.name;
  };
  const max = leaf.max_steps;
  return {
    resourcesServer: ref("resources_server", true),
    modelServer: ref("model_server")!,
    maxSteps: typeof max === "number" && max > 0 ? max : null,
    skipVerification: leaf.skip_verification === true,
    skipVerificationReward: typeof leaf.skip_verification_reward === "number" ? leaf.skip_verification_reward : 0.0,
  };
}

/**
 * The path of a `/run`'s call to its own `/v1/responses` (upstream `url_path_for_run`): prefixed with
 * the rollout id, plus `/training-token-capture` when this agent takes part in token capture (then
 * the id is derived from the row when no prefix or header carried one).
 */
export function runResponsesPath(ctx: RequestContext, row: Obj, config: Pick<AgentConfig, "tokenCapture">): string {
  const rolloutId = ctx.rolloutId ?? (config.tokenCapture ? rolloutIdFromBody(row) : undefined);
  return rolloutId ? `/ng-rollout/${rolloutId}${config.tokenCapture ? "/training-token-capture" : ""}/v1/responses` : "/v1/responses";
}

const createParams = bodyValidator(ResponseCreateParams);
const runRow = bodyValidator(Type.Object({ responses_create_params: ResponseCreateParams }, { additionalProperties: true }));
const sessionCreate = bodyValidator(AgentSessionCreate);
const sessionClose = bodyValidator(AgentSessionClose);
const validResponse = Compile(NeMoGymResponse);

/** Raise upstream-style when an inner server answered non-2xx (§5.2 turns it into the 500 body). */
function raiseForStatus(res: InnerResponse, url: string): void {
  if (res.status < 200 || res.status >= 300) throw new InnerServerError(res.status, res.text, url);
}

interface Usage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number | null };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number | null };
  total_tokens: number;
}

function addUsage(acc: Usage | null, u: Usage | null | undefined): Usage | null {
  if (!u) return acc;
  // Never mutated (each sum is a new object), so the first usage needs no copy.
  if (!acc) return u;
  const plus = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b);
  return {
    input_tokens: acc.input_tokens + u.input_tokens,
    input_tokens_details: { cached_tokens: plus(acc.input_tokens_details.cached_tokens, u.input_tokens_details?.cached_tokens ?? null) },
    output_tokens: acc.output_tokens + u.output_tokens,
    output_tokens_details: { reasoning_tokens: plus(acc.output_tokens_details.reasoning_tokens, u.output_tokens_details?.reasoning_tokens ?? null) },
    total_tokens: acc.total_tokens + u.total_tokens,
  };
}

/** An agent session opened by a native environment server. */
interface AgentSession {
  id: string;
  episodeKey: string;
  toolAccess: Extract<ToolAccess, { kind?: "direct_http" }> | undefined;
  resourcesCookies: Record<string, string>;
  trajectory: Obj[];
  closed: boolean;
  receipt?: Obj;
}

/** How long a closed session (and its receipt, for retried closes) is kept (upstream `session_close_retry_window_seconds` default). */
const CLOSE_RETRY_WINDOW_MS = 300_000;

/**
 * The `/verify` body `{...row, response}`. The response is this server's own `/v1/responses`
 * answer, compact JSON as JSON.stringify wrote it, so its text is spliced in as is: the same bytes
 * as parsing and serialising it again, without doing either. A row that already has a `response`
 * key (a spread replaces it in place) takes the general path.
 */
function verifyBody(row: Obj, resp: InnerResponse): { rawJson: string } | { json: Obj } {
  if (Object.hasOwn(row, "response")) return { json: { ...row, response: innerJson(resp, "this agent's /v1/responses") } };
  const head = JSON.stringify(row);
  return { rawJson: head === "{}" ? `{"response":${resp.text}}` : `${head.slice(0, -1)},"response":${resp.text}}` };
}

/** Build a simple_agent server. */
export function simpleAgentApp(opts: { className: string; instanceName: string; config: AgentConfig; client: InnerClient; closeRetryWindowMs?: number }): ServerApp {
  const { config, client, instanceName } = opts;
  const closeWindowMs = opts.closeRetryWindowMs ?? CLOSE_RETRY_WINDOW_MS;
  const byCookie = new Map<string, AgentSession>();
  // Closed sessions in closing order: each is forgotten closeWindowMs after its close, so a
  // server that runs millions of episodes keeps only the last window's (one timer, not one per session).
  const closedOrder: { key: string; at: number }[] = [];
  let closedHead = 0;
  let sweeper: ReturnType<typeof setInterval> | undefined;
  const forgetClosed = () => {
    const cutoff = performance.now() - closeWindowMs;
    while (closedHead < closedOrder.length && closedOrder[closedHead]!.at <= cutoff) {
      const { key } = closedOrder[closedHead++]!;
      if (byCookie.get(key)?.closed) byCookie.delete(key);
    }
    if (closedHead > 1024 && closedHead * 2 > closedOrder.length) {
      closedOrder.splice(0, closedHead);
      closedHead = 0;
    }
    if (closedHead === closedOrder.length && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  const resourcesServer = (): string => {
    if (config.resourcesServer === undefined) throw new HttpError(400, `${instanceName} has no resources_server configured and no agent session granted tool access; set resources_server: {type: resources_servers, name: …}`);
    return config.resourcesServer;
  };

  async function responses(ctx: RequestContext): Promise<Obj> {
    const body = createParams.parse(ctx.body);
    const input: Obj[] = typeof body.input === "string" ? [{ role: "user", content: body.input }] : [...body.input];
    const session = byCookie.get(ctx.sessionId);
    if (session?.closed) throw new HttpError(409, `agent session ${session.id} is closed`);
    const access = session?.toolAccess;
    let resourcesCookies: Record<string, string> = access ? { ...session!.resourcesCookies } : { ...ctx.cookies };
    let modelCookies: Record<string, string> = {};
    const newOutputs: Obj[] = [];
    let usage: Usage | null = null;
    let last: Obj | undefined;
    for (let step = 1; ; step++) {
      const modelPath = ctx.rolloutId ? `/ng-rollout/${ctx.rolloutId}${ctx.trainingTokenCapture ? "/training-token-capture" : ""}/v1/responses` : "/v1/responses";
      const res = await client.call(config.modelServer, modelPath, { json: { ...body, input: [...input, ...newOutputs] }, cookies: modelCookies, signal: ctx.signal });
      raiseForStatus(res, `${config.modelServer}${modelPath}`);
      modelCookies = res.cookies;
      const json = innerJson(res, `model server ${config.modelServer}`);
      if (!validResponse.Check(json)) throw pyError("RuntimeError", `Received an invalid response from model server: ${res.text}`);
      last = json as Obj;
      const output = (last.output as Obj[]) ?? [];
      newOutputs.push(...output);
      usage = addUsage(usage, last.usage as Usage | null | undefined);
      if (last.incomplete_details) break;

      const calls = output.filter((o) => o.type === "function_call");
      for (const fc of calls) {
        let args: unknown;
        try {
          args = pyJsonLoads(fc.arguments);
        } catch (e) {
          newOutputs.push({ type: "function_call_output", call_id: fc.call_id, output: pyJsonDumps({ error: `Invalid tool call arguments: ${pyErrorRepr(e as Error)}` }) });
          continue;
        }
        // The tool name is one path segment: a model-made name must not steer the call elsewhere.
        const segment = encodeURIComponent(String(fc.name));
        const tool = await (access
          ? client.callUrl(`${access.base_url.replace(/\/+$/, "")}/${segment}`, { json: args, cookies: resourcesCookies, headers: access.headers ?? {}, signal: ctx.signal })
          : client.call(resourcesServer(), `/${segment}`, { json: args, cookies: resourcesCookies, signal: ctx.signal }));
        // The body goes to the model whatever the status: an error is a valid tool answer (§8.2).
        resourcesCookies = tool.cookies;
        newOutputs.push({ type: "function_call_output", call_id: fc.call_id, output: tool.text });
      }
      const hasMessage = output.some((o) => o.type === "message" && (o.role ?? "assistant") === "assistant");
      if (calls.length === 0 && hasMessage) break;
      if (config.maxSteps !== null && step >= config.maxSteps) break;
    }
    if (session) {
      session.resourcesCookies = resourcesCookies;
      session.trajectory.push(...newOutputs);
    }
    Object.assign(ctx.responseCookies, resourcesCookies, modelCookies);
    return { ...last!, output: newOutputs, usage };
  }

  async function run(ctx: RequestContext): Promise<Obj | RawJson> {
    const row = runRow.parse(ctx.body);
    const res = resourcesServer();
    const seed = await client.call(res, PATHS.seedSession, { json: row, cookies: ctx.cookies, signal: ctx.signal });
    raiseForStatus(seed, `${res}${PATHS.seedSession}`);
    const path = runResponsesPath(ctx, row, config);
    const resp = await client.call(instanceName, path, { json: row.responses_create_params, cookies: seed.cookies, signal: ctx.signal });
    raiseForStatus(resp, `${instanceName}${path}`);
    if (config.skipVerification) return { ...row, response: innerJson(resp, `agent ${instanceName}`), reward: config.skipVerificationReward, verification_skipped: true };
    const verify = await client.call(res, PATHS.verify, { ...verifyBody(row, resp), cookies: resp.cookies, signal: ctx.signal });
    raiseForStatus(verify, `${res}${PATHS.verify}`);
    // Checked to be JSON (a clear error otherwise), then echoed as received: no second serialisation.
    innerJson(verify, `resources server ${res}`);
    return new RawJson(verify.text);
  }

  const routes: Route[] = [
    { method: "POST", path: "/v1/responses", handler: responses },
    { method: "POST", path: PATHS.run, handler: run },
    {
      method: "POST",
      path: PATHS.aggregateMetrics,
      handler: async (ctx) => {
        if (config.skipVerification) {
          log.warn(`(${instanceName}) RuntimeWarning: skip_verification is on; /aggregate_metrics returns empty metrics`);
          return { group_level_metrics: [], agent_metrics: {}, key_metrics: {} };
        }
        const rs = resourcesServer();
        const res = await client.call(rs, PATHS.aggregateMetrics, { json: ctx.body, signal: ctx.signal });
        raiseForStatus(res, `${rs}${PATHS.aggregateMetrics}`);
        return innerJson(res, `resources server ${rs}`);
      },
    },
    {
      method: "POST",
      path: PATHS.agentSessions,
      handler: (ctx) => {
        const req = sessionCreate.parse(ctx.body) as unknown as AgentSessionCreate;
        const episodeKey = JSON.stringify([req.episode_id, req.task_id]);
        const bound = byCookie.get(ctx.sessionId);
        if (bound && (bound.id !== req.agent_session_id || bound.episodeKey !== episodeKey)) {
          throw new HttpError(409, `this agent session cookie is bound to agent_session_id ${bound.id}`);
        }
        const accesses = req.tool_accesses ?? [];
        if (new Set(accesses.map((a) => a.name)).size !== accesses.length) throw new RequestValidationError([{ type: "value_error", loc: ["body", "tool_accesses"], msg: "Value error, tool access names must be unique within an agent session", input: accesses }]);
        const access = accesses.find((a): a is Extract<ToolAccess, { kind?: "direct_http" }> => a.kind === undefined || a.kind === "direct_http");
        const mcp = accesses.find((a) => a.kind === "mcp" && a.required);
        if (mcp) throw new HttpError(422, `simple_agent cannot use the required MCP tool access ${mcp.name}; use resources_tool_transports: [direct_http]`);
        byCookie.set(ctx.sessionId, bound ?? { id: req.agent_session_id, episodeKey, toolAccess: access, resourcesCookies: { ...(access?.cookies ?? {}) }, trajectory: [], closed: false });
        return { agent_session_id: req.agent_session_id };
      },
    },
    {
      method: "POST",
      path: PATHS.agentSessionsClose,
      handler: (ctx) => {
        const req = sessionClose.parse(ctx.body) as unknown as AgentSessionClose;
        const s = byCookie.get(ctx.sessionId);
        if (!s || s.id !== req.agent_session_id) throw new HttpError(409, `agent_session_id ${req.agent_session_id} is not the session bound to this cookie`);
        // A retried close (the first answer may have been lost) gets the same receipt.
        if (s.receipt) return s.receipt;
        s.receipt = { agent_session_id: s.id, agent_observations: null, resources_cookies: s.resourcesCookies, agent_trajectory: s.trajectory };
        s.closed = true;
        s.toolAccess = undefined;
        // A retried close within upstream's window gets the same receipt (and a reuse of the cookie a
        // 409); after it the session is forgotten.
        closedOrder.push({ key: ctx.sessionId, at: performance.now() });
        if (!sweeper) {
          sweeper = setInterval(forgetClosed, Math.min(closeWindowMs, 30_000));
          sweeper.unref();
        }
        return s.receipt;
      },
    },
  ];
  return { className: opts.className, instanceName, routes, sessions: true, rolloutPrefix: "model" };
}
