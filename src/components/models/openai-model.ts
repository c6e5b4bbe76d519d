/**
 * responses_api_models/openai_model (runtime.md §9.2): Responses pass-through.
 * `extra_body ∪ request` (request keys win), `model` forced to `openai_model`, optional removal
 * of input reasoning items, an optional `max_concurrent_requests` cap.
 */
import { Compile } from "typebox/compile";
import { modelCallCaptureFor } from "../../servers/model-capture.ts";
import { tokenCaptureFor } from "../../servers/token-capture/capture.ts";
import { modelServerApp } from "../../servers/model.ts";
import { NeMoGymResponse } from "../../servers/openai-schemas.ts";
import { pyError } from "../../servers/py-error.ts";
import { bool, clientsFor, obj, str } from "../_support.ts";
import type { BuiltinComponent } from "../registry.ts";
import { authHeaders, Endpoint } from "./_endpoint.ts";
import { ConfigError } from "../../errors.ts";

const CLASS_NAME = "SimpleModelServer";
const validResponse = Compile(NeMoGymResponse);

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_models",
  implementation: "openai_model",
  className: CLASS_NAME,
  async create(ctx) {
    const base = str(ctx, "openai_base_url");
    if (!base) throw new ConfigError(`${ctx.instanceName}: openai_base_url is not set (usually \${policy_base_url} from env.yaml)`, { key: "openai_base_url", hint: "set policy_base_url in env.yaml, or pass --model-url URL" });
    const model = str(ctx, "openai_model");
    const extra = obj(ctx, "extra_body") ?? {};
    const dropReasoning = bool(ctx, "drop_input_reasoning_items", false);
    const max = ctx.config.max_concurrent_requests;
    const endpoint = new Endpoint(clientsFor(ctx).http, base, authHeaders(str(ctx, "openai_api_key"), obj(ctx, "openai_default_headers")), typeof max === "number" ? max : null);
    return modelServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      capture: modelCallCaptureFor(ctx.globalConfig, ctx.instanceName), tokens: tokenCaptureFor(ctx.globalConfig, ctx.instanceName),
      backend: {
        async responses(params, rctx) {
          const body: Record<string, unknown> = { ...extra, ...params };
          if (model) body.model = model;
          if (dropReasoning && Array.isArray(body.input)) body.input = (body.input as Record<string, unknown>[]).filter((i) => i.type !== "reasoning");
          const json = await endpoint.postOk("/responses", body, rctx.signal);
          if (!validResponse.Check(json)) throw pyError("RuntimeError", `the endpoint ${base}/responses returned something that is not a Responses object: ${JSON.stringify(json).slice(0, 500)}`);
          return json;
        },
        async chatCompletions(params, rctx) {
          const body: Record<string, unknown> = { ...extra, ...params };
          if (model) body.model = model;
          return endpoint.postOk("/chat/completions", body, rctx.signal);
        },
      },
    });
  },
};
