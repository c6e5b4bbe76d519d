/**
 * responses_api_agents/browsecomp_agent: the BrowseComp search-agent loop with context
 * management. Tool rounds run until the model answers or `max_steps`; old tool results are hidden
 * past `keep_rounds`; when the prompt grows past the reset threshold the context resets to the last
 * `context_reset_keep_rounds` rounds (measured from the model's usage, or before the call through
 * vLLM's `/tokenize` with `save_model_call_using_vllm_tokenize_endpoint`). Optional: milestone
 * nudges, a progress board pinned to the system prompt (agent-side `update_progress` tool, one
 * warned turn before each reset, answers recovered from it), snapshots under `snap_dir`. `/run`
 * retries an empty answer (`max_run_retries`) and contains every failure: a 0-reward row with
 * `agent_error`, not persisted (`_ng_no_persist`, retried on resume) when the harness broke.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { log } from "../../log.ts";
import { RequestFailedError } from "../../runtime/http/http-client.ts";
import { InnerServerError, type RequestContext, type ServerApp } from "../../runtime/http/http-types.ts";
import { PATHS } from "../../servers/episode-protocol.ts";
import { innerJson, type InnerClient } from "../../servers/inner-client.ts";
import { ResponseCreateParams } from "../../servers/openai-schemas.ts";
import { pyJsonLoads } from "../../servers/py-json.ts";
import { bodyValidator } from "../../servers/validation.ts";
import { pyJsonDumps } from "../../util/py-json.ts";
import { pyStr } from "../../util/py-str-of.ts";
import {
  compactOldToolMessages,
  extractLastRounds,
  lastMessageText,
  milestoneNudge,
  preResetBoardNudge,
  progressSystem,
  progressToolOutput,
  recoverBoardAnswer,
  resetThreshold,
  turnsRemaining,
  unwrapResultsString,
  withoutThink,
  withProgressTool,
} from "../../verify/agents/browsecomp-context.ts";
import { bool, clientsFor, refName, str } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { addUsage, type Usage } from "./_usage.ts";
import { vllmTokenCounter, type CountTokens } from "./_vllm-tokenize.ts";
import { callModel, emptyResponse, errorText, errorTypeName, modelPath, ok, proxiedAggregateMetricsRoute, selfPath } from "./_agent-calls.ts";

const CLASS_NAME = "BrowsecompAgent";
type Obj = Record<string, unknown>;
const createParams = bodyValidator(ResponseCreateParams);
const runRow = bodyValidator(Type.Object({ responses_create_params: ResponseCreateParams }, { additionalProperties: true }));

/** browsecomp_agent's leaf config (upstream's defaults). */
export interface BrowsecompConfig {
  resourcesServer: string;
  modelServer: string;
  maxSteps: number;
  keepRounds: number;
  nudgeSteps: boolean;
  maxContextTokens: number;
  contextResetPct: number;
  contextResetTokens: number;
  contextResetKeepRounds: number;
  maxRunRetries: number;
  /** null = unlimited. */
  maxResetCount: number | null;
  snapDir: string | null;
  tokenizeBeforeCall: boolean;
  progress: boolean;
}

/** Read and check the leaf. */
export function browsecompConfig(ctx: Pick<ComponentContext, "instanceName" | "config">): BrowsecompConfig {
  const c = ctx.config;
  const number = (key: string, fallback: number, opts: { int?: boolean; min?: number } = {}): number => {
    const v = c[key];
    if (v === undefined || v === null) return fallback;
    const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
    if (typeof n !== "number" || !Number.isFinite(n) || (opts.int && !Number.isInteger(n)) || n < (opts.min ?? 0)) {
      throw new ConfigError(`${ctx.instanceName}: ${key} must be ${opts.int ? "an integer" : "a number"} ≥ ${opts.min ?? 0}, got ${JSON.stringify(v)}`, { key });
    }
    return n;
  };
  return {
    resourcesServer: refName(ctx, "resources_server"),
    modelServer: refName(ctx, "model_server"),
    maxSteps: number("max_steps", 400, { int: true }),
    keepRounds: number("keep_rounds", 9999, { int: true }),
    nudgeSteps: bool(ctx, "nudge_steps", true),
    maxContextTokens: number("max_context_tokens", 196608, { int: true }),
    contextResetPct: number("context_reset_pct", 0.3),
    contextResetTokens: number("context_reset_tokens", 0, { int: true }),
    contextResetKeepRounds: number("context_reset_keep_rounds", 3, { int: true }),
    // 0 attempts would return no row at all: at least one.
    maxRunRetries: number("max_run_retries", 1, { int: true, min: 1 }),
    maxResetCount: c.max_reset_count === undefined || c.max_reset_count === null ? null : number("max_reset_count", 0, { int: true }),
    snapDir: str(ctx, "snap_dir") ?? null,
    tokenizeBeforeCall: bool(ctx, "save_model_call_using_vllm_tokenize_endpoint", false),
    progress: bool(ctx, "progress", false),
  };
}


/** A harness failure (a 5xx from a gym server, a connection error, a timeout), not this sample's. */
export function isInfrastructureFailure(e: unknown): boolean {
  if (e instanceof InnerServerError) return e.status >= 500;
  return e instanceof RequestFailedError;
}

/** A short stable id of a question (its input's sha256, 10 hex digits), the snapshot key of a row without a task index. */
function questionId(params: Obj): string {
  const input = typeof params.input === "string" ? [{ role: "user", content: params.input }] : params.input;
  return new Bun.CryptoHasher("sha256").update(pyJsonDumps(input ?? [])).digest("hex").slice(0, 10);
}

/** Snapshot files under `snap_dir/sample_<key>/` (one JSON object per line). */
function writeJsonl(dir: string, file: string, lines: string[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), lines.map((l) => `${l}\n`).join(""));
}

/** Build the browsecomp_agent server (`countTokens` is required when the tokenize path is on). */
export function browsecompAgentApp(opts: { instanceName: string; config: BrowsecompConfig; client: InnerClient; countTokens?: CountTokens }): ServerApp {
  const { instanceName, config: cfg, client } = opts;
  const threshold = resetThreshold(cfg);
  if (cfg.tokenizeBeforeCall && !opts.countTokens) throw new Error("browsecompAgentApp: the tokenize path needs countTokens");

  /** Whatever escapes the loop is logged with a greppable marker, then re-raised unchanged (/run contains it). */
  async function responses(ctx: RequestContext): Promise<Obj> {
    try {
      return await loop(ctx);
    } catch (e) {
      log.error(`(${instanceName}) [browsecomp][responses_exc] error_type=${errorTypeName(e)} error=${errorText(e).slice(0, 300)}`);
      throw e;
    }
  }

  async function loop(ctx: RequestContext): Promise<Obj> {
    const body = structuredClone(createParams.parse(ctx.body)) as Obj;
    let input: Obj[] = typeof body.input === "string" ? [{ role: "user", content: body.input }] : [...(body.input as Obj[])];
    let outputs: Obj[] = [];
    let full: Obj[] = [];
    let usage: Usage | null = null;
    let step = 0;
    let modelCookies: Record<string, string> = {};
    let resCookies: Record<string, string> = { ...ctx.cookies };
    let last: Obj | undefined;

    // The progress board lives in the system prompt, re-rendered only at the start and at resets.
    let board = "";
    let armed = false;
    const warningSteps: number[] = [];
    let sysIdx = -1;
    let baseSystem = "";
    const render = () => {
      input = input.map((m, i) => (i === sysIdx ? { ...m, content: progressSystem(baseSystem, board) } : m));
    };
    if (cfg.progress) {
      body.tools = withProgressTool((body.tools as unknown[] | undefined) ?? []);
      sysIdx = input.findIndex((m) => (m.role === "system" || m.role === "developer") && typeof m.content === "string");
      if (sysIdx < 0) {
        input = [{ role: "system", content: "" }, ...input];
        sysIdx = 0;
      }
      baseSystem = String(input[sysIdx]!.content);
      render();
    }

    // Snapshot keys travel in the request metadata (set by /run) and are taken out before the model sees it.
    let snapKey: string | undefined;
    let attempt: string | undefined;
    if (cfg.snapDir && body.metadata && typeof body.metadata === "object") {
      const md = { ...(body.metadata as Record<string, string>) };
      const ti = md.task_index;
      attempt = md.attempt;
      const ri = md.rollout_index;
      delete md.task_index;
      delete md.attempt;
      delete md.rollout_index;
      body.metadata = md;
      if (ti !== undefined && ti !== null) snapKey = ri !== undefined && ri !== null && ri !== "" ? `${ti}_r${ri}` : String(ti);
    }
    const snapDir = () => join(cfg.snapDir!, `sample_${snapKey ?? "None"}`);
    const snapshot = (label: string) => {
      if (cfg.snapDir) writeJsonl(snapDir(), `attempt_${attempt ?? "None"}_${label}.jsonl`, [...input, ...outputs].map((m) => JSON.stringify(m)));
    };

    let resetCount = 0;
    const resetSteps: number[] = [];
    let numToolCalls = 0;
    const canReset = () => cfg.maxResetCount === null || resetCount < cfg.maxResetCount;
    const warnLast = () => {
      const tail = outputs[outputs.length - 1];
      if (tail?.type !== "function_call_output") return;
      const warned = { ...tail, output: String(tail.output) + preResetBoardNudge(cfg.contextResetKeepRounds) };
      outputs = [...outputs.slice(0, -1), warned];
      if (full.length > 0) full = [...full.slice(0, -1), warned];
    };
    const afterReset = () => (cfg.contextResetKeepRounds > 0 ? extractLastRounds(outputs, cfg.contextResetKeepRounds) : []);
    const path = modelPath(ctx);

    for (;;) {
      step++;
      if (outputs.length > 0) outputs = compactOldToolMessages(outputs, cfg.keepRounds);
      let request: Obj = { ...body, input: [...input, ...outputs] };

      if (cfg.tokenizeBeforeCall) {
        const tokens = await opts.countTokens!(request, ctx.signal);
        if (threshold && tokens > threshold && canReset()) {
          if (cfg.progress && !armed) {
            // One warned turn to save the board; the armed reset fires at the next pre-call check.
            armed = true;
            warningSteps.push(step);
            log.info(`(${instanceName}) [browsecomp][progress] step=${step} pre-call tokens=${tokens} > ${threshold} — board-save warning injected`);
            warnLast();
            request = { ...body, input: [...input, ...outputs] };
          } else {
            resetCount++;
            resetSteps.push(step);
            armed = false;
            snapshot(`reset_${resetCount}`);
            if (cfg.progress) render();
            // Keep the most recent rounds that still fit under the threshold.
            let chosen: Obj[] = [];
            for (let n = cfg.contextResetKeepRounds; n >= 0; n--) {
              const cand = extractLastRounds(outputs, n);
              if ((await opts.countTokens!({ ...body, input: [...input, ...cand] }, ctx.signal)) <= threshold) {
                chosen = cand;
                break;
              }
            }
            outputs = chosen;
            continue;
          }
        }
      }

      const answer = await callModel(client, cfg.modelServer, path, request, modelCookies, ctx.signal);
      modelCookies = answer.cookies;
      last = answer.json;
      const promptTokens = Number((last.usage as Obj | null | undefined)?.input_tokens ?? 0);
      let nudgeDue = false;
      if (threshold && promptTokens > threshold && canReset()) {
        if (cfg.progress && !armed) {
          // Process this turn normally, warn after its tool results, reset at the end of the next one.
          armed = true;
          nudgeDue = true;
          warningSteps.push(step);
          log.info(`(${instanceName}) [browsecomp][progress] step=${step} tokens=${promptTokens} > ${threshold} — board-save warning due`);
        } else if (!cfg.progress) {
          // This completion is discarded: the next call starts from the kept rounds.
          resetCount++;
          resetSteps.push(step);
          snapshot(`reset_${resetCount}`);
          outputs = afterReset();
          continue;
        }
      }

      const output = (last.output as Obj[]) ?? [];
      outputs = [...outputs, ...output];
      full = [...full, ...output];
      usage = addUsage(usage, last.usage as Usage | null | undefined);
      if ((last.incomplete_details as Obj | null | undefined)?.reason === "max_output_tokens") break;
      const calls = output.filter((o) => o.type === "function_call");
      if (calls.length === 0 && output.some((o) => o.type === "message" && o.role === "assistant")) break;

      for (const fc of calls) {
        numToolCalls++;
        const name = String(fc.name);
        let toolOutput: string;
        let args: unknown;
        let badArgs: Error | undefined;
        try {
          args = pyJsonLoads(fc.arguments);
        } catch (e) {
          badArgs = e as Error;
        }
        if (badArgs) {
          // Told to the model, never sent: one bad call must not end the rollout.
          log.warn(`(${instanceName}) [browsecomp][tool_fail] step=${step} tool=${name} status=bad_arguments_json error=${badArgs.message}`);
          toolOutput = `Invalid JSON in the arguments of your '${name}' tool call: ${badArgs.message}. Re-issue the call with valid JSON arguments.`;
        } else if (cfg.progress && name === "update_progress") {
          // The board is the agent's own per-trajectory state, not a resources-server tool.
          const raw = args && typeof args === "object" && !Array.isArray(args) ? (args as Obj).board : undefined;
          board = raw === undefined ? "" : pyStr(raw);
          toolOutput = progressToolOutput(board);
        } else {
          const res = await client.call(cfg.resourcesServer, `/${encodeURIComponent(name)}`, { json: args, cookies: resCookies, signal: ctx.signal });
          // A tool error is a valid answer for the model to see.
          resCookies = res.cookies;
          toolOutput = unwrapResultsString(res.text);
          if (res.status >= 400) log.warn(`(${instanceName}) [browsecomp][tool_fail] step=${step} tool=${name} status=${res.status} body=${toolOutput.slice(0, 300)}`);
        }
        if (cfg.nudgeSteps) toolOutput += turnsRemaining(step, cfg.maxSteps);
        const item = { type: "function_call_output", call_id: fc.call_id, output: toolOutput };
        outputs = [...outputs, item];
        full = [...full, item];
      }

      if (nudgeDue) warnLast();
      if (cfg.nudgeSteps && calls.length > 0) {
        const note = milestoneNudge(step, cfg.maxSteps);
        const tail = outputs[outputs.length - 1];
        if (note && tail) {
          const nudged = { ...tail, output: String(tail.output) + note };
          outputs = [...outputs.slice(0, -1), nudged];
          if (full.length > 0) full = [...full.slice(0, -1), nudged];
        }
      }
      if (armed && !nudgeDue && !cfg.tokenizeBeforeCall) {
        resetCount++;
        resetSteps.push(step);
        armed = false;
        snapshot(`reset_${resetCount}`);
        render();
        outputs = afterReset();
      }
      if (cfg.maxSteps && step >= cfg.maxSteps) {
        log.info(`(${instanceName}) [browsecomp][max_steps] step=${step} max_steps=${cfg.maxSteps}`);
        break;
      }
    }

    if (cfg.progress) full = recoverBoardAnswer(full, board);
    if (cfg.snapDir) {
      snapshot("final");
      const header = pyJsonDumps({ type: "metadata", task_index: snapKey ?? null, attempt: attempt ?? null, reset_count: resetCount, num_tool_calls: numToolCalls, reset_steps: resetSteps, pre_reset_warning_steps: warningSteps });
      writeJsonl(snapDir(), `attempt_${attempt ?? "None"}_trajectory.jsonl`, [header, ...[...input, ...full].map((m) => JSON.stringify(m))]);
    }
    Object.assign(ctx.responseCookies, resCookies, modelCookies);
    return { ...last!, output: full, usage, reset_count: resetCount, num_tool_calls: numToolCalls, pre_reset_warning_steps: warningSteps };
  }

  async function run(ctx: RequestContext): Promise<unknown> {
    const row = runRow.parse(ctx.body) as Obj & { responses_create_params: Obj };
    const rs = cfg.resourcesServer;
    let lastResponse: unknown;
    try {
      const seed = ok(await client.call(rs, PATHS.seedSession, { json: row, cookies: ctx.cookies, signal: ctx.signal }), `${rs}${PATHS.seedSession}`);
      let cookies = seed.cookies;
      const self = selfPath(ctx);
      for (let attempt = 0; attempt < cfg.maxRunRetries; attempt++) {
        let params = row.responses_create_params;
        if (cfg.snapDir) {
          const md: Record<string, string> = { ...((params.metadata as Record<string, string> | null | undefined) ?? {}), task_index: String(row._ng_task_index ?? questionId(params)), attempt: String(attempt) };
          if (row._ng_rollout_index !== undefined && row._ng_rollout_index !== null) md.rollout_index = String(row._ng_rollout_index);
          params = { ...params, metadata: md };
          row.responses_create_params = params;
        }
        const res = ok(await client.call(instanceName, self, { json: params, cookies, signal: ctx.signal }), `${instanceName}${self}`);
        cookies = res.cookies;
        const json = innerJson(res, `agent ${instanceName}`) as Obj;
        lastResponse = json;
        // An answer that is empty once its <think> blocks are gone is retried while attempts remain.
        if (!withoutThink(lastMessageText((json.output as Obj[]) ?? [])) && attempt !== cfg.maxRunRetries - 1) {
          log.info(`(${instanceName}) [browsecomp][retry] attempt=${attempt + 1}/${cfg.maxRunRetries} reason=empty_output_after_think_strip`);
          continue;
        }
        const verify = ok(await client.call(rs, PATHS.verify, { json: { ...row, response: json }, cookies, signal: ctx.signal }), `${rs}${PATHS.verify}`);
        return innerJson(verify, `resources server ${rs}`);
      }
      throw new Error("unreachable: the last attempt always verifies");
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      const infra = isInfrastructureFailure(e);
      const why = `${errorTypeName(e)}: ${errorText(e).slice(0, 300)}`;
      log.warn(`(${instanceName}) [browsecomp][abort] class=${infra ? "infra" : "sample"} error=${why}`);
      // Contained: one sample's failure must not end the collection. A harness failure is not
      // this sample's fault, so its row is not written and a resume runs it again.
      const routing = infra ? { _ng_no_persist: true, _ng_failure_class: "kill_shaped" } : {};
      return { ...row, response: lastResponse ?? emptyResponse("resp_agent_error", cfg.modelServer, { tool_choice: "none" }), reward: 0.0, agent_error: why, ...routing };
    }
  }

  return {
    className: CLASS_NAME,
    instanceName,
    routes: [{ method: "POST", path: "/v1/responses", handler: responses }, { method: "POST", path: PATHS.run, handler: run }, proxiedAggregateMetricsRoute(client, cfg.resourcesServer)],
    sessions: true,
    rolloutPrefix: "model",
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_agents",
  implementation: "browsecomp_agent",
  className: CLASS_NAME,
  checkConfig: (ctx) => void browsecompConfig(ctx),
  async create(ctx) {
    const config = browsecompConfig(ctx);
    const countTokens = config.tokenizeBeforeCall ? vllmTokenCounter(ctx, config.modelServer, "save_model_call_using_vllm_tokenize_endpoint") : undefined;
    return browsecompAgentApp({ instanceName: ctx.instanceName, config, client: clientsFor(ctx).inner, countTokens });
  },
};
