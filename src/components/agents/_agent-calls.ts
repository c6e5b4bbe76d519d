/**
 * The inner calls the ported loop agents (critpt, scicode, finance, browsecomp) share: the
 * rollout-prefixed paths, a non-2xx answer raised upstream-style, a model answer checked against
 * the Responses schema, and the text an error carries (message plus the inner body, where a model
 * server's "context length" complaint lives).
 */
import Type from "typebox";
import { Compile } from "typebox/compile";
import { InnerServerError, type RequestContext, type Route } from "../../runtime/http/http-types.ts";
import { PATHS } from "../../servers/episode-protocol.ts";
import { bodyValidator } from "../../servers/validation.ts";
import { computeAggregateMetrics, type MetricHooks } from "../../verify/aggregate-metrics.ts";
import { innerJson, type InnerClient, type InnerResponse } from "../../servers/inner-client.ts";
import { NeMoGymResponse } from "../../servers/openai-schemas.ts";
import { pyError } from "../../servers/py-error.ts";

type Obj = Record<string, unknown>;
const validResponse = Compile(NeMoGymResponse);

/** `res` when 2xx, else an InnerServerError (the agent's 500 body carries the inner body). */
export function ok(res: InnerResponse, url: string): InnerResponse {
  if (res.status < 200 || res.status >= 300) throw new InnerServerError(res.status, res.text, url);
  return res;
}

/** The model server path of this request (rollout-prefixed, with training-token capture when asked). */
export function modelPath(ctx: RequestContext): string {
  return ctx.rolloutId ? `/ng-rollout/${ctx.rolloutId}${ctx.trainingTokenCapture ? "/training-token-capture" : ""}/v1/responses` : "/v1/responses";
}

/** The agent's own `/v1/responses` path for a `/run` (rollout prefix kept). */
export function selfPath(ctx: RequestContext): string {
  return ctx.rolloutId ? `/ng-rollout/${ctx.rolloutId}/v1/responses` : "/v1/responses";
}

/** A model answer: 2xx, JSON, and a valid Responses object (upstream's `NeMoGymResponse.model_validate`). */
export function modelAnswer(res: InnerResponse, server: string, path: string): Obj {
  const json = innerJson(ok(res, `${server}${path}`), `model server ${server}`);
  if (!validResponse.Check(json)) throw pyError("RuntimeError", `Received an invalid response from model server: ${res.text}`);
  return json as Obj;
}

/** Call a model server once and return its checked answer with the cookies it set. */
export async function callModel(client: InnerClient, server: string, path: string, body: unknown, cookies: Record<string, string>, signal: AbortSignal): Promise<{ json: Obj; cookies: Record<string, string> }> {
  const res = await client.call(server, path, { json: body, cookies, signal });
  return { json: modelAnswer(res, server, path), cookies: res.cookies };
}

/** Everything an error says: its message and, for an inner non-2xx answer, that answer's body. */
export function errorText(e: unknown): string {
  if (e instanceof InnerServerError) return `${e.message} ${e.body}`;
  return e instanceof Error ? e.message : String(e);
}

/** Python's `type(e).__name__` for an error (our errors carry the Python name where upstream raises one). */
export function errorTypeName(e: unknown): string {
  if (e instanceof InnerServerError) return "ClientResponseError";
  return e instanceof Error ? e.name : "Exception";
}

/** The concatenated `output_text` parts of every message in a Responses object (upstream `output_text`). */
export function outputText(resp: Obj): string {
  let text = "";
  for (const item of (resp.output as Obj[] | undefined) ?? []) {
    if (item.type !== "message" || !Array.isArray(item.content)) continue;
    for (const c of item.content as Obj[]) if (c.type === "output_text") text += String(c.text ?? "");
  }
  return text;
}

/** A minimal valid Responses object (upstream's placeholder when no model answer exists). */
export function emptyResponse(id: string, model: string, extra: Obj = {}): Obj {
  return { id, created_at: 0.0, model, object: "response", output: [], parallel_tool_calls: false, tool_choice: "auto", tools: [], ...extra };
}

const aggBody = bodyValidator(Type.Object({ verify_responses: Type.Array(Type.Record(Type.String(), Type.Unknown())) }, { additionalProperties: true }));

/** `/aggregate_metrics` computed on the agent itself (upstream's agent default), with optional metric hooks. */
export function localAggregateMetricsRoute(hooks: MetricHooks = {}): Route {
  return { method: "POST", path: PATHS.aggregateMetrics, handler: (ctx) => computeAggregateMetrics(aggBody.parse(ctx.body).verify_responses, hooks) };
}

/** `/aggregate_metrics` proxied to the resources server (finance_agent, browsecomp_agent). */
export function proxiedAggregateMetricsRoute(client: InnerClient, resourcesServer: string): Route {
  return {
    method: "POST",
    path: PATHS.aggregateMetrics,
    handler: async (ctx) => innerJson(ok(await client.call(resourcesServer, PATHS.aggregateMetrics, { json: ctx.body, signal: ctx.signal }), `${resourcesServer}${PATHS.aggregateMetrics}`), `resources server ${resourcesServer}`),
  };
}
