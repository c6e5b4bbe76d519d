/**
 * The agent of Gymnasium-style resources servers (upstream `responses_api_agents/gymnasium_agent`):
 * `/run` = `/reset` → (model call → `/step`)* until a step terminates or truncates or `max_steps`
 * model calls were made. Rewards of the steps are summed; observations come back to the model as
 * user messages and `info.tool_outputs` as function_call_output items. When `/reset`'s info says
 * `supports_explicit_close`, the episode is closed with `/close` afterwards, also when it failed.
 */
import Type from "typebox";
import { Compile } from "typebox/compile";
import { InnerServerError, type RequestContext, type Route, type ServerApp } from "../runtime/http/http-types.ts";
import { PATHS } from "./episode-protocol.ts";
import { innerJson, type InnerClient, type InnerResponse } from "./inner-client.ts";
import { NeMoGymResponse, ResponseCreateParams, type ResponseUsage } from "./openai-schemas.ts";
import { pyError } from "./py-error.ts";
import { fullCreateParams, fullResponse } from "./resources.ts";
import { bodyValidator } from "./validation.ts";

type Obj = Record<string, unknown>;

/** The agent's leaf config. */
export interface GymnasiumAgentConfig {
  resourcesServer: string;
  modelServer: string;
  /** Model calls per episode (upstream default 10, at least 1). */
  maxSteps: number;
}

const createParams = bodyValidator(ResponseCreateParams);
const runRow = bodyValidator(Type.Object({ responses_create_params: ResponseCreateParams }, { additionalProperties: true }));
const validResponse = Compile(NeMoGymResponse);
const validReset = Compile(Type.Object({ observation: Type.Optional(Type.Union([Type.String(), Type.Null()])), info: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, { additionalProperties: true }));
const validStep = Compile(
  Type.Object(
    {
      observation: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      reward: Type.Optional(Type.Number()),
      terminated: Type.Optional(Type.Boolean()),
      truncated: Type.Optional(Type.Boolean()),
      info: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: true },
  ),
);

function raiseForStatus(res: InnerResponse, url: string): void {
  if (res.status < 200 || res.status >= 300) throw new InnerServerError(res.status, res.text, url);
}

/** Upstream `accumulate_response_usage`: token counts summed; a detail count stays null once either side is null. */
export function accumulateUsage(total: ResponseUsage | null, add: ResponseUsage | null | undefined): ResponseUsage | null {
  if (!add) return total;
  if (!total) return structuredClone(add);
  const plus = (a: number | null | undefined, b: number | null | undefined) => (a === null || a === undefined || b === null || b === undefined ? (a ?? null) : a + b);
  return {
    input_tokens: total.input_tokens + add.input_tokens,
    input_tokens_details: { cached_tokens: plus(total.input_tokens_details?.cached_tokens, add.input_tokens_details?.cached_tokens) },
    output_tokens: total.output_tokens + add.output_tokens,
    output_tokens_details: { reasoning_tokens: plus(total.output_tokens_details?.reasoning_tokens, add.output_tokens_details?.reasoning_tokens) },
    total_tokens: total.total_tokens + add.total_tokens,
  };
}

/** A validation failure of an inner answer, as pydantic's ValidationError would end the request (500). */
function invalid(what: string, text: string): Error {
  return pyError("RuntimeError", `Received an invalid ${what}: ${text.slice(0, 2000)}`);
}

/** Build a gymnasium_agent server. */
export function gymnasiumAgentApp(opts: { className: string; instanceName: string; config: GymnasiumAgentConfig; client: InnerClient }): ServerApp {
  const { config, client } = opts;
  const env = config.resourcesServer;
  const modelPath = (ctx: RequestContext) => (ctx.rolloutId ? `/ng-rollout/${ctx.rolloutId}${ctx.trainingTokenCapture ? "/training-token-capture" : ""}/v1/responses` : "/v1/responses");

  async function responses(ctx: RequestContext): Promise<Obj> {
    const body = createParams.parse(ctx.body);
    const path = modelPath(ctx);
    const res = await client.call(config.modelServer, path, { json: body, cookies: ctx.cookies, signal: ctx.signal });
    raiseForStatus(res, `${config.modelServer}${path}`);
    const json = innerJson(res, `model server ${config.modelServer}`);
    if (!validResponse.Check(json)) throw invalid("response from model server", res.text);
    Object.assign(ctx.responseCookies, res.cookies);
    return json as Obj;
  }

  async function close(cookies: Record<string, string>, signal: AbortSignal): Promise<void> {
    const res = await client.call(env, "/close", { json: {}, cookies, signal });
    raiseForStatus(res, `${env}/close`);
  }

  async function episode(ctx: RequestContext, row: Obj, reset: Obj, envCookies: Record<string, string>): Promise<Obj> {
    const rcp = structuredClone(row.responses_create_params) as Obj;
    const baseInput: Obj[] = typeof rcp.input === "string" ? [{ role: "user", content: rcp.input, type: "message" }] : [...(rcp.input as Obj[])];
    if (typeof reset.observation === "string" && reset.observation !== "") baseInput.push({ role: "user", content: reset.observation, type: "message" });
    const base: Obj = { ...rcp, input: baseInput };
    const resetInfo = (reset.info ?? {}) as Obj;
    const idempotent = resetInfo.supports_step_idempotency === true;
    const path = ctx.rolloutId ? `/ng-rollout/${ctx.rolloutId}/v1/responses` : "/v1/responses";

    const newOutputs: Obj[] = [];
    let total = 0;
    let usage: ResponseUsage | null = null;
    let modelCookies: Record<string, string> | undefined;
    let last: Obj | undefined;
    let step: Obj = { observation: null, reward: 0, terminated: false, truncated: true, info: {} };
    let finished = false;
    for (let i = 0; i < config.maxSteps; i++) {
      const res = await client.call(config.modelServer, path, { json: { ...base, input: [...baseInput, ...newOutputs] }, cookies: modelCookies, signal: ctx.signal });
      raiseForStatus(res, `${config.modelServer}${path}`);
      const model = innerJson(res, `model server ${config.modelServer}`);
      if (!validResponse.Check(model)) throw invalid("response from model server", res.text);
      modelCookies = res.cookies;
      last = model as Obj;
      newOutputs.push(...(last.output as Obj[]));
      usage = accumulateUsage(usage, last.usage as ResponseUsage | null | undefined);

      const stepBody: Obj = { ...row, response: last };
      if (idempotent) stepBody._ng_step_request_id = crypto.randomUUID().replaceAll("-", "");
      const sr = await client.call(env, "/step", { json: stepBody, cookies: envCookies, signal: ctx.signal });
      raiseForStatus(sr, `${env}/step`);
      const data = innerJson(sr, `resources server ${env}`);
      if (!validStep.Check(data)) throw invalid("/step answer from resources server", sr.text);
      step = { observation: null, reward: 0, terminated: false, truncated: false, info: {}, ...(data as Obj) };
      total += Number(step.reward);
      Object.assign(envCookies, sr.cookies);
      if (step.terminated === true || step.truncated === true) {
        finished = true;
        break;
      }
      const toolOutputs = ((step.info as Obj | null)?.tool_outputs ?? []) as Obj[];
      for (const t of toolOutputs) newOutputs.push({ type: "function_call_output", call_id: t.call_id, output: t.output });
      if (typeof step.observation === "string" && step.observation !== "") newOutputs.push({ role: "user", content: step.observation, type: "message" });
    }
    if (!finished) step = { ...step, truncated: true };
    return {
      responses_create_params: { ...fullCreateParams(base), stream: null },
      response: fullResponse({ ...last!, output: newOutputs, usage }),
      reward: total,
      terminated: step.terminated === true,
      truncated: step.truncated === true,
      info: step.info ?? {},
    };
  }

  async function run(ctx: RequestContext): Promise<Obj> {
    const row = runRow.parse(ctx.body);
    // Inbound cookies (auth/routing) are kept; the environment's session cookies are merged in.
    const envCookies: Record<string, string> = { ...ctx.cookies };
    const rr = await client.call(env, "/reset", { json: row, cookies: envCookies, signal: ctx.signal });
    raiseForStatus(rr, `${env}/reset`);
    Object.assign(envCookies, rr.cookies);
    let explicitClose = false;
    let result: Obj;
    try {
      // A successful reset holds a stateful slot even when its answer is unusable: validation sits inside the cleanup boundary.
      const reset = innerJson(rr, `resources server ${env}`);
      const info = reset && typeof reset === "object" ? (reset as Obj).info : undefined;
      if (info && typeof info === "object" && !Array.isArray(info)) explicitClose = (info as Obj).supports_explicit_close === true;
      if (!validReset.Check(reset)) throw invalid("/reset answer from resources server", rr.text);
      result = await episode(ctx, row, reset as Obj, envCookies);
    } catch (e) {
      if (explicitClose) {
        // The original failure is what the caller sees; a failed close only goes to the log.
        await close(envCookies, ctx.signal).catch((c) => process.stderr.write(`${opts.instanceName}: closing the Gymnasium environment after a rollout error failed: ${(c as Error).message}\n`));
      }
      throw e;
    }
    if (!explicitClose) return result;
    try {
      await close(envCookies, ctx.signal);
    } catch (e) {
      const err = e as Error;
      const errorType = err instanceof InnerServerError ? "HTTPError" : err.name || "Error";
      result.info = { ...((result.info as Obj) ?? {}), cleanup_warning: { operation: "close", error_type: errorType, message: err.message } };
    }
    return result;
  }

  const routes: Route[] = [
    { method: "POST", path: "/v1/responses", handler: responses },
    { method: "POST", path: PATHS.run, handler: run },
    {
      method: "POST",
      path: PATHS.aggregateMetrics,
      handler: async (ctx) => {
        const res = await client.call(env, PATHS.aggregateMetrics, { json: ctx.body, signal: ctx.signal });
        raiseForStatus(res, `${env}${PATHS.aggregateMetrics}`);
        return innerJson(res, `resources server ${env}`);
      },
    },
  ];
  return { className: opts.className, instanceName: opts.instanceName, routes, sessions: true, rolloutPrefix: "model" };
}
