/**
 * responses_api_models/genrm_model: a vllm_model whose chat body carries the GenRM comparison roles.
 * The resources server passes the pair to compare in `metadata` (`response_1`, `response_2`,
 * optional `principle`); they become trailing `principle`, `response_1`, `response_2` messages and
 * `metadata` is not forwarded. Upstream also launches vLLM itself (local_vllm_model); gym does not:
 * point `base_url` at a running vLLM (for example one `gym eval submit` starts).
 */
import { ConfigError } from "../../errors.ts";
import { bool } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { vllmOptions, vllmServerApp, type VllmOptions } from "./vllm-model.ts";

const CLASS_NAME = "GenRMModel";
type Obj = Record<string, unknown>;

/** Append the comparison roles from `metadata` to the chat messages and drop `metadata` (upstream order). */
export function genrmChatBody(body: Obj, supportsPrincipleRole: boolean): Obj {
  const { metadata, ...rest } = body;
  const meta = (metadata && typeof metadata === "object" ? metadata : {}) as Obj;
  const messages = [...((rest.messages as Obj[] | undefined) ?? [])];
  if (supportsPrincipleRole && meta.principle) messages.push({ role: "principle", content: meta.principle });
  if (meta.response_1 !== undefined && meta.response_1 !== null) messages.push({ role: "response_1", content: meta.response_1 });
  if (meta.response_2 !== undefined && meta.response_2 !== null) messages.push({ role: "response_2", content: meta.response_2 });
  return { ...rest, messages };
}

/** genrm_model's options: vllm_model's plus the role hook; `base_url` is required (no local launcher). */
export function genrmOptions(ctx: Pick<ComponentContext, "instanceName" | "config">): VllmOptions {
  const raw = ctx.config.base_url;
  if (raw === undefined || raw === null || raw === "" || (Array.isArray(raw) && raw.length === 0)) {
    throw new ConfigError(`${ctx.instanceName}: base_url is not set — gym does not launch vLLM itself (upstream's genrm_model does, through local_vllm_model)`, {
      key: "base_url",
      hint: `start vLLM serving ${String(ctx.config.model ?? "the GenRM model")} (e.g. with gym eval submit services) and set ++${ctx.instanceName}.responses_api_models.genrm_model.base_url=http://<host>:<port>/v1, or run upstream's genrm_model as an external server`,
    });
  }
  const supportsPrinciple = bool(ctx, "supports_principle_role", true);
  return { ...vllmOptions(ctx), shapeChatBody: (body) => genrmChatBody(body, supportsPrinciple) };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_models",
  implementation: "genrm_model",
  className: CLASS_NAME,
  checkConfig: (ctx) => void genrmOptions(ctx),
  async create(ctx) {
    return vllmServerApp(ctx, genrmOptions(ctx), CLASS_NAME);
  },
};
