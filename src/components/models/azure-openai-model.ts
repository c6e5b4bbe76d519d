/**
 * responses_api_models/azure_openai_model: Responses → Chat Completions with the vLLM converter,
 * Azure's chat completions endpoint (`/openai/deployments/<model>/chat/completions?api-version=…`,
 * `api-key` header), and the answer rebuilt as a Responses object.
 */
import { modelCallCaptureFor } from "../../servers/model-capture.ts";
import { tokenCaptureFor } from "../../servers/token-capture/capture.ts";
import { modelServerApp } from "../../servers/model.ts";
import { responsesToChatParams } from "../../servers/vllm-request.ts";
import { chatToResponse } from "../../servers/vllm-response.ts";
import { clientsFor, obj, str } from "../_support.ts";
import { ConfigError } from "../../errors.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { Endpoint } from "./_endpoint.ts";

const CLASS_NAME = "AzureOpenAIModelServer";

/** The Azure endpoint, deployment and API version of a leaf; a ConfigError naming the key when one is missing. */
function azureSettings(ctx: Pick<ComponentContext, "instanceName" | "config">): { base: string; model: string; apiVersion: string } {
  const base = str(ctx, "openai_base_url");
  const model = str(ctx, "openai_model");
  const apiVersion = obj(ctx, "default_query")?.["api-version"];
  const where = `server '${ctx.instanceName}'`;
  if (!base) throw new ConfigError(`${where}: openai_base_url is not set (the Azure endpoint)`, { key: "openai_base_url", hint: "set +policy_base_url=https://<resource>.openai.azure.com" });
  if (!model) throw new ConfigError(`${where}: openai_model is not set (the Azure deployment name)`, { key: "openai_model", hint: "set +policy_model_name=<deployment>" });
  if (apiVersion === undefined || apiVersion === null || apiVersion === "" || apiVersion === "???") {
    throw new ConfigError(`${where}: default_query.api-version is not set`, { key: "default_query.api-version", hint: "set +policy_api_version=2024-10-21 (or the version your Azure resource serves)" });
  }
  return { base, model, apiVersion: String(apiVersion) };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_models",
  implementation: "azure_openai_model",
  className: CLASS_NAME,
  checkConfig: (ctx) => void azureSettings(ctx),
  async create(ctx) {
    const { base, model, apiVersion } = azureSettings(ctx);
    const headers: Record<string, string> = {};
    const key = str(ctx, "openai_api_key");
    if (key) headers["api-key"] = key;
    const max = ctx.config.num_concurrent_requests;
    const endpoint = new Endpoint(clientsFor(ctx).http, `${base.replace(/\/+$/, "")}/openai/deployments/${encodeURIComponent(model)}`, headers, typeof max === "number" ? max : 8);
    const query = `?api-version=${encodeURIComponent(String(apiVersion))}`;
    return modelServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      capture: modelCallCaptureFor(ctx.globalConfig, ctx.instanceName), tokens: tokenCaptureFor(ctx.globalConfig, ctx.instanceName),
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
