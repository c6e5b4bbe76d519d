/**
 * resources_servers/bunsenbench_chemistry_mcq: chemistry MCQ on mcqa's request and metrics, with
 * BunsenBench's own answer extraction, an error-mode bucket per rollout, and metrics grouped by
 * source, field and subfield (verify/choices/bunsen.ts). REVERIFY_MODE is unknown, as upstream pins it.
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { pyStrip } from "../../util/py-str.ts";
import { highestKMetrics, passMajorityMetrics, type VerifyResponse } from "../../verify/aggregate-metrics.ts";
import { bunsenAnswer, bunsenGold, bunsenOptions, ERROR_MODES, errorMode, metricSegment } from "../../verify/choices/bunsen.ts";
import { allowedLetters, type Options } from "../../verify/choices/letters.ts";
import { outputText } from "../../verify/response-text.ts";
import type { BuiltinComponent } from "../registry.ts";
import { MCQA_VERIFY_FIELDS, mcqaComputeMetrics, mcqaKeyMetrics } from "./mcqa.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "BunsenChemResourcesServer";
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

function firstValue(rollouts: VerifyResponse[], key: string): unknown {
  for (const r of rollouts) if (r[key]) return r[key];
  return undefined;
}

function grouped(tasks: VerifyResponse[][], label: (rollouts: VerifyResponse[]) => string | undefined, prefix: string): Obj {
  const buckets = new Map<string, VerifyResponse[][]>();
  for (const t of tasks) {
    const k = label(t);
    if (k === undefined) continue;
    const b = buckets.get(k) ?? [];
    b.push(t);
    buckets.set(k, b);
  }
  const out: Obj = {};
  for (const [k, sub] of buckets) {
    for (const [mk, mv] of Object.entries(passMajorityMetrics(sub, (r) => ({ accuracy: Number(r.reward ?? 0) }), "extracted_answer"))) if (mk !== "per_sample_aggregate") out[`${prefix}/${k}/${mk}`] = mv;
  }
  return out;
}

/** BunsenBench's compute_metrics: mcqa's plus grouped accuracy and error-mode shares. */
export function bunsenComputeMetrics(tasks: VerifyResponse[][]): Obj {
  const m: Obj = { ...mcqaComputeMetrics(tasks) };
  for (const key of ["source", "bct_field"]) Object.assign(m, grouped(tasks, (t) => { const v = firstValue(t, key); return v ? metricSegment(v) : undefined; }, `by_${key}`));
  Object.assign(m, grouped(tasks, (t) => { const f = firstValue(t, "bct_field"); const s = firstValue(t, "bct_subfield"); return f && s ? `${metricSegment(f)}/${metricSegment(s)}` : undefined; }, "by_bct_subfield"));
  const counts = new Map<string, number>(ERROR_MODES.map((x) => [x, 0]));
  let total = 0;
  for (const t of tasks) {
    for (const r of t) {
      const mode = (r.error_mode as string | undefined) || (r.reward ? "correct" : r.extracted_answer !== null && r.extracted_answer !== undefined ? "wrong_answer" : "format_violation");
      counts.set(mode, (counts.get(mode) ?? 0) + 1);
      total++;
    }
  }
  for (const [mode, n] of counts) {
    m[`error_modes/${mode}/count`] = n;
    m[`error_modes/${mode}`] = total ? (100 * n) / total : 0;
  }
  return m;
}

/** BunsenBench's headline metrics. */
export function bunsenKeyMetrics(am: Obj): Obj {
  const key = mcqaKeyMetrics(am);
  Object.assign(key, highestKMetrics(am, "pass@{k}", { scoreNames: ["accuracy"] }));
  for (const k of ["pass@1/accuracy", "pass@1/no_answer", ...ERROR_MODES.map((x) => `error_modes/${x}`)]) if (k in am) key[k] = am[k];
  return key;
}

/** Grade one rollout. */
export function verifyBunsen(body: Obj): Obj {
  const options = bunsenOptions(body as { options?: Options; choices?: unknown[] });
  const allowed = allowedLetters(options);
  const gold = bunsenGold((body.expected_answer as string | null | undefined) ?? "", options);
  if (gold.length === 1 && /^\p{L}$/u.test(gold)) allowed.add(gold);
  const raw = outputText(body.response);
  const text = pyStrip(raw);
  const pred = text ? bunsenAnswer(text, options, allowed) : undefined;
  const md = (body.metadata as Obj | null | undefined) ?? {};
  const meta = (k: string) => (body[k] !== undefined && body[k] !== null ? body[k] : (md[k] ?? null));
  return {
    reward: pred !== undefined && pred === gold ? 1.0 : 0.0,
    expected_answer: gold,
    extracted_answer: pred ?? null,
    uuid: body.uuid ?? null,
    bunsen_id: meta("bunsen_id"),
    choices: body.choices ?? null,
    no_answer: pred === undefined,
    error_mode: errorMode(body.response as Obj, raw, pred, gold),
    source: meta("source"),
    bct_field: meta("bct_field"),
    bct_subfield: meta("bct_subfield"),
    metadata: body.metadata ?? null,
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "bunsenbench_chemistry_mcq",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        ...MCQA_VERIFY_FIELDS,
        bunsen_id: Nullable(Type.String()),
        choices: Nullable(Type.Array(Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown())]))),
        source: Nullable(Type.String()),
        bct_field: Nullable(Type.String()),
        bct_subfield: Nullable(Type.String()),
      },
      verify: verifyBunsen,
      computeMetrics: bunsenComputeMetrics,
      keyMetrics: bunsenKeyMetrics,
      reverifyMode: "unknown",
    });
  },
};
