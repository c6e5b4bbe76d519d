/**
 * responses_api_models/litellm_model: openai_model's pass-through in front of a LiteLLM proxy, with
 * two additions upstream made for LiteLLM's quirks: at start the proxy must report a version at or
 * above 1.83.0 that is not one of the compromised releases (fail closed), and a `/responses`
 * answer the proxy downgraded to a chat completion is rebuilt as a Responses object.
 */
import { Compile } from "typebox/compile";
import type { HttpClient } from "../../runtime/http/client.ts";
import { modelCallCaptureFor } from "../../servers/model-capture.ts";
import { tokenCaptureFor } from "../../servers/token-capture/capture.ts";
import { modelServerApp } from "../../servers/model.ts";
import { NeMoGymResponse } from "../../servers/openai-schemas.ts";
import { pyError } from "../../servers/py-error.ts";
import { chatToResponse } from "../../servers/vllm-response.ts";
import { newId } from "../../servers/ids.ts";
import { ConfigError, GymError } from "../../errors.ts";
import { clientsFor, obj, str } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { authHeaders, Endpoint } from "./_endpoint.ts";

const CLASS_NAME = "LiteLLMModelServer";
const validResponse = Compile(NeMoGymResponse);
type Obj = Record<string, unknown>;

/** Releases shipped with credential-harvesting malware (LiteLLM security update, March 2026). */
const COMPROMISED = new Set(["1.82.7", "1.82.8"]);
const MIN_SAFE: [number, number, number] = [1, 83, 0];
const VERSION_CHECK_SECONDS = 5;

/** Parse a LiteLLM version (`1.83.0`, `v1.83.0-stable`, `1.83.0-stable.patch.2`, `1.83.0.post1`); null when unsupported. */
export function parseLiteLlmVersion(version: string): [number, number, number] | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(.*)$/.exec(version.trim());
  if (!m || !/^(?:|-stable(?:\.patch\.\d+)?|\.post\d+)$/.test(m[4]!)) return null;
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

function below(a: [number, number, number], b: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/** The verdict on a reported version: null when safe to use, else why not. */
export function liteLlmVersionProblem(version: unknown): string | null {
  if (typeof version !== "string" || version === "") return `did not report litellm_version, so the minimum safe version ${MIN_SAFE.join(".")} cannot be enforced`;
  const v = parseLiteLlmVersion(version);
  if (!v) return `reported an unsupported version (${JSON.stringify(version)}), so the minimum safe version ${MIN_SAFE.join(".")} cannot be enforced`;
  if (COMPROMISED.has(v.join("."))) return `is running a compromised version (${version}): releases ${[...COMPROMISED].join(", ")} contain credential-harvesting malware (LiteLLM security update, March 2026); upgrade the proxy to >= ${MIN_SAFE.join(".")}`;
  if (below(v, MIN_SAFE)) return `version ${version} is below the minimum safe version ${MIN_SAFE.join(".")}; upgrade the proxy`;
  return null;
}

/** Ask the proxy for its version (`GET <root>/health/readiness/details`) and refuse an unsafe or unknown one. */
export async function checkLiteLlmProxy(http: HttpClient, baseUrl: string, apiKey: string | undefined, serverName: string): Promise<string> {
  const root = baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
  const url = `${root}/health/readiness/details`;
  const key = (apiKey ?? "").replace(/^bearer\s+/i, "").trim();
  const fail = (why: string) => new GymError(`model server '${serverName}': the LiteLLM proxy at ${url} ${why}`, { hint: "point openai_base_url at a LiteLLM proxy >= 1.83.0 (its /health/readiness/details must report litellm_version)" });
  let body: Obj;
  try {
    const res = await http.request(url, { method: "GET", headers: { authorization: `Bearer ${key}`, "x-litellm-key": key }, timeoutSeconds: VERSION_CHECK_SECONDS, retryBudgetSeconds: VERSION_CHECK_SECONDS, kind: "model" });
    const text = await res.text();
    if (!res.ok) throw new Error(`status=${res.status}`);
    body = JSON.parse(text) as Obj;
  } catch (e) {
    throw fail(`could not be asked for its version: ${(e as Error).message}`);
  }
  const problem = liteLlmVersionProblem(body?.litellm_version);
  if (problem) throw fail(problem);
  return String(body.litellm_version);
}

function usageDetail(usage: Obj, group: string, name: string, ...aliases: string[]): number | null {
  const details = usage[group];
  const v = details && typeof details === "object" ? (details as Obj)[name] : undefined;
  if (typeof v === "number") return v;
  for (const a of aliases) if (typeof usage[a] === "number") return usage[a] as number;
  return null;
}

/** Repair what LiteLLM returns from `/responses`: `reasoning.effort: "none"` → null; a chat completion → a Responses object. */
export function normalizeLiteLlmResponse(data: Obj): Obj {
  const reasoning = data.reasoning as Obj | undefined;
  if (reasoning && typeof reasoning === "object" && reasoning.effort === "none") reasoning.effort = null;
  if (data.object !== "chat.completion") return data;

  const usage = (data.usage as Obj | null | undefined) ?? {};
  const num = (v: unknown) => (typeof v === "number" && v !== 0 ? v : 0);
  const input = num(usage.input_tokens) || num(usage.prompt_tokens);
  const output = num(usage.output_tokens) || num(usage.completion_tokens);
  const total = num(usage.total_tokens) || input + output;

  let items = Array.isArray(data.output) && data.output.length > 0 ? (data.output as Obj[]) : null;
  if (!items) {
    for (const choice of (data.choices as Obj[] | undefined) ?? []) {
      if (!choice.message || typeof choice.message !== "object") continue;
      const built = chatToResponse({ choices: [choice] }, {}, { usesReasoningParser: false, model: "" }).output as Obj[];
      if (built.length > 0) {
        items = built;
        break;
      }
    }
  }
  items ??= [{ id: newId("msg"), content: [{ annotations: [], text: "", type: "output_text", logprobs: null }], role: "assistant", status: "completed", type: "message" }];
  return {
    id: data.id ?? "",
    created_at: data.created_at ?? data.created ?? 0,
    model: data.model ?? "",
    object: "response",
    output: items,
    parallel_tool_calls: data.parallel_tool_calls ?? false,
    tool_choice: data.tool_choice ?? "auto",
    tools: data.tools ?? [],
    usage: {
      input_tokens: input,
      output_tokens: output,
      total_tokens: total,
      input_tokens_details: { cached_tokens: usageDetail(usage, "prompt_tokens_details", "cached_tokens", "cached_input_tokens", "cache_read_input_tokens") },
      output_tokens_details: { reasoning_tokens: usageDetail(usage, "completion_tokens_details", "reasoning_tokens", "reasoning_output_tokens") },
    },
  };
}

function settings(ctx: Pick<ComponentContext, "instanceName" | "config">): { base: string; model?: string } {
  const base = str(ctx, "openai_base_url");
  if (!base) throw new ConfigError(`server '${ctx.instanceName}': openai_base_url is not set (the LiteLLM proxy's /v1 URL)`, { key: "openai_base_url", hint: "set +policy_base_url=https://<litellm-proxy>/v1" });
  return { base, model: str(ctx, "openai_model") };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_models",
  implementation: "litellm_model",
  className: CLASS_NAME,
  checkConfig: (ctx) => void settings(ctx),
  async create(ctx) {
    const { base, model } = settings(ctx);
    const http = clientsFor(ctx).http;
    const apiKey = str(ctx, "openai_api_key");
    // Fail closed before serving anything: a compromised proxy must not see a single request.
    await checkLiteLlmProxy(http, base, apiKey, ctx.instanceName);
    const extra = obj(ctx, "extra_body") ?? {};
    const max = ctx.config.max_concurrent_requests;
    const endpoint = new Endpoint(http, base, authHeaders(apiKey, obj(ctx, "openai_default_headers")), typeof max === "number" ? max : null);
    return modelServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      capture: modelCallCaptureFor(ctx.globalConfig, ctx.instanceName), tokens: tokenCaptureFor(ctx.globalConfig, ctx.instanceName),
      backend: {
        async responses(params, rctx) {
          const body: Obj = { ...extra, ...params };
          if (model) body.model = model;
          const json = normalizeLiteLlmResponse(await endpoint.postOk("/responses", body, rctx.signal));
          if (!validResponse.Check(json)) throw pyError("RuntimeError", `the LiteLLM proxy ${base}/responses returned something that is not a Responses object: ${JSON.stringify(json).slice(0, 500)}`);
          return json;
        },
        async chatCompletions(params, rctx) {
          const body: Obj = { ...extra, ...params };
          if (model) body.model = model;
          return endpoint.postOk("/chat/completions", body, rctx.signal);
        },
      },
    });
  },
};
