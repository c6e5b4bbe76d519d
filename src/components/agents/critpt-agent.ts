/**
 * responses_api_agents/critpt_agent: two turns per CritPt problem. Turn 1 solves; turn 2 sees
 * turn 1's answer (reasoning blocks stripped) and the `turn2_prompt_fpath` template filled with the
 * row's `code_template`, and populates it. Turn 2's answer is what `/verify` scores (the CritPt
 * resources server is external: it calls the Artificial Analysis API).
 */
import Type from "typebox";
import type { RequestContext, ServerApp } from "../../runtime/http/http-types.ts";
import { PATHS } from "../../servers/episode-protocol.ts";
import { innerJson, type InnerClient } from "../../servers/inner-client.ts";
import { ResponseCreateParams } from "../../servers/openai-schemas.ts";
import { bodyValidator } from "../../servers/validation.ts";
import { stripThinkingBlocks, turn2Params } from "../../verify/agents/critpt.ts";
import type { JudgePrompt } from "../../verify/judge/prompt.ts";
import { loadYamlPrompt } from "../_judge.ts";
import { clientsFor, refName, str } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { callModel, localAggregateMetricsRoute, modelPath, ok, outputText, selfPath } from "./_agent-calls.ts";
import { ConfigError } from "../../errors.ts";

const CLASS_NAME = "CritPtAgent";
type Obj = Record<string, unknown>;
const createParams = bodyValidator(ResponseCreateParams);
const runRow = bodyValidator(Type.Object({ responses_create_params: ResponseCreateParams, problem_id: Type.String(), code_template: Type.String() }, { additionalProperties: true }));

/** critpt_agent's leaf config. */
export interface CritPtConfig {
  resourcesServer: string;
  modelServer: string;
  turn2PromptFpath: string;
}

/** Read and check the leaf. */
export function critptConfig(ctx: Pick<ComponentContext, "instanceName" | "config">): CritPtConfig {
  const path = str(ctx, "turn2_prompt_fpath");
  if (!path) throw new ConfigError(`${ctx.instanceName}: turn2_prompt_fpath is not set`, { key: "turn2_prompt_fpath", hint: "point it at the turn-2 prompt YAML, e.g. benchmarks/critpt/prompts/turn2.yaml" });
  return { resourcesServer: refName(ctx, "resources_server"), modelServer: refName(ctx, "model_server"), turn2PromptFpath: path };
}

/** Build the critpt_agent server around a loaded turn-2 template (placeholder `code_template`). */
export function critptAgentApp(opts: { instanceName: string; config: CritPtConfig; turn2: JudgePrompt; client: InnerClient }): ServerApp {
  const { instanceName, config, turn2, client } = opts;

  async function responses(ctx: RequestContext): Promise<Obj> {
    const body = createParams.parse(ctx.body);
    const answer = await callModel(client, config.modelServer, modelPath(ctx), body, ctx.cookies, ctx.signal);
    Object.assign(ctx.responseCookies, answer.cookies);
    return answer.json;
  }

  async function run(ctx: RequestContext): Promise<unknown> {
    const row = runRow.parse(ctx.body) as Obj & { responses_create_params: Obj; code_template: string };
    const rs = config.resourcesServer;
    const seed = ok(await client.call(rs, PATHS.seedSession, { json: row, cookies: ctx.cookies, signal: ctx.signal }), `${rs}${PATHS.seedSession}`);
    const self = selfPath(ctx);
    const t1 = ok(await client.call(instanceName, self, { json: row.responses_create_params, cookies: seed.cookies, signal: ctx.signal }), `${instanceName}${self}`);
    // The turn-2 message asks for no new reasoning, so its context carries turn 1's conclusion only.
    const turn1Text = stripThinkingBlocks(outputText(innerJson(t1, `agent ${instanceName}`) as Obj));
    const params2 = turn2Params(row.responses_create_params, turn1Text, turn2.render({ code_template: row.code_template }));
    const t2 = ok(await client.call(instanceName, self, { json: params2, cookies: t1.cookies, signal: ctx.signal }), `${instanceName}${self}`);
    const response = innerJson(t2, `agent ${instanceName}`);
    const verify = ok(await client.call(rs, PATHS.verify, { json: { ...row, response }, cookies: t2.cookies, signal: ctx.signal }), `${rs}${PATHS.verify}`);
    return innerJson(verify, `resources server ${rs}`);
  }

  return {
    className: CLASS_NAME,
    instanceName,
    routes: [{ method: "POST", path: "/v1/responses", handler: responses }, { method: "POST", path: PATHS.run, handler: run }, localAggregateMetricsRoute()],
    sessions: true,
    rolloutPrefix: "model",
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_agents",
  implementation: "critpt_agent",
  className: CLASS_NAME,
  checkConfig: (ctx) => void critptConfig(ctx),
  async create(ctx) {
    const config = critptConfig(ctx);
    const turn2 = await loadYamlPrompt(ctx, "responses_api_agents", "critpt_agent", "turn2_prompt_fpath", config.turn2PromptFpath, ["code_template"]);
    return critptAgentApp({ instanceName: ctx.instanceName, config, turn2, client: clientsFor(ctx).inner });
  },
};
