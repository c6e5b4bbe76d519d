/**
 * resources_servers/code_gen (components.md §3.6): LiveCodeBench-format problems. The code between the
 * last two ``` lines runs against the row's unit tests in the sandboxed CodeRunner (D27); reward 1 when
 * every test passes, `reasoning_format_penalty` when `<think>` tags leak. A missing python3 is said at
 * start and makes each verify a `verifier` failure (a 500 naming this server), never reward 0.
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { HttpError } from "../../runtime/http/http-types.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { highestKMetrics, passMajorityMetrics, type ScoreFn } from "../../verify/aggregate-metrics.ts";
import { extractLcbCode } from "../../verify/code/extract.ts";
import { outputText } from "../../verify/response-text.ts";
import { avgSampleStdDev, subsetMetrics } from "../../verify/sample-metrics.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { startCodeRunner } from "./_code-runner.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "CompCodingResourcesServer";

/** code_gen's score: accuracy = reward > 0. */
export const codeScore: ScoreFn = (r) => ({ accuracy: Number(r.reward ?? 0) > 0 ? 1 : 0 });

/** Upstream compute_metrics: pass@k / majority@k voting on the extracted code, sample spread, per difficulty. */
export function codeGenComputeMetrics(tasks: Obj[][]): Obj {
  return { ...passMajorityMetrics(tasks, codeScore, "extracted_model_code"), ...avgSampleStdDev(tasks, codeScore), ...subsetMetrics(tasks, "difficulty", codeScore, "extracted_model_code") };
}

/** Upstream get_key_metrics: token means, highest-k pass@1[avg]/pass/majority, and per-difficulty pass@1[avg]. */
export function codeGenKeyMetrics(am: Obj): Obj {
  const key: Obj = {};
  for (const n of ["mean/input_tokens", "mean/output_tokens"]) if (n in am) key[n] = am[n];
  Object.assign(key, highestKMetrics(am, "pass@1[avg-of-{k}]", { scoreNames: ["accuracy"] }));
  Object.assign(key, highestKMetrics(am, "pass@{k}", { scoreNames: ["accuracy"] }));
  Object.assign(key, highestKMetrics(am, "majority@{k}", { scoreNames: ["accuracy"] }));
  const prefixes = new Set(Object.keys(am).filter((k) => k.includes("/pass@") && /^[a-z]/.test(k)).map((k) => k.split("/pass@")[0]!));
  for (const p of prefixes) Object.assign(key, highestKMetrics(am, `${p}/pass@1[avg-of-{k}]`, { scoreNames: ["accuracy"] }));
  return key;
}

/** `<think>` in the final answer, or more than one open/close tag across the reasoning summaries. */
export function reasoningFormatViolation(response: unknown): boolean {
  const answer = outputText(response);
  if (answer.includes("<think>") || answer.includes("</think>")) return true;
  let reasoning = "";
  for (const item of ((response as Obj | undefined)?.output ?? []) as Obj[]) {
    if (item?.type !== "reasoning" || !Array.isArray(item.summary)) continue;
    for (const s of item.summary as Obj[]) if (typeof s?.text === "string") reasoning += s.text;
  }
  const count = (t: string) => reasoning.split(t).length - 1;
  return count("<think>") > 1 || count("</think>") > 1;
}

function config(ctx: ComponentContext): { processes: number; timeout: number; penalty: number } {
  const c = ctx.config;
  const int = (k: string, fallback?: number) => {
    const v = c[k] ?? fallback;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1) throw new ConfigError(`${ctx.instanceName}: ${k} must be a positive integer, got ${JSON.stringify(v)}`, { key: k });
    return v;
  };
  const penalty = c.reasoning_format_penalty ?? 0.0;
  if (typeof penalty !== "number") throw new ConfigError(`${ctx.instanceName}: reasoning_format_penalty must be a number`, { key: "reasoning_format_penalty" });
  return { processes: int("num_processes", 8), timeout: int("unit_test_timeout_secs", 10), penalty };
}

function unitTests(meta: Obj | null): { inputs: string[]; outputs: string[]; fn_name?: string | null } {
  const ut = meta?.unit_tests as Obj | undefined;
  const ok = ut && Array.isArray(ut.inputs) && Array.isArray(ut.outputs) && ut.inputs.every((x) => typeof x === "string") && ut.outputs.every((x) => typeof x === "string") && (ut.fn_name === undefined || ut.fn_name === null || typeof ut.fn_name === "string");
  if (!ok) throw new HttpError(422, "verifier_metadata.unit_tests must be {inputs: [str], outputs: [str], fn_name?: str|null}");
  return ut as { inputs: string[]; outputs: string[]; fn_name?: string | null };
}

/** The code_gen component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "code_gen",
  className: CLASS_NAME,
  async create(ctx) {
    const cfg = config(ctx);
    const runner = await startCodeRunner(ctx.instanceName, cfg.processes);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { verifier_metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])) },
      reverifyMode: "stateless",
      computeMetrics: codeGenComputeMetrics,
      keyMetrics: codeGenKeyMetrics,
      async verify(body) {
        const meta = (body.verifier_metadata ?? null) as Obj | null;
        const difficulty = meta?.difficulty ?? null;
        const none = { extracted_model_output: null, extracted_model_code: null, result: null, metadata: null, unit_tests_time_taken: null, reasoning_format_violation_rate: 0.0, difficulty };
        const text = outputText(body.response);
        if (text.trim() === "") return { ...none, reward: 0.0 };
        const tests = unitTests(meta);
        const code = extractLcbCode(text);
        if (!code) return { ...none, reward: 0.0, extracted_model_output: text };
        const t0 = performance.now();
        const run = await runner.run({ code, inputs: tests.inputs, outputs: tests.outputs, fnName: tests.fn_name ?? null, timeoutSecs: cfg.timeout });
        const violation = reasoningFormatViolation(body.response);
        return {
          ...none,
          reward: violation ? cfg.penalty : run.result.every((r) => r === true) ? 1.0 : 0.0,
          extracted_model_output: text,
          extracted_model_code: code,
          result: run.result,
          metadata: run.metadata,
          unit_tests_time_taken: (performance.now() - t0) / 1000,
          reasoning_format_violation_rate: violation ? 1.0 : 0.0,
        };
      },
    });
  },
};
