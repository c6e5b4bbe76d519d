/**
 * Agents that make ONE model call and never execute the tool calls it returns (upstream
 * non_executing_simple_agent and tool_simulation_agent): the verifier grades the model's first
 * action itself (a message, a call or a batch of calls). `/run` = (seed →) `/v1/responses` → verify.
 */
import Type from "typebox";
import { Compile } from "typebox/compile";
import { InnerServerError, RawJson, type RequestContext, type Route, type ServerApp } from "../runtime/http/http-types.ts";
import { PATHS } from "./episode-protocol.ts";
import { innerJson, type InnerClient, type InnerResponse } from "./inner-client.ts";
import { NeMoGymResponse, ResponseCreateParams } from "./openai-schemas.ts";
import { pyError } from "./py-error.ts";
import { runResponsesPath, type AgentConfig } from "./agent.ts";
import { bodyValidator } from "./validation.ts";

type Obj = Record<string, unknown>;

const createParams = bodyValidator(ResponseCreateParams);
const runRow = bodyValidator(Type.Object({ responses_create_params: ResponseCreateParams }, { additionalProperties: true }));
const validResponse = Compile(NeMoGymResponse);

function raiseForStatus(res: InnerResponse, url: string): void {
  if (res.status < 200 || res.status >= 300) throw new InnerServerError(res.status, res.text, url);
}

/** What differs between the two upstream agents. */
export interface SingleCallOptions {
  className: string;
  instanceName: string;
  config: AgentConfig & { resourcesServer: string };
  client: InnerClient;
  /** Seed the resources session first and carry cookies through (non_executing_simple_agent). */
  seed: boolean;
}

/** Build a single-call agent server. */
export function singleCallAgentApp(opts: SingleCallOptions): ServerApp {
  const { config, client, instanceName } = opts;
  const modelPath = (ctx: RequestContext) => (ctx.rolloutId ? `/ng-rollout/${ctx.rolloutId}${ctx.trainingTokenCapture ? "/training-token-capture" : ""}/v1/responses` : "/v1/responses");

  async function responses(ctx: RequestContext): Promise<Obj> {
    const body = createParams.parse(ctx.body);
    const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
    const path = modelPath(ctx);
    const res = await client.call(config.modelServer, path, { json: { ...body, input }, signal: ctx.signal });
    raiseForStatus(res, `${config.modelServer}${path}`);
    const json = innerJson(res, `model server ${config.modelServer}`);
    if (!validResponse.Check(json)) throw pyError("RuntimeError", `Received an invalid response from model server: ${res.text}`);
    // The tool calls are the answer being graded: nothing is executed. Session cookies pass through for /run's verify.
    if (opts.seed) Object.assign(ctx.responseCookies, ctx.cookies, res.cookies);
    return json as Obj;
  }

  async function run(ctx: RequestContext): Promise<Obj | RawJson> {
    const row = runRow.parse(ctx.body);
    let cookies: Record<string, string> = opts.seed ? ctx.cookies : {};
    if (opts.seed) {
      const seed = await client.call(config.resourcesServer, PATHS.seedSession, { json: row, cookies, signal: ctx.signal });
      raiseForStatus(seed, `${config.resourcesServer}${PATHS.seedSession}`);
      cookies = seed.cookies;
    }
    const path = runResponsesPath(ctx, row, config);
    const resp = await client.call(instanceName, path, { json: row.responses_create_params, cookies, signal: ctx.signal });
    raiseForStatus(resp, `${instanceName}${path}`);
    const response = innerJson(resp, `agent ${instanceName}`);
    if (config.skipVerification) return { ...row, response, reward: config.skipVerificationReward, verification_skipped: true };
    const verify = await client.call(config.resourcesServer, PATHS.verify, { json: { ...row, response }, cookies: opts.seed ? resp.cookies : {}, signal: ctx.signal });
    raiseForStatus(verify, `${config.resourcesServer}${PATHS.verify}`);
    innerJson(verify, `resources server ${config.resourcesServer}`);
    return new RawJson(verify.text);
  }

  const routes: Route[] = [
    { method: "POST", path: "/v1/responses", handler: responses },
    { method: "POST", path: PATHS.run, handler: run },
    {
      method: "POST",
      path: PATHS.aggregateMetrics,
      handler: async (ctx) => {
        const res = await client.call(config.resourcesServer, PATHS.aggregateMetrics, { json: ctx.body, signal: ctx.signal });
        raiseForStatus(res, `${config.resourcesServer}${PATHS.aggregateMetrics}`);
        return innerJson(res, `resources server ${config.resourcesServer}`);
      },
    },
  ];
  return { className: opts.className, instanceName, routes, sessions: true, rolloutPrefix: "model" };
}
