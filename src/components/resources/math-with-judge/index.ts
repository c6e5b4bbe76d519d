/**
 * resources_servers/math_with_judge (components.md §3.3): our math-verify (verify/math/) scores the
 * generation in a pool of Bun workers; when `should_use_judge` (false in the shipped YAML) and the library
 * gives ≤ 0.5, the LLM judge decides. A check that crashes or overruns its worker is a 500 that names this
 * server, which the collector types `verifier` (D21), never a reward of 0.
 */
import Type, { type TSchema } from "typebox";
import { ConfigError } from "../../../errors.ts";
import { resourcesServerApp } from "../../../servers/resources.ts";
import { highestKMetrics, passMajorityMetrics, type VerifyResponse } from "../../../verify/aggregate-metrics.ts";
import type { JudgeClient } from "../../../verify/judge/judge-client.ts";
import type { LibraryVerdict } from "../../../verify/math/math-metric.ts";
import { outputText } from "../../../verify/response-text.ts";
import { bool } from "../../_support.ts";
import { judgeFromContext } from "../../_judge.ts";
import { poolSizeOf, poolStatusRoute, verifierPool } from "../../_worker-pool.ts";
import type { ServerApp } from "../../../runtime/http/http-types.ts";
import type { BuiltinComponent, ComponentContext } from "../../registry.ts";
import { judgeMath } from "./judge.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "LibraryJudgeMathResourcesServer";

// Rows may carry numbers (gsm8k's prepare writes ints and floats); they are read as Python's str() would.
const StrOrNum = Type.Union([Type.String(), Type.Number()]);

function pyStrOf(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 1e16 ? String(v) : String(v);
  return String(v);
}

function positive(ctx: ComponentContext, key: string, fallback: number, integer: boolean): number {
  const raw = ctx.config[key];
  if (raw === undefined || raw === null) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new ConfigError(`${ctx.instanceName}: ${key} must be a positive ${integer ? "integer" : "number"}, got ${JSON.stringify(raw)}`, { key });
  }
  return n;
}

/** Scores: symbolic_accuracy always, judge_accuracy when the judge ran (upstream `_math_score_fn`). */
export function mathScores(r: VerifyResponse): Record<string, number> {
  const s: Record<string, number> = {};
  if ("library_reward" in r) s.symbolic_accuracy = Number(r.library_reward);
  if (r.judge_evaluations !== undefined && r.judge_evaluations !== null) s.judge_accuracy = Number(r.reward);
  return s;
}

/** compute_metrics: pass@k / majority@k with extracted_answer as the vote. */
export function mathComputeMetrics(tasks: VerifyResponse[][]): Record<string, unknown> {
  return passMajorityMetrics(tasks, mathScores, "extracted_answer");
}

/** get_key_metrics: token means plus the highest-k pass@1[avg-of-k], pass@k and majority@k. */
export function mathKeyMetrics(am: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in am) key[name] = am[name];
  Object.assign(key, highestKMetrics(am, "pass@1[avg-of-{k}]"));
  Object.assign(key, highestKMetrics(am, "pass@{k}", { excludeNames: ["no_answer"] }));
  Object.assign(key, highestKMetrics(am, "majority@{k}", { excludeNames: ["no_answer"] }));
  return key;
}

/** What a math server's judge fallback gets: the question, gold, raw generation, the library's extraction and the request. */
export interface MathJudgeInput {
  question: string;
  expected: string;
  generated: string;
  extracted: string | null;
  body: Obj;
}

/** A judge fallback: `{reward, evaluations}` plus response fields of its own; JudgeError on transport failure. */
export type MathJudgeFn = (judge: JudgeClient, input: MathJudgeInput) => Promise<{ reward: number; evaluations: unknown[]; fields?: Obj }>;

/** The math_with_judge judge: the extracted answer (else the whole text), both orders. */
export const arenaJudge: MathJudgeFn = (judge, i) => judgeMath(judge, i.question, i.expected, i.extracted || i.generated);

/** What a family member adds to math_with_judge: declared request fields echoed back, its own metrics. */
export interface MathServerExtras {
  verifyFields?: Record<string, TSchema>;
  echo?: (body: Obj) => Obj;
  computeMetrics?: (tasks: VerifyResponse[][]) => Record<string, unknown>;
  keyMetrics?: (am: Record<string, unknown>) => Record<string, unknown>;
  /** Response fields when the judge did not run (the library decided); the judge path gets its fn's `fields`. */
  libraryFields?: (libraryReward: number) => Obj;
}

/** Builds a math_with_judge-family server: library check in the worker pool, then `judgeFn` when allowed. */
export async function mathServer(ctx: ComponentContext, className: string, judgeFn: MathJudgeFn, extras: MathServerExtras = {}): Promise<ServerApp> {
  const useJudge = bool(ctx, "should_use_judge", true);
  const timeoutS = positive(ctx, "library_verifier_timeout_seconds", 10.0, false);
  const maxConcurrency = positive(ctx, "library_verifier_max_concurrency", 32, true);
  const judge: JudgeClient | null = useJudge ? judgeFromContext(ctx, null) : null;
  // The process's verifier pool (verifier_workers, default cores − 1); checks are CPU-bound and bounded by their budget.
  const { pool, release } = verifierPool(Math.min(maxConcurrency, poolSizeOf(ctx.instanceName, ctx.config)));
  const app: ServerApp = {
    ...resourcesServerApp({
      className,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: { question: StrOrNum, expected_answer: StrOrNum, ...extras.verifyFields },
      computeMetrics: extras.computeMetrics ?? mathComputeMetrics,
      keyMetrics: extras.keyMetrics ?? mathKeyMetrics,
      async verify(body) {
        const question = pyStrOf(body.question);
        const expected = pyStrOf(body.expected_answer);
        const generated = outputText(body.response);
        const lib = await pool.run<LibraryVerdict & Obj>({ task: "math", expected, generated }, { guardMs: timeoutS * 1000 });
        // The recorded rollouts carry exactly these fields after reward (question is not echoed).
        const out: Obj = { expected_answer: expected };
        const echo = extras.echo?.(body) ?? {};
        if (!judge || lib.reward > 0.5) {
          return { ...out, reward: lib.reward, extracted_answer: lib.extracted_answer, library_reward: lib.reward, judge_evaluations: null, ...extras.libraryFields?.(lib.reward), ...echo };
        }
        const judged = await judgeFn(judge, { question, expected, generated, extracted: lib.extracted_answer, body });
        return { ...out, reward: judged.reward, extracted_answer: lib.extracted_answer, library_reward: lib.reward, judge_evaluations: judged.evaluations, ...judged.fields, ...echo };
      },
    }),
    close: release,
  };
  return { ...app, routes: [...app.routes, poolStatusRoute(pool)] };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "math_with_judge",
  className: CLASS_NAME,
  create: (ctx) => mathServer(ctx, CLASS_NAME, arenaJudge),
};
