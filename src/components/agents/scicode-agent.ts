/**
 * responses_api_agents/scicode_agent: SciCode problems solved one sub-step at a time. For each
 * sub-step the prompt (`prompt_fpath`'s `user` template) carries the earlier steps with the code
 * the model wrote for them; the answer's Python block is accumulated. Prefilled steps take
 * upstream's reference code and are not scored; once the context window is exceeded the remaining
 * steps are recorded as failed. The per-step solutions go to the (external) SciCode `/verify`.
 * `/aggregate_metrics` is computed here with the sub-step-weighted `subtask_accuracy`.
 */
import Type from "typebox";
import type { RequestContext, ServerApp } from "../../runtime/http/http-types.ts";
import { PATHS } from "../../servers/episode-protocol.ts";
import { innerJson, type InnerClient } from "../../servers/inner-client.ts";
import { ResponseCreateParams } from "../../servers/openai-schemas.ts";
import { bodyValidator } from "../../servers/validation.ts";
import { scicodeKeyMetrics, scicodeMetrics } from "../../verify/agents/scicode-metrics.ts";
import { prefilledStep } from "../../verify/agents/scicode-prefilled.ts";
import { extractPythonScript, isContextWindowError, OUT_OF_CONTEXT, processProblemSteps, type SubStep } from "../../verify/agents/scicode-steps.ts";
import type { JudgePrompt } from "../../verify/judge/prompt.ts";
import { log } from "../../log.ts";
import { ConfigError } from "../../errors.ts";
import { loadYamlPrompt } from "../_judge.ts";
import { bool, clientsFor, refName, str } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { callModel, emptyResponse, errorText, localAggregateMetricsRoute, modelPath, ok, outputText, selfPath } from "./_agent-calls.ts";

const CLASS_NAME = "ScicodeAgent";
type Obj = Record<string, unknown>;
const createParams = bodyValidator(ResponseCreateParams);
const Step = Type.Object({ step_description_prompt: Type.String(), step_background: Type.String(), function_header: Type.String(), return_line: Type.String() }, { additionalProperties: true });
const runRow = bodyValidator(Type.Object({ responses_create_params: ResponseCreateParams, problem_id: Type.String(), sub_steps: Type.Array(Step), required_dependencies: Type.String() }, { additionalProperties: true }));
/** The template's placeholders. */
const FIELDS = ["problem_steps_str", "next_step_str", "dependencies"] as const;

/** scicode_agent's leaf config. */
export interface ScicodeConfig {
  resourcesServer: string;
  modelServer: string;
  promptFpath: string;
  withBackground: boolean;
}

/** Read and check the leaf. */
export function scicodeConfig(ctx: Pick<ComponentContext, "instanceName" | "config">): ScicodeConfig {
  const path = str(ctx, "prompt_fpath");
  if (!path) throw new ConfigError(`${ctx.instanceName}: prompt_fpath is not set`, { key: "prompt_fpath", hint: "point it at the per-sub-step prompt YAML, e.g. benchmarks/scicode/prompts/background.yaml" });
  return { resourcesServer: refName(ctx, "resources_server"), modelServer: refName(ctx, "model_server"), promptFpath: path, withBackground: bool(ctx, "with_background", true) };
}

/** Build the scicode_agent server around a loaded per-step template. */
export function scicodeAgentApp(opts: { instanceName: string; config: ScicodeConfig; prompt: JudgePrompt; client: InnerClient }): ServerApp {
  const { instanceName, config, prompt, client } = opts;

  async function responses(ctx: RequestContext): Promise<Obj> {
    const body = createParams.parse(ctx.body);
    if (typeof body.input === "string") body.input = [{ role: "user", content: body.input }];
    const answer = await callModel(client, config.modelServer, modelPath(ctx), body, ctx.cookies, ctx.signal);
    Object.assign(ctx.responseCookies, answer.cookies);
    return answer.json;
  }

  async function run(ctx: RequestContext): Promise<unknown> {
    const row = runRow.parse(ctx.body) as Obj & { problem_id: string; sub_steps: SubStep[]; required_dependencies: string };
    const steps = row.sub_steps;
    const previous: (string | null)[] = steps.map(() => null);
    const solutions: Record<string, string> = {};
    let cookies = ctx.cookies;
    let outOfContext = false;
    let last: Obj | undefined;
    const self = selfPath(ctx);
    for (let cur = 0; cur < steps.length; cur++) {
      const key = `${row.problem_id}.${cur + 1}`;
      const prefilled = prefilledStep(row.problem_id, cur);
      if (prefilled !== undefined) {
        previous[cur] = prefilled;
        continue;
      }
      if (outOfContext) {
        solutions[key] = OUT_OF_CONTEXT;
        continue;
      }
      const parts = processProblemSteps(steps, cur, previous, config.withBackground);
      const deps = row.required_dependencies;
      const previousCode = parts.previousCode ? `${deps}\n${parts.previousCode}\n` : `${deps}\n`;
      const user = prompt.render({ problem_steps_str: parts.problemSteps, next_step_str: parts.nextStep, dependencies: deps });
      let gen;
      try {
        gen = ok(await client.call(instanceName, self, { json: { input: [{ role: "user", content: user }] }, cookies, signal: ctx.signal }), `${instanceName}${self}`);
      } catch (e) {
        if (!isContextWindowError(errorText(e))) throw e;
        log.warn(`(${instanceName}) SciCode problem ${row.problem_id} step ${cur}: context window exceeded; failing the remaining steps`);
        outOfContext = true;
        solutions[key] = OUT_OF_CONTEXT;
        continue;
      }
      cookies = gen.cookies;
      last = innerJson(gen, `agent ${instanceName}`) as Obj;
      const code = extractPythonScript(outputText(last));
      previous[cur] = code;
      solutions[key] = `${previousCode}\n${code}`;
    }
    // /verify needs a response: the last sub-step's (an empty one when no step was generated).
    const response = last ?? emptyResponse("scicode", "");
    const rs = config.resourcesServer;
    const verify = ok(await client.call(rs, PATHS.verify, { json: { ...row, solutions, response }, cookies, signal: ctx.signal }), `${rs}${PATHS.verify}`);
    return innerJson(verify, `resources server ${rs}`);
  }

  return {
    className: CLASS_NAME,
    instanceName,
    routes: [
      { method: "POST", path: "/v1/responses", handler: responses },
      { method: "POST", path: PATHS.run, handler: run },
      localAggregateMetricsRoute({ computeMetrics: scicodeMetrics, keyMetrics: scicodeKeyMetrics }),
    ],
    sessions: true,
    rolloutPrefix: "model",
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_agents",
  implementation: "scicode_agent",
  className: CLASS_NAME,
  checkConfig: (ctx) => void scicodeConfig(ctx),
  async create(ctx) {
    const config = scicodeConfig(ctx);
    const prompt = await loadYamlPrompt(ctx, "responses_api_agents", "scicode_agent", "prompt_fpath", config.promptFpath, FIELDS);
    return scicodeAgentApp({ instanceName: ctx.instanceName, config, prompt, client: clientsFor(ctx).inner });
  },
};
