/**
 * responses_api_models/azure_openai_model: Responses → Chat Completions with the vLLM converter,
 * Azure's chat completions endpoint (`/openai/deployments/<model>/chat/completions?api-version=…`,
 * `api-key` header), and the answer rebuilt as a Responses object.
 */
import { modelCallCaptureFor } from "../../servers/model-capture.ts";
import { modelServerApp } from "../../servers/model.ts";
import { responsesToChatParams } from "../../servers/vllm-request.ts";
import { chatToResponse } from "../../servers/vllm-response.ts";
import { clientsFor, obj, str } from "../_support.ts";
import type { BuiltinComponent } from "../registry.ts";
import { Endpoint } from "./_endpoint.ts";
import { ConfigError } from "../../errors.ts";

const CLASS_NAME = "AzureOpenAIModelServer";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_models",
  implementation: "azure_openai_model",
  className: CLASS_NAME,
  async create(ctx) {
    const base = str(ctx, "openai_base_url");
    const model = str(ctx, "openai_model");
    const apiVersion = obj(ctx, "default_query")?.["api-version"];
    if (!base) throw new ConfigError(`${ctx.instanceName}: openai_base_url is not set (the Azure endpoint, usually \${policy_base_url})`, { key: "openai_base_url", hint: "set policy_base_url in env.yaml to the Azure endpoint" });
    if (!model) throw new ConfigError(`${ctx.instanceName}: openai_model is not set (the Azure deployment name)`, { key: "openai_model", hint: "set policy_model_name in env.yaml to the deployment name" });
    if (apiVersion === undefined || apiVersion === null || apiVersion === "???") throw new ConfigError(`${ctx.instanceName}: default_query.api-version is not set (e.g. 2024-10-21)`, { key: "default_query.api-version", hint: "set policy_api_version in env.yaml (e.g. 2024-10-21)" });
    const headers: Record<string, string> = {};
    const key = str(ctx, "openai_api_key");
    if (key) headers["api-key"] = key;
    const max = ctx.config.num_concurrent_requests;
    const endpoint = new Endpoint(clientsFor(ctx).http, `${base.replace(/\/+$/, "")}/openai/deployments/${encodeURIComponent(model)}`, headers, typeof max === "number" ? max : 8);
    const query = `?api-version=${encodeURIComponent(String(apiVersion))}`;
    return modelServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      capture: modelCallCaptureFor(ctx.globalConfig, ctx.instanceName),
      backend: {
        async responses(params, rctx) {
          const chat = await endpoint.postOk("/chat/completions", { ...responsesToChatParams(params), model }, rctx.signal, query);
          return chatToResponse(chat, params, { usesReasoningParser: false, model });
        },
        async chatCompletions(params, rctx) {
          return endpoint.postOk("/chat/completions", { ...params, model }, rctx.signal, query);
        },
      },
    });
  },
};
