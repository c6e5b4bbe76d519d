/**
 * The metric helpers the driver, `gym eval aggregate` and `gym eval profile` use. The pure
 * computation lives in verify/aggregate-metrics.ts (resources servers need it too, and
 * servers/ must not import rollout/); this module keeps rollout's import path stable.
 */
export { computeAggregateMetrics, keyMetrics, numericFields, passAtK, passMajorityMetrics, type AggregateMetrics, type ScoreFn, type VerifyResponse } from "../verify/aggregate-metrics.ts";
