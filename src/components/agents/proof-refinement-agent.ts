/**
 * responses_api_agents/proof_refinement_agent: a verify-correction loop. Generate a proof, verify
 * it; while the resources server says `needs_correction` and turns remain
 * (`max_correction_turns`), send its `correction_prompt` as a fresh single-user-message input
 * (temperature/top_p kept) and verify again. The last verify answer is the result, with
 * `total_turns` and (with `include_all_attempts`) every attempt recorded for training.
 */
import Type from "typebox";
import { Compile } from "typebox/compile";
import { ConfigError } from "../../errors.ts";
import { log } from "../../log.ts";
import { InnerServerError, type RequestContext, type ServerApp } from "../../runtime/http/http-types.ts";
import { PATHS } from "../../servers/episode-protocol.ts";
import { innerJson, type InnerClient, type InnerResponse } from "../../servers/inner-client.ts";
import { NeMoGymResponse, ResponseCreateParams } from "../../servers/openai-schemas.ts";
import { pyError } from "../../servers/py-error.ts";
import { bodyValidator } from "../../servers/validation.ts";
import { computeAggregateMetrics } from "../../verify/aggregate-metrics.ts";
import { bool, clientsFor, refName } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "ProofRefinementAgent";
type Obj = Record<string, unknown>;
const createParams = bodyValidator(ResponseCreateParams);
const runRow = bodyValidator(Type.Object({ responses_create_params: ResponseCreateParams }, { additionalProperties: true }));
const validResponse = Compile(NeMoGymResponse);
const aggBody = bodyValidator(Type.Object({ verify_responses: Type.Array(Type.Record(Type.String(), Type.Unknown())) }, { additionalProperties: true }));
/** The create-params keys a correction turn keeps (upstream's list; `max_tokens` is not a Responses key, so it never matches). */
const KEPT_PARAMS = ["temperature", "max_tokens", "top_p"];

/** proof_refinement_agent's leaf config. */
export interface ProofRefinementConfig {
  resourcesServer: string;
  modelServer: string;
  maxCorrectionTurns: number;
  includeAllAttempts: boolean;
}

/** Read and check the leaf. */
export function proofRefinementConfig(ctx: Pick<ComponentContext, "instanceName" | "config">): ProofRefinementConfig {
  const turns = ctx.config.max_correction_turns ?? 0;
  if (typeof turns !== "number" || !Number.isInteger(turns) || turns < 0) {
    throw new ConfigError(`${ctx.instanceName}: max_correction_turns must be a non-negative integer, got ${JSON.stringify(turns)}`, { key: "max_correction_turns", hint: "0 = one attempt, no corrections" });
  }
  return { resourcesServer: refName(ctx, "resources_server"), modelServer: refName(ctx, "model_server"), maxCorrectionTurns: turns, includeAllAttempts: bool(ctx, "include_all_attempts", true) };
}

/** The generation text of a model answer: the first output_text of the last message that has one (upstream's scan). */
export function generationText(resp: Obj): string {
  let text = "";
  for (const item of (resp.output as Obj[] | undefined) ?? []) {
    if (item.type !== "message" || !Array.isArray(item.content) || item.content.length === 0) continue;
    const first = (item.content as Obj[]).find((c) => c.type === "output_text");
    if (first) text = String(first.text ?? "");
  }
  return text;
}

/** The next turn's input: the correction prompt as the only user message, with the kept sampling keys. */
export function correctionInput(params: Obj, correctionPrompt: string): Obj {
  const next: Obj = { input: [{ role: "user", content: correctionPrompt }], model: params.model ?? null };
  for (const k of KEPT_PARAMS) if (params[k] !== undefined && params[k] !== null) next[k] = params[k];
  return next;
}

function ok(res: InnerResponse, url: string): InnerResponse {
  if (res.status < 200 || res.status >= 300) throw new InnerServerError(res.status, res.text, url);
  return res;
}

/** Build the proof_refinement_agent server. */
export function proofRefinementAgentApp(opts: { instanceName: string; config: ProofRefinementConfig; client: InnerClient }): ServerApp {
  const { instanceName, config, client } = opts;

  async function responses(ctx: RequestContext): Promise<Obj> {
    const body = createParams.parse(ctx.body);
    if (typeof body.input === "string") body.input = [{ role: "user", content: body.input }];
    const path = ctx.rolloutId ? `/ng-rollout/${ctx.rolloutId}${ctx.trainingTokenCapture ? "/training-token-capture" : ""}/v1/responses` : "/v1/responses";
    const res = ok(await client.call(config.modelServer, path, { json: body, cookies: ctx.cookies, signal: ctx.signal }), `${config.modelServer}${path}`);
    const json = innerJson(res, `model server ${config.modelServer}`);
    if (!validResponse.Check(json)) throw pyError("RuntimeError", `Received an invalid response from model server: ${res.text}`);
    Object.assign(ctx.responseCookies, res.cookies);
    return json as Obj;
  }

  async function run(ctx: RequestContext): Promise<Obj> {
    const row = runRow.parse(ctx.body);
    const rs = config.resourcesServer;
    const seed = ok(await client.call(rs, PATHS.seedSession, { json: row, cookies: ctx.cookies, signal: ctx.signal }), `${rs}${PATHS.seedSession}`);
    let cookies = seed.cookies;
    const params = row.responses_create_params as Obj;
    const attempts: Obj[] = [];
    const selfPath = ctx.rolloutId ? `/ng-rollout/${ctx.rolloutId}/v1/responses` : "/v1/responses";
    let input: Obj = params;
    let verdict: Obj;
    for (let turn = 0; ; turn++) {
      const gen = ok(await client.call(instanceName, selfPath, { json: input, cookies, signal: ctx.signal }), `${instanceName}${selfPath}`);
      cookies = gen.cookies;
      const response = innerJson(gen, `agent ${instanceName}`) as Obj;
      const verify = ok(await client.call(rs, PATHS.verify, { json: { ...row, response, turn_index: turn }, cookies, signal: ctx.signal }), `${rs}${PATHS.verify}`);
      cookies = verify.cookies;
      verdict = innerJson(verify, `resources server ${rs}`) as Obj;
      attempts.push({
        turn_index: turn,
        input,
        response,
        generation: generationText(response),
        proof_status: verdict.proof_status ?? "unknown",
        reward: verdict.reward ?? 0.0,
        error_feedback: verdict.error_feedback ?? null,
        correction_prompt: verdict.correction_prompt ?? null,
      });
      if (!verdict.needs_correction || config.maxCorrectionTurns - turn <= 0) break;
      const prompt = verdict.correction_prompt;
      if (!prompt) {
        log.warn(`(${instanceName}) turn ${turn}: needs_correction is true but the verify answer has no correction_prompt; stopping`);
        break;
      }
      input = correctionInput(params, String(prompt));
    }
    return { ...verdict, total_turns: attempts.length, all_attempts: config.includeAllAttempts ? attempts : null };
  }

  return {
    className: CLASS_NAME,
    instanceName,
    routes: [
      { method: "POST", path: "/v1/responses", handler: responses },
      { method: "POST", path: PATHS.run, handler: run },
      // Upstream's agent default: aggregated here, like a resources server would.
      { method: "POST", path: PATHS.aggregateMetrics, handler: (ctx) => computeAggregateMetrics(aggBody.parse(ctx.body).verify_responses) },
    ],
    sessions: true,
    rolloutPrefix: "model",
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_agents",
  implementation: "proof_refinement_agent",
  className: CLASS_NAME,
  checkConfig: (ctx) => void proofRefinementConfig(ctx),
  async create(ctx) {
    return proofRefinementAgentApp({ instanceName: ctx.instanceName, config: proofRefinementConfig(ctx), client: clientsFor(ctx).inner });
  },
};
