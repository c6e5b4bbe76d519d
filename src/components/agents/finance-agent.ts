/**
 * responses_api_agents/finance_agent: the multi-turn tool loop of the Vals AI finance benchmarks
 * (finance_sec_search's `finance_agent`, finance_agent_v2's `finance_agent_v2`). The policy is
 * config, never a branch here: the nudge sent after a prose-only turn, the wall-clock budget
 * (`max_time_seconds`, checked before each model call), and the tool error types that abort the
 * rollout. A done tool (`done_tools`) ends the loop; `max_steps` caps turns; per-call timeouts
 * turn a slow model into a stop and a slow tool into an error the model sees; a context overflow
 * optionally drops the oldest exchange and retries. Every response carries `metadata.stop_reason`
 * and `metadata.steps`. `/run` never fails: an error there scores 0 (upstream), with `agent_error`.
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { log } from "../../log.ts";
import type { RequestContext, ServerApp } from "../../runtime/http/http-types.ts";
import { PATHS } from "../../servers/episode-protocol.ts";
import { innerJson, type InnerClient } from "../../servers/inner-client.ts";
import { ResponseCreateParams } from "../../servers/openai-schemas.ts";
import { pyJsonLoads } from "../../servers/py-json.ts";
import { bodyValidator } from "../../servers/validation.ts";
import { pyJsonDumps } from "../../util/py-json.ts";
import { abortingErrorType, isContextOverflow, pyFloatSeconds, truncateOldestExchange, type StopReason } from "../../verify/agents/finance-loop.ts";
import { bool, clientsFor, refName } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { addUsage, type Usage } from "./_usage.ts";
import { callModel, emptyResponse, errorText, errorTypeName, modelPath, ok, proxiedAggregateMetricsRoute, selfPath } from "./_agent-calls.ts";

const CLASS_NAME = "FinanceAgent";
type Obj = Record<string, unknown>;
const createParams = bodyValidator(ResponseCreateParams);
const runRow = bodyValidator(Type.Object({ responses_create_params: ResponseCreateParams }, { additionalProperties: true }));

/** finance_agent's leaf config (three policy keys are required, upstream's `Field(...)`). */
export interface FinanceConfig {
  resourcesServer: string;
  modelServer: string;
  noToolCallNudge: string;
  /** null = no wall-clock budget. */
  maxTimeSeconds: number | null;
  abortOnToolErrorTypes: string[];
  maxSteps: number | null;
  doneTools: string[];
  modelCallTimeout: number | null;
  toolCallTimeout: number | null;
  truncateOnOverflow: boolean;
}

/** Read and check the leaf: the policy keys must be stated, numbers must be numbers. */
export function financeConfig(ctx: Pick<ComponentContext, "instanceName" | "config">): FinanceConfig {
  const c = ctx.config;
  const name = ctx.instanceName;
  const required = (key: string) => {
    if (!(key in c)) throw new ConfigError(`${name}: ${key} is required (each finance_agent instance states its own loop policy)`, { key, hint: "see responses_api_agents/finance_agent/README.md for the two shipped profiles" });
    return c[key];
  };
  const optNumber = (key: string, v: unknown, min = 0): number | null => {
    if (v === undefined || v === null) return null;
    const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
    if (typeof n !== "number" || !Number.isFinite(n) || n < min) throw new ConfigError(`${name}: ${key} must be a number ≥ ${min} or null, got ${JSON.stringify(v)}`, { key });
    return n;
  };
  const strings = (key: string, v: unknown): string[] => {
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw new ConfigError(`${name}: ${key} must be a list of strings, got ${JSON.stringify(v)}`, { key });
    return v as string[];
  };
  const nudge = required("no_tool_call_nudge");
  if (typeof nudge !== "string") throw new ConfigError(`${name}: no_tool_call_nudge must be a string, got ${JSON.stringify(nudge)}`, { key: "no_tool_call_nudge" });
  const maxSteps = optNumber("max_steps", c.max_steps, 0);
  if (maxSteps !== null && !Number.isInteger(maxSteps)) throw new ConfigError(`${name}: max_steps must be an integer or null, got ${JSON.stringify(c.max_steps)}`, { key: "max_steps" });
  return {
    resourcesServer: refName(ctx, "resources_server"),
    modelServer: refName(ctx, "model_server"),
    noToolCallNudge: nudge,
    maxTimeSeconds: optNumber("max_time_seconds", required("max_time_seconds")),
    abortOnToolErrorTypes: strings("abort_on_tool_error_types", required("abort_on_tool_error_types")),
    maxSteps,
    doneTools: c.done_tools === undefined ? ["submit_final_result"] : strings("done_tools", c.done_tools),
    modelCallTimeout: optNumber("model_call_timeout", c.model_call_timeout),
    toolCallTimeout: optNumber("tool_call_timeout", c.tool_call_timeout),
    truncateOnOverflow: bool(ctx, "truncate_on_overflow", false),
  };
}

/** A signal that fires on the request's abort or after `seconds` (null = never), and whether the timer fired. */
function deadline(signal: AbortSignal, seconds: number | null): { signal: AbortSignal; timedOut: () => boolean } {
  if (seconds === null) return { signal, timedOut: () => false };
  const timer = AbortSignal.timeout(Math.max(1, seconds * 1000));
  return { signal: AbortSignal.any([signal, timer]), timedOut: () => timer.aborted && !signal.aborted };
}

/** Build the finance_agent server. */
export function financeAgentApp(opts: { instanceName: string; config: FinanceConfig; client: InnerClient }): ServerApp {
  const { instanceName, config, client } = opts;
  const warn = (m: string) => log.warn(`(${instanceName}) ${m}`);

  /** One tool call's output text: the server's body whatever its status, or a local error the model can act on. */
  async function runTool(fc: Obj, cookies: Record<string, string>, signal: AbortSignal): Promise<{ output: string; cookies: Record<string, string> }> {
    const name = String(fc.name);
    const d = deadline(signal, config.toolCallTimeout);
    try {
      const args = pyJsonLoads(fc.arguments);
      // The tool name is one path segment: a model-made name must not steer the call elsewhere.
      const res = await client.call(config.resourcesServer, `/${encodeURIComponent(name)}`, { json: args, cookies, signal: d.signal });
      return { output: res.text, cookies: res.cookies };
    } catch (e) {
      if (d.timedOut()) {
        warn(`Tool call '${name}' timed out after ${pyFloatSeconds(config.toolCallTimeout!)}s`);
        return { output: pyJsonDumps({ error: `Tool call timed out after ${pyFloatSeconds(config.toolCallTimeout!)}s. Please try a different approach or submit your final answer.` }), cookies };
      }
      if (signal.aborted) throw e;
      log.error(`(${instanceName}) Tool call '${name}' failed: ${errorTypeName(e)}: ${errorText(e)}`);
      return { output: pyJsonDumps({ error: `Tool call failed: ${errorTypeName(e)}: ${(e as Error).message}. Please try a different approach or submit your final answer.` }), cookies };
    }
  }

  async function responses(ctx: RequestContext): Promise<Obj> {
    const body = createParams.parse(ctx.body);
    const input: Obj[] = typeof body.input === "string" ? [{ role: "user", content: body.input }] : [...body.input];
    let outputs: Obj[] = [];
    let usage: Usage | null = null;
    let step = 0;
    let last: Obj | undefined;
    let modelCookies: Record<string, string> = {};
    let resCookies: Record<string, string> = { ...ctx.cookies };
    const done = new Set(config.doneTools);
    const started = performance.now();
    let stop: StopReason = "error";
    let ended = false;
    const path = modelPath(ctx);
    while (config.maxSteps === null || step < config.maxSteps) {
      // Checked before the call, so a spent budget ends the run instead of paying for one more turn.
      if (config.maxTimeSeconds !== null) {
        const elapsed = (performance.now() - started) / 1000;
        if (elapsed >= config.maxTimeSeconds) {
          warn(`Time budget exhausted (${elapsed.toFixed(0)}s / ${config.maxTimeSeconds.toFixed(0)}s) after ${step} steps — terminating agent loop`);
          stop = "max_time";
          ended = true;
          break;
        }
      }
      step++;
      const d = deadline(ctx.signal, config.modelCallTimeout);
      let answer: Obj;
      try {
        const r = await callModel(client, config.modelServer, path, { ...body, input: [...input, ...outputs] }, modelCookies, d.signal);
        modelCookies = r.cookies;
        answer = r.json;
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        if (d.timedOut()) {
          warn(`Model call timed out after ${pyFloatSeconds(config.modelCallTimeout!)}s on step ${step} — terminating agent loop`);
        } else {
          if (config.truncateOnOverflow && isContextOverflow(errorText(e))) {
            const shorter = truncateOldestExchange(outputs);
            if (shorter.length < outputs.length) {
              log.info(`(${instanceName}) Context overflow on step ${step} — truncated oldest exchange: ${outputs.length} → ${shorter.length} output items`);
              outputs = shorter;
              continue;
            }
          }
          log.error(`(${instanceName}) Model call failed on step ${step}: ${errorTypeName(e)}: ${errorText(e).slice(0, 500)}`);
        }
        stop = "error";
        ended = true;
        break;
      }
      last = answer;
      const output = (answer.output as Obj[]) ?? [];
      outputs.push(...output);
      usage = addUsage(usage, answer.usage as Usage | null | undefined);
      if ((answer.incomplete_details as Obj | null | undefined)?.reason === "max_output_tokens") {
        stop = "max_output_tokens";
        ended = true;
        break;
      }
      const calls = output.filter((o) => o.type === "function_call");
      if (calls.length === 0 && output.some((o) => o.type === "message" && o.role === "assistant")) {
        // Prose between tool calls does not end the run: the nudge keeps the model going.
        outputs.push({ role: "user", content: config.noToolCallNudge, type: "message" });
        continue;
      }
      let finished = false;
      for (const fc of calls) {
        const tool = await runTool(fc, resCookies, ctx.signal);
        resCookies = tool.cookies;
        outputs.push({ type: "function_call_output", call_id: fc.call_id, output: tool.output });
        if (done.has(String(fc.name))) {
          log.info(`(${instanceName}) Tool '${String(fc.name)}' signaled done — terminating agent loop`);
          stop = "done_tool";
          finished = true;
          break;
        }
        const abortType = abortingErrorType(tool.output, config.abortOnToolErrorTypes);
        if (abortType) {
          log.error(`(${instanceName}) Tool '${String(fc.name)}' raised ${abortType} — aborting rollout`);
          stop = "error";
          finished = true;
          break;
        }
      }
      if (finished) {
        ended = true;
        break;
      }
    }
    if (!ended && config.maxSteps !== null) {
      stop = "max_turns";
      warn(`Reached max_steps=${config.maxSteps} — terminating agent loop`);
    }
    log.info(`(${instanceName}) Agent loop finished after ${step} steps: stop_reason=${stop}`);
    if (!last) log.error(`(${instanceName}) Agent loop terminated without any successful model response`);
    const base = last ?? emptyResponse("error", "error");
    Object.assign(ctx.responseCookies, resCookies, modelCookies);
    return { ...base, output: outputs, usage, metadata: { ...((base.metadata as Obj | null | undefined) ?? {}), stop_reason: stop, steps: String(step) } };
  }

  async function runInner(ctx: RequestContext, row: Obj): Promise<unknown> {
    const rs = config.resourcesServer;
    const seed = ok(await client.call(rs, PATHS.seedSession, { json: row, cookies: ctx.cookies, signal: ctx.signal }), `${rs}${PATHS.seedSession}`);
    const self = selfPath(ctx);
    const loop = ok(await client.call(instanceName, self, { json: row.responses_create_params, cookies: seed.cookies, signal: ctx.signal }), `${instanceName}${self}`);
    const response = innerJson(loop, `agent ${instanceName}`);
    const verify = ok(await client.call(rs, PATHS.verify, { json: { ...row, response }, cookies: loop.cookies, signal: ctx.signal }), `${rs}${PATHS.verify}`);
    return innerJson(verify, `resources server ${rs}`);
  }

  async function run(ctx: RequestContext): Promise<unknown> {
    const row = runRow.parse(ctx.body) as Obj;
    try {
      return await runInner(ctx, row);
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      const why = `${errorTypeName(e)}: ${errorText(e).slice(0, 300)}`;
      log.error(`(${instanceName}) run() failed — returning reward=0: ${why}`);
      // Upstream scores the rollout 0 and keeps the row; `agent_error` keeps the failure countable.
      return { responses_create_params: row.responses_create_params, response: emptyResponse("error", "error", { metadata: { stop_reason: "error" } }), reward: 0.0, agent_error: why };
    }
  }

  return {
    className: CLASS_NAME,
    instanceName,
    routes: [{ method: "POST", path: "/v1/responses", handler: responses }, { method: "POST", path: PATHS.run, handler: run }, proxiedAggregateMetricsRoute(client, config.resourcesServer)],
    sessions: true,
    rolloutPrefix: "model",
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_agents",
  implementation: "finance_agent",
  className: CLASS_NAME,
  checkConfig: (ctx) => void financeConfig(ctx),
  async create(ctx) {
    return financeAgentApp({ instanceName: ctx.instanceName, config: financeConfig(ctx), client: clientsFor(ctx).inner });
  },
};
