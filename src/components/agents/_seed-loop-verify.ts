/**
 * The `/run` and `/aggregate_metrics` routes most agents share (runtime.md §8): seed the session on
 * the resources server, call this agent's own `/v1/responses` with the row's create params (the
 * rollout prefix kept), verify on the same session, and proxy `/aggregate_metrics`. An agent that
 * differs only in its `/v1/responses` loop builds on this.
 */
import Type from "typebox";
import { InnerServerError, RawJson, type RequestContext, type Route } from "../../runtime/http/http-types.ts";
import { PATHS } from "../../servers/episode-protocol.ts";
import { innerJson, type InnerClient, type InnerResponse } from "../../servers/inner-client.ts";
import { ResponseCreateParams } from "../../servers/openai-schemas.ts";
import { bodyValidator } from "../../servers/validation.ts";

type Obj = Record<string, unknown>;
const runRow = bodyValidator(Type.Object({ responses_create_params: ResponseCreateParams }, { additionalProperties: true }));

function ok(res: InnerResponse, url: string): InnerResponse {
  if (res.status < 200 || res.status >= 300) throw new InnerServerError(res.status, res.text, url);
  return res;
}

/** `/run` (seed → own `/v1/responses` → verify) and `/aggregate_metrics` for an agent named `instanceName`. */
export function seedLoopVerifyRoutes(opts: { instanceName: string; resourcesServer: string; client: InnerClient }): Route[] {
  const { instanceName, resourcesServer, client } = opts;
  async function run(ctx: RequestContext): Promise<RawJson> {
    const row = runRow.parse(ctx.body);
    const seed = ok(await client.call(resourcesServer, PATHS.seedSession, { json: row, cookies: ctx.cookies, signal: ctx.signal }), `${resourcesServer}${PATHS.seedSession}`);
    const path = ctx.rolloutId ? `/ng-rollout/${ctx.rolloutId}/v1/responses` : "/v1/responses";
    const loop = ok(await client.call(instanceName, path, { json: row.responses_create_params, cookies: seed.cookies, signal: ctx.signal }), `${instanceName}${path}`);
    const response = innerJson(loop, `agent ${instanceName}`);
    const verify = ok(await client.call(resourcesServer, PATHS.verify, { json: { ...row, response }, cookies: loop.cookies, signal: ctx.signal }), `${resourcesServer}${PATHS.verify}`);
    innerJson(verify, `resources server ${resourcesServer}`);
    // Echoed as received: no second serialisation of a possibly large verify answer.
    return new RawJson(verify.text);
  }
  return [
    { method: "POST", path: PATHS.run, handler: run },
    {
      method: "POST",
      path: PATHS.aggregateMetrics,
      handler: async (ctx) => innerJson(ok(await client.call(resourcesServer, PATHS.aggregateMetrics, { json: ctx.body, signal: ctx.signal }), `${resourcesServer}${PATHS.aggregateMetrics}`), `resources server ${resourcesServer}`),
    },
  ];
}
