/**
 * The Gymnasium-style resources server kind (upstream `resources_servers/gymnasium`, `GymnasiumServer`):
 * `POST /reset` → `{observation, info}`, `POST /step` → `{observation, reward, terminated, truncated, info}`,
 * `POST /aggregate_metrics`. There is no `/verify`: the reward comes from the steps, summed by
 * `gymnasium_agent`. Every row field other than `responses_create_params` (and `response` on a step)
 * reaches the component as `metadata` (upstream's pydantic `model_extra`). Per-episode state is keyed
 * by the session cookie's id and dropped when a step ends the episode.
 */
import Type from "typebox";
import type { Route, ServerApp } from "../runtime/http/http-types.ts";
import { computeAggregateMetrics, type MetricHooks } from "../verify/aggregate-metrics.ts";
import { nameFailure } from "./failure-origin.ts";
import { NeMoGymResponse, ResponseCreateParams } from "./openai-schemas.ts";
import { PATHS } from "./episode-protocol.ts";
import { bodyValidator } from "./validation.ts";
import type { ResourcesCall } from "./resources.ts";

type Obj = Record<string, unknown>;

/** What `/reset` answers: the first observation (appended to the prompt as a user message) and info. */
export interface ResetResult {
  observation: string | null;
  info: Obj;
}

/** What `/step` answers (Gymnasium's 5-tuple). */
export interface StepResult {
  observation: string | null;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Obj;
}

/** What a Gymnasium-style component supplies. */
export interface GymnasiumSpec {
  className: string;
  instanceName: string;
  /** Start an episode; default: no observation, empty info (the dataset prompt is used as is). */
  reset?(metadata: Obj, call: ResourcesCall): ResetResult | Promise<ResetResult>;
  /** Apply the model's response (`action`) to the episode. */
  step(action: Obj, metadata: Obj, call: ResourcesCall): StepResult | Promise<StepResult>;
  /** Forget a session's state (called when a step terminates or truncates the episode). */
  closeSession?(sessionId: string): void;
  /** Upstream `compute_metrics(tasks)` for `/aggregate_metrics`. */
  computeMetrics?: MetricHooks["computeMetrics"];
  /** Upstream `get_key_metrics(agent_metrics)`. */
  keyMetrics?: MetricHooks["keyMetrics"];
}

/** Upstream `extract_text`: every output_text of every message item, joined with nothing. */
export function extractText(response: Obj): string {
  const parts: string[] = [];
  for (const item of (response.output as Obj[] | undefined) ?? []) {
    if (item?.type !== "message") continue;
    const content = item.content;
    if (typeof content === "string") parts.push(content);
    else if (Array.isArray(content)) for (const c of content as Obj[]) if (c?.type === "output_text" && typeof c.text === "string") parts.push(c.text);
  }
  return parts.join("");
}

/** Upstream `GymnasiumServer.tool_output`: the `{call_id, output}` pair gymnasium_agent turns into a function_call_output. */
export function toolOutput(call: Obj, result: unknown, dumps: (v: unknown) => string): { call_id: unknown; output: string } {
  return { call_id: call.call_id, output: dumps(result) };
}

const resetBody = bodyValidator(Type.Object({ responses_create_params: ResponseCreateParams }, { additionalProperties: true }));
const stepBody = bodyValidator(Type.Object({ responses_create_params: ResponseCreateParams, response: NeMoGymResponse }, { additionalProperties: true }));
const aggBody = bodyValidator(Type.Object({ verify_responses: Type.Array(Type.Record(Type.String(), Type.Unknown())) }, { additionalProperties: true }));

function without(body: Obj, keys: string[]): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(body)) if (!keys.includes(k)) out[k] = v;
  return out;
}

function checkStep(r: StepResult): StepResult {
  if (typeof r.reward !== "number" || !Number.isFinite(r.reward)) throw new Error(`step produced a non-numeric reward ${String(r.reward)}`);
  return r;
}

/** Build a Gymnasium-style resources server. */
export function gymnasiumServerApp(spec: GymnasiumSpec): ServerApp {
  const routes: Route[] = [
    {
      method: "POST",
      path: "/reset",
      handler: async (ctx) => {
        const body = resetBody.parse(ctx.body);
        const metadata = without(body, ["responses_create_params"]);
        try {
          const r = spec.reset ? await spec.reset(metadata, { sessionId: ctx.sessionId, ctx }) : { observation: null, info: {} };
          return { observation: r.observation, info: r.info };
        } catch (e) {
          throw nameFailure(e, spec.className, spec.instanceName);
        }
      },
    },
    {
      method: "POST",
      path: "/step",
      handler: async (ctx) => {
        const body = stepBody.parse(ctx.body);
        const metadata = without(body, ["responses_create_params", "response"]);
        let r: StepResult;
        try {
          r = checkStep(await spec.step(body.response, metadata, { sessionId: ctx.sessionId, ctx }));
        } catch (e) {
          throw nameFailure(e, spec.className, spec.instanceName);
        }
        if (r.terminated || r.truncated) spec.closeSession?.(ctx.sessionId);
        return { observation: r.observation, reward: r.reward, terminated: r.terminated, truncated: r.truncated, info: r.info };
      },
    },
    {
      method: "POST",
      path: PATHS.aggregateMetrics,
      handler: (ctx) => computeAggregateMetrics(aggBody.parse(ctx.body).verify_responses, { computeMetrics: spec.computeMetrics, keyMetrics: spec.keyMetrics }),
    },
  ];
  return { className: spec.className, instanceName: spec.instanceName, routes, sessions: true, rolloutPrefix: "resources" };
}
