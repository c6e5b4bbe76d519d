/**
 * resources_servers/polymath: math_with_judge plus PolyMath's metrics — per-language subsets
 * (`<language>/pass@k/…`) and difficulty-weighted pass@k, pass@1[avg-of-k] and majority@k
 * (`…_weighted`, NeMo Skills' WeightedMathMetrics). Rows' `weight` and `language` are echoed back.
 */
import Type from "typebox";
import type { VerifyResponse } from "../../../verify/aggregate-metrics.ts";
import { subsetMetrics } from "../../../verify/sample-metrics.ts";
import type { BuiltinComponent } from "../../registry.ts";
import { arenaJudge, mathComputeMetrics, mathScores, mathServer } from "../math-with-judge/index.ts";

const CLASS_NAME = "PolyMathResourcesServer";
const Maybe = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

function comb(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** Difficulty-weighted pass@k / pass@1[avg-of-k] / majority@k (k ≥ 2) per score, tasks weighted by `weight` (default 1). */
export function weightedMetrics(tasks: VerifyResponse[][]): Record<string, number> {
  const per = tasks.filter((t) => t.length > 0).map((t) => ({ w: Number(t[0]!.weight || 1.0), scores: t.map(mathScores), answers: t.map((r) => r.extracted_answer ?? null) }));
  if (per.length === 0) return {};
  const maxK = Math.max(...per.map((p) => p.scores.length));
  const names = [...new Set(per.flatMap((p) => p.scores.flatMap((s) => Object.keys(s))))].sort();
  const out: Record<string, number> = {};
  for (let k = 1; k <= maxK; k++) {
    for (const name of names) {
      let pass = 0;
      let avg = 0;
      let maj = 0;
      let weight = 0;
      for (const { w, scores, answers } of per) {
        const vals = scores.filter((s) => name in s).map((s) => Boolean(s[name]));
        if (vals.length === 0 || k > vals.length) continue;
        const wrong = vals.filter((v) => !v).length;
        pass += wrong < k ? w : w * (1 - comb(wrong, k) / comb(vals.length, k));
        avg += (w * vals.slice(0, k).filter(Boolean).length) / k;
        if (k >= 2) {
          // Votes are (answer, verdict) pairs over the first k, as Python's Counter counts them.
          const counts = new Map<string, { n: number; v: boolean }>();
          vals.slice(0, k).forEach((v, j) => {
            const a = answers[j];
            if (a === null || a === undefined) return;
            const key = JSON.stringify([a, v]);
            const c = counts.get(key) ?? { n: 0, v };
            c.n++;
            counts.set(key, c);
          });
          if (counts.size > 0) {
            const top = Math.max(...[...counts.values()].map((c) => c.n));
            const tied = [...counts.values()].filter((c) => c.n === top);
            maj += (w * tied.filter((c) => c.v).length) / tied.length;
          }
        }
        weight += w;
      }
      if (weight > 0) {
        out[`pass@${k}/${name}_weighted`] = (100 * pass) / weight;
        out[`pass@1[avg-of-${k}]/${name}_weighted`] = (100 * avg) / weight;
        if (k >= 2) out[`majority@${k}/${name}_weighted`] = (100 * maj) / weight;
      }
    }
  }
  return out;
}

/** PolyMath's compute_metrics: math_with_judge's, per-language, then weighted. */
export function polymathComputeMetrics(tasks: VerifyResponse[][]): Record<string, unknown> {
  if (tasks.length === 0) return {};
  return { ...mathComputeMetrics(tasks), ...subsetMetrics(tasks, "language", mathScores, "extracted_answer"), ...weightedMetrics(tasks) };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "polymath",
  className: CLASS_NAME,
  create: (ctx) =>
    mathServer(ctx, CLASS_NAME, arenaJudge, {
      verifyFields: { weight: Maybe(Type.Number()), language: Maybe(Type.String()) },
      echo: (body) => ({ weight: body.weight ?? null, language: body.language ?? null }),
      computeMetrics: polymathComputeMetrics,
    }),
};
