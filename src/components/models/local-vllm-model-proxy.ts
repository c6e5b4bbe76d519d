/**
 * responses_api_models/local_vllm_model_proxy: a vllm_model that borrows the endpoint of another
 * model server (upstream's local_vllm_model, which launches vLLM on GPUs), so two configs can share
 * one engine. At start it waits until `model_server.name` answers, asks it for
 * `GET /get_inner_vllm_config` (`base_url`, `api_key`, `model`) and then serves as vllm_model with
 * every other key of its own leaf.
 */
import { ConfigError, GymError } from "../../errors.ts";
import { log } from "../../log.ts";
import { clientsFor, refName } from "../_support.ts";
import type { BuiltinComponent } from "../registry.ts";
import { vllmOptions, vllmServerApp } from "./vllm-model.ts";

const CLASS_NAME = "LocalVLLMModelProxyServer";
type Obj = Record<string, unknown>;
/** Between attempts while the referenced server starts (upstream waits 10 s; vLLM start-up takes minutes either way). */
const POLL_MS = 2000;

/** The engine settings a local_vllm_model reports; a GymError naming the server when the answer is not one. */
export function innerVllmConfig(json: unknown, from: string): { base_url: string | string[]; api_key: string; model: string } {
  const o = (json && typeof json === "object" ? json : {}) as Obj;
  const urlOk = typeof o.base_url === "string" || (Array.isArray(o.base_url) && o.base_url.every((u) => typeof u === "string"));
  if (!urlOk || typeof o.model !== "string") {
    throw new GymError(`${from}/get_inner_vllm_config did not answer {base_url, api_key, model}: ${JSON.stringify(json).slice(0, 300)}`, { hint: "model_server must name a local_vllm_model (or another server exposing /get_inner_vllm_config)" });
  }
  return { base_url: o.base_url as string | string[], api_key: typeof o.api_key === "string" ? o.api_key : "dummy", model: o.model };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_models",
  implementation: "local_vllm_model_proxy",
  className: CLASS_NAME,
  checkConfig: (ctx) => {
    const ref = ctx.config.model_server as Obj | undefined;
    if (!ref || typeof ref.name !== "string" || ref.name === "" || ref.name === "???") {
      throw new ConfigError(`${ctx.instanceName}: model_server.name is not set (the local_vllm_model instance whose engine this proxy shares)`, { key: "model_server.name", hint: `+${ctx.instanceName}.responses_api_models.local_vllm_model_proxy.model_server.name=<instance>` });
    }
  },
  async create(ctx) {
    const target = refName(ctx, "model_server");
    const inner = clientsFor(ctx).inner;
    const base = inner.baseUrl(target);
    log.info(`${ctx.instanceName}: waiting for model server '${target}' (${base}) to start`);
    let answer;
    for (;;) {
      try {
        answer = await inner.call(target, "/get_inner_vllm_config", { method: "GET" });
        break;
      } catch {
        // Not listening yet: the supervisor's start-up deadline bounds this wait.
        await Bun.sleep(POLL_MS);
      }
    }
    if (answer.status < 200 || answer.status >= 300) {
      throw new GymError(`${ctx.instanceName}: ${base}/get_inner_vllm_config answered ${answer.status}: ${answer.text.slice(0, 300)}`, { hint: `model_server '${target}' must be a local_vllm_model` });
    }
    let json: unknown;
    try {
      json = JSON.parse(answer.text);
    } catch {
      json = answer.text;
    }
    const engine = innerVllmConfig(json, base);
    const opts = vllmOptions({ instanceName: ctx.instanceName, config: { ...ctx.config, ...engine } });
    return vllmServerApp(ctx, opts, CLASS_NAME);
  },
};
