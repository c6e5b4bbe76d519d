/**
 * single_agent_turn (runtime.md §10.4): seed the resources session, open an agent session
 * with direct-HTTP tool access, run one `/v1/responses` turn (optionally under
 * `agent_timeout_seconds`), close the agent, verify with the flat body, close the resources
 * session. Dependency failures become typed failures, retryable or terminal.
 */
import { Compile } from "typebox/compile";
import type { RequestContext, Route, ServerApp } from "../runtime/http/http-types.ts";
import { captureKey, failure, PATHS, type EpisodeRequest, type FailureStage } from "./episode-protocol.ts";
import { Cleanup, EpisodeFailed, episodeHandler, type EpisodeLimits } from "./environment.ts";
import { type InnerClient, type InnerResponse } from "./inner-client.ts";
import { NeMoGymResponse } from "./openai-schemas.ts";
import { hex32 } from "./ids.ts";
import { RuntimeError } from "../errors.ts";

type Obj = Record<string, unknown>;

/** single_agent_turn's config. */
export interface SingleTurnConfig {
  resourcesServer: string;
  agentServer: string;
  transports: ("direct_http" | "mcp")[];
  /** Send the agent turn to `…/training-token-capture/v1/responses` (the `token_id_capture` block, §14). */
  tokenCapture: boolean;
  limits: EpisodeLimits;
}

const validResponse = Compile(NeMoGymResponse);

/** HTTP statuses a collector may retry (408, 425, 429, 5xx). */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

function isTransportError(e: unknown): boolean {
  const name = (e as Error)?.name ?? "";
  const code = (e as { code?: string })?.code ?? "";
  return name === "TimeoutError" || name === "AbortError" || name === "ClientConnectorError" || /ECONN|ETIMEDOUT|ConnectionRefused|ConnectionClosed|FailedToOpenSocket|EPIPE|socket/i.test(`${code} ${(e as Error)?.message ?? ""}`);
}

async function step(stage: FailureStage, what: string, fn: () => Promise<InnerResponse>): Promise<InnerResponse> {
  let res: InnerResponse;
  try {
    res = await fn();
  } catch (e) {
    throw new EpisodeFailed(failure(`${what} failed: ${(e as Error).message}`, !isTransportError(e), { stage }));
  }
  if (res.status < 200 || res.status >= 300) {
    throw new EpisodeFailed(failure(`${what} answered ${res.status}: ${res.text.slice(0, 1500)}`, !retryableStatus(res.status), { stage }));
  }
  return res;
}

function parse(res: InnerResponse, stage: FailureStage, what: string): Obj {
  try {
    const v = JSON.parse(res.text);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Obj;
  } catch {
    // reported below
  }
  throw new EpisodeFailed(failure(`${what} answered with a body that is not a JSON object: ${res.text.slice(0, 500)}`, true, { stage }));
}

/** Options of a single_agent_turn server. */
export interface SingleTurnOptions {
  className: string;
  instanceName: string;
  config: SingleTurnConfig;
  client: InnerClient;
}

/** Build a single_agent_turn environment server. */
export function singleAgentTurnApp(opts: SingleTurnOptions): ServerApp {
  const routes: Route[] = [
    { method: "POST", path: PATHS.run, handler: singleAgentTurnRunner(opts) },
    aggregateMetricsRoute(opts),
  ];
  return { className: opts.className, instanceName: opts.instanceName, routes, sessions: false };
}

/** `/aggregate_metrics`, forwarded to the resources server. */
export function aggregateMetricsRoute(opts: SingleTurnOptions): Route {
  return {
    method: "POST",
    path: PATHS.aggregateMetrics,
    handler: async (ctx) => {
      const r = await opts.client.call(opts.config.resourcesServer, PATHS.aggregateMetrics, { json: ctx.body, signal: ctx.signal });
      return new Response(r.text, { status: r.status, headers: { "content-type": "application/json" } });
    },
  };
}

/** The native `/run` handler: episode request in, `{episode_id, task_id, result, failure}` out. */
export function singleAgentTurnRunner(opts: SingleTurnOptions): (ctx: RequestContext) => Promise<Obj> {
  const { config, client, instanceName } = opts;

  async function episode(req: EpisodeRequest, cleanup: Cleanup, ctx: RequestContext): Promise<Obj> {
    const { episode_id, task } = req;
    const taskData = (task.task_input.task_data ?? {}) as Obj;
    const rsid = `resources-session-${hex32()}`;
    const res = config.resourcesServer;
    const agent = config.agentServer;

    let resourcesCookies: Record<string, string> = {};
    cleanup.add("close resources session", async () => {
      const r = await client.call(res, PATHS.closeSession, { json: { resources_session_id: rsid, episode_id }, cookies: resourcesCookies });
      if (r.status >= 300 && r.status !== 409) throw new RuntimeError(`${res}${PATHS.closeSession} answered ${r.status}: ${r.text.slice(0, 200)}`);
    });
    const seed = await step("seed", `resources server ${res} /seed_session`, () =>
      client.call(res, PATHS.seedSession, { json: { resources_session_id: rsid, episode_id, task_id: task.task_id, task_data: taskData }, signal: ctx.signal }),
    );
    resourcesCookies = seed.cookies;
    if (Object.keys(resourcesCookies).length === 0) throw new EpisodeFailed(failure("Resources seed did not establish a session cookie", true, { stage: "seed" }));
    const seedBody = parse(seed, "seed", `resources server ${res} /seed_session`);
    if (seedBody.resources_session_id !== rsid) {
      throw new EpisodeFailed(failure(`resources server ${res} answered resources_session_id ${String(seedBody.resources_session_id)}, expected ${rsid}`, true, { stage: "seed" }));
    }

    const toolAccesses: Obj[] = [];
    for (const t of config.transports) {
      if (t === "direct_http") {
        toolAccesses.push({ kind: "direct_http", name: `${res}.direct_http`, required: true, base_url: `${client.baseUrl(res)}/`, cookies: resourcesCookies, headers: {} });
      } else {
        const tools = seedBody.resources_tools as Obj | undefined;
        if (!tools || tools.transport !== "http") throw new EpisodeFailed(failure(`resources server ${res} offered no MCP tools (resources_tools with transport "http") for resources_tool_transports: [mcp]`, true, { stage: "seed" }));
        toolAccesses.push({ kind: "mcp", name: tools.server_name, required: true, connection: { transport: "streamable_http", url: `${client.baseUrl(res)}/${String(tools.url_path ?? "/mcp").replace(/^\//, "")}`, headers: tools.headers ?? {} } });
      }
    }

    const agentSessionId = `agent-session-${hex32()}`;
    let agentCookies: Record<string, string> = {};
    let agentClosed: Obj | undefined;
    const closeAgent = async (): Promise<Obj> => {
      if (agentClosed) return agentClosed;
      const r = await step("cleanup", `agent ${agent} ${PATHS.agentSessionsClose}`, () => client.call(agent, PATHS.agentSessionsClose, { json: { agent_session_id: agentSessionId, episode_id }, cookies: agentCookies }));
      const receipt = parse(r, "cleanup", `agent ${agent} ${PATHS.agentSessionsClose}`);
      if (receipt.agent_session_id !== agentSessionId) throw new EpisodeFailed(failure(`Agent close returned a different agent_session_id (${String(receipt.agent_session_id)})`, true, { stage: "cleanup" }));
      agentClosed = receipt;
      return agentClosed;
    };
    cleanup.add("close agent session", async () => {
      await closeAgent();
    });
    const created = await step("agent", `agent ${agent} ${PATHS.agentSessions}`, () =>
      client.call(agent, PATHS.agentSessions, { json: { agent_session_id: agentSessionId, episode_id, task_id: task.task_id, tool_accesses: toolAccesses, sandbox_access: seedBody.sandbox_access ?? null }, signal: ctx.signal }),
    );
    agentCookies = created.cookies;
    if (parse(created, "agent", `agent ${agent} ${PATHS.agentSessions}`).agent_session_id !== agentSessionId) {
      throw new EpisodeFailed(failure(`agent ${agent} did not echo agent_session_id ${agentSessionId}`, true, { stage: "agent" }));
    }

    let partialResponse: Obj | undefined;
    try {
      return await afterAgentCreated();
    } catch (e) {
      if (!(e instanceof EpisodeFailed)) throw e;
      // Attach what the agent left behind (upstream's response finalizer): close it if still open.
      let cleanupError: string | null = null;
      try {
        await closeAgent();
      } catch (ce) {
        cleanupError = `${(ce as Error).name}: ${(ce as Error).message}`.slice(0, 2000);
      }
      const rec = { ...e.record };
      rec.partial_response ??= partialResponse ?? (agentClosed?.partial_response as Obj | undefined);
      if (agentClosed) {
        rec.ng_agent_observations = agentClosed.agent_observations ?? null;
        rec.ng_trajectory = agentClosed.agent_trajectory ?? null;
      }
      rec.cleanup_error = cleanupError;
      throw new EpisodeFailed(rec);
    }

    /** Turn, close and verify (split out so failures after agent creation carry the agent's evidence). */
    async function afterAgentCreated(): Promise<Obj> {
      const timeoutS = task.task_input.agent_timeout_seconds ?? null;
      const path = `/ng-rollout/${captureKey(episode_id)}${config.tokenCapture ? "/training-token-capture" : ""}/v1/responses`;
      let response: Obj | undefined;
      let timedOut = false;
      const turnSignal = timeoutS === null ? ctx.signal : AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutS * 1000)]);
      try {
        const r = await step("agent", `agent ${agent} /v1/responses`, () => client.call(agent, path, { json: task.task_input.responses_create_params, cookies: agentCookies, signal: turnSignal }));
        // The agent may rotate its cookies on the turn; close with the latest ones.
        if (Object.keys(r.cookies).length > 0) agentCookies = r.cookies;
        const v = parse(r, "agent", `agent ${agent} /v1/responses`);
        if (!validResponse.Check(v)) throw new EpisodeFailed(failure(`agent ${agent} returned an invalid response: ${r.text.slice(0, 500)}`, true, { stage: "agent" }));
        response = v;
        partialResponse = v;
      } catch (e) {
        if (!(timeoutS !== null && turnSignal.aborted && !ctx.signal.aborted)) throw e;
        timedOut = true;
      }

      let closed: Obj;
      try {
        closed = await closeAgent();
      } catch (e) {
        const rec = (e as EpisodeFailed).record ?? failure(String(e), true, { stage: "cleanup" });
        throw new EpisodeFailed({ ...rec, stage: "cleanup", partial_response: response });
      }
      if (closed.resources_cookies && typeof closed.resources_cookies === "object") resourcesCookies = closed.resources_cookies as Record<string, string>;
      if (timedOut) {
        response = (closed.partial_response as Obj | undefined) ?? {
          id: `agent-timeout-${captureKey(episode_id)}`, object: "response", created_at: Date.now() / 1000, model: "unknown", status: "incomplete", output: [],
          parallel_tool_calls: false, tool_choice: "auto", tools: [], incomplete_details: null,
          metadata: { agent_timed_out: "true", response_source: "environment_timeout_envelope" },
        };
      }

      const verify = await step("verification", `resources server ${res} /verify`, () =>
        client.call(res, PATHS.verify, { json: { ...taskData, responses_create_params: task.task_input.responses_create_params, response }, cookies: resourcesCookies, signal: ctx.signal }),
      );
      const verified = parse(verify, "verification", `resources server ${res} /verify`);
      return {
        ...verified,
        ng_agent_observations: closed.agent_observations ?? null,
        ng_trajectory: closed.agent_trajectory ?? null,
        agent_timed_out: timedOut,
        agent_timeout_seconds: timeoutS,
      };
    }
  }

  return episodeHandler(instanceName, config.limits, episode);
}
