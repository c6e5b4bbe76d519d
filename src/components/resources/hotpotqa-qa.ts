/** resources_servers/hotpotqa_qa: HotpotQA closed-book short answers (verify/rules/hotpotqa.ts); reward = is_correct_strict; pass@k over four channels, also with unreliable golds filtered out. */
import Type from "typebox";
import { highestKMetrics, passMajorityMetrics, type VerifyResponse } from "../../verify/aggregate-metrics.ts";
import { scoreHotpotqa } from "../../verify/rules/hotpotqa.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "HotpotQAQAResourcesServer";
const CHANNELS = ["answer_em", "answer_f1", "is_correct", "is_correct_strict"];
type Obj = Record<string, unknown>;

/** Every message's output_text parts, joined with nothing between them (upstream's generation text). */
function generation(response: unknown): string {
  const parts: string[] = [];
  for (const item of ((response as Obj)?.output as Obj[] | undefined) ?? []) {
    if (item?.type !== "message" || !Array.isArray(item.content)) continue;
    for (const c of item.content as Obj[]) if (c?.type === "output_text" && typeof c.text === "string") parts.push(c.text);
  }
  return parts.join("");
}

const scores = (r: VerifyResponse): Record<string, number> => Object.fromEntries(CHANNELS.filter((k) => k in r).map((k) => [k, Number(r[k])]));

/** Upstream compute_metrics: pass@k / majority@k per channel, and the same over tasks whose gold is reliable (`filtered_…`). */
export function hotpotqaMetrics(tasks: VerifyResponse[][], reportFiltered: boolean): Obj {
  const out: Obj = { ...passMajorityMetrics(tasks, scores, "extracted_answer") };
  if (!reportFiltered) return out;
  const kept = tasks.filter((t) => t.length > 0 && !t[0]!.gt_should_remove);
  if (kept.length) {
    const f = passMajorityMetrics(kept, scores, "extracted_answer");
    delete f.per_sample_aggregate;
    for (const [k, v] of Object.entries(f)) out[`filtered_${k}`] = v;
  }
  out.filtered_num_tasks = kept.length;
  out.unfiltered_num_tasks = tasks.length;
  return out;
}

/** Upstream get_key_metrics: token means and the highest-k pass@1[avg-of-k], pass@k, majority@k per channel (plain and filtered). */
export function hotpotqaKeyMetrics(am: Obj): Obj {
  const key: Obj = {};
  for (const n of ["mean/input_tokens", "mean/output_tokens"]) if (n in am) key[n] = am[n];
  for (const prefix of ["", "filtered_"]) {
    for (const pat of ["pass@1[avg-of-{k}]", "pass@{k}", "majority@{k}"]) Object.assign(key, highestKMetrics(am, `${prefix}${pat}`, { scoreNames: CHANNELS }));
  }
  return key;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "hotpotqa_qa",
  className: CLASS_NAME,
  async create(ctx) {
    const reportFiltered = ctx.config.report_filtered_metrics !== false;
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { expected_answer: Type.String() },
      // Upstream's models allow extra fields: the row is echoed.
      verify: (body) => {
        const { responses_create_params: _rcp, response, ...row } = body;
        return { ...row, ...scoreHotpotqa(generation(response), body.expected_answer as string) };
      },
      computeMetrics: (tasks) => hotpotqaMetrics(tasks, reportFiltered),
      keyMetrics: hotpotqaKeyMetrics,
    });
  },
};
