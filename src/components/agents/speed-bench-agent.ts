/**
 * responses_api_agents/speed_bench_agent: SPEED-Bench's multi-turn replay. The trailing user
 * messages of `input` are played one turn at a time (turn 1 → reply 1 → turn 1 + reply 1 + turn 2 →
 * reply 2 …), one model call per turn, so speculative-decoding counters see per-turn prompts as
 * NeMo Skills measures them. Leading system/developer/assistant messages are kept as the preamble;
 * outputs and usage accumulate over the turns. No tools are executed.
 */
import { InnerServerError, type RequestContext, type ServerApp } from "../../runtime/http/http-types.ts";
import { innerJson, type InnerClient } from "../../servers/inner-client.ts";
import { NeMoGymResponse, ResponseCreateParams } from "../../servers/openai-schemas.ts";
import { pyError } from "../../servers/py-error.ts";
import { bodyValidator } from "../../servers/validation.ts";
import { Compile } from "typebox/compile";
import { clientsFor, refName } from "../_support.ts";
import { addUsage, type Usage } from "./_usage.ts";
import type { BuiltinComponent } from "../registry.ts";
import { seedLoopVerifyRoutes } from "./_seed-loop-verify.ts";

const CLASS_NAME = "SpeedBenchAgent";
type Obj = Record<string, unknown>;
const createParams = bodyValidator(ResponseCreateParams);
const validResponse = Compile(NeMoGymResponse);

/** Indices of the contiguous user messages at the end of `msgs` (the last message alone when none is a user's). */
export function trailingUserTurns(msgs: Obj[]): number[] {
  const out: number[] = [];
  for (let i = msgs.length - 1; i >= 0 && msgs[i]!.role === "user"; i--) out.unshift(i);
  if (out.length === 0 && msgs.length > 0) out.push(msgs.length - 1);
  return out;
}

/** The assistant text of a Responses object (output_text parts of assistant messages, joined). */
export function assistantText(resp: Obj): string {
  let text = "";
  for (const item of (resp.output as Obj[]) ?? []) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    for (const c of (item.content as Obj[]) ?? []) if (c.type === "output_text") text += String(c.text ?? "");
  }
  return text;
}


/** Build the speed_bench_agent server. */
export function speedBenchAgentApp(opts: { instanceName: string; resourcesServer: string; modelServer: string; client: InnerClient }): ServerApp {
  const { client, modelServer } = opts;
  async function responses(ctx: RequestContext): Promise<Obj> {
    const body = createParams.parse(ctx.body);
    const msgs: Obj[] = typeof body.input === "string" ? [{ role: "user", content: body.input }] : [...body.input];
    const turns = trailingUserTurns(msgs);
    const running = msgs.slice(0, (turns[0] ?? -1) + 1);
    const modelPath = ctx.rolloutId ? `/ng-rollout/${ctx.rolloutId}${ctx.trainingTokenCapture ? "/training-token-capture" : ""}/v1/responses` : "/v1/responses";
    let modelCookies: Record<string, string> = {};
    const outputs: Obj[] = [];
    let usage: Usage | null = null;
    let last: Obj = {};
    for (let t = 0; t < Math.max(turns.length, 1); t++) {
      if (t > 0) running.push({ role: "assistant", content: assistantText(last) }, msgs[turns[t]!]!);
      const res = await client.call(modelServer, modelPath, { json: { ...body, input: running }, cookies: modelCookies, signal: ctx.signal });
      if (res.status < 200 || res.status >= 300) throw new InnerServerError(res.status, res.text, `${modelServer}${modelPath}`);
      const json = innerJson(res, `model server ${modelServer}`);
      if (!validResponse.Check(json)) throw pyError("RuntimeError", `Received an invalid response from model server: ${res.text}`);
      last = json as Obj;
      modelCookies = res.cookies;
      outputs.push(...((last.output as Obj[]) ?? []));
      usage = addUsage(usage, last.usage as Usage | null | undefined);
    }
    // The resources server's cookies (so /verify finds the session) and the model's.
    Object.assign(ctx.responseCookies, ctx.cookies, modelCookies);
    return { ...last, output: outputs, usage };
  }
  return {
    className: CLASS_NAME,
    instanceName: opts.instanceName,
    routes: [{ method: "POST", path: "/v1/responses", handler: responses }, ...seedLoopVerifyRoutes({ instanceName: opts.instanceName, resourcesServer: opts.resourcesServer, client })],
    sessions: true,
    rolloutPrefix: "model",
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_agents",
  implementation: "speed_bench_agent",
  className: CLASS_NAME,
  checkConfig: (ctx) => {
    refName(ctx, "resources_server");
    refName(ctx, "model_server");
  },
  async create(ctx) {
    return speedBenchAgentApp({ instanceName: ctx.instanceName, resourcesServer: refName(ctx, "resources_server"), modelServer: refName(ctx, "model_server"), client: clientsFor(ctx).inner });
  },
};
