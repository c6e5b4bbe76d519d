/**
 * resources_servers/mcqa (components.md §3.4) and gpqa_diamond, which reuses its request and
 * metrics with GPQA's own extraction. Scoring lives in verify/choices/; this file wires it to the
 * resources server kind: request validation as upstream's pydantic models, pass@k / majority@k
 * metrics over `accuracy` with `extracted_answer` votes, and `REVERIFY_MODE` (mcqa: stateless).
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { HttpError } from "../../runtime/http/http-types.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { highestKMetrics, passMajorityMetrics } from "../../verify/aggregate-metrics.ts";
import { allowedLetters } from "../../verify/choices/letters.ts";
import { ChoiceRowError, customRegexLetter, gradeChoice, GRADING_MODES, type ChoiceRow, type GradingMode } from "../../verify/choices/grade.ts";
import { gpqaLetter } from "../../verify/choices/gpqa.ts";
import { outputText } from "../../verify/response-text.ts";
import { pyStrip } from "../../util/py-str.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

type Obj = Record<string, unknown>;
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

/** Declared fields of upstream's MCQAVerifyRequest (the row grading_mode accepts three modes, as upstream's Literal). */
export const MCQA_VERIFY_FIELDS = {
  uuid: Nullable(Type.String()),
  options: Nullable(Type.Array(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])))),
  expected_answer: Nullable(Type.String()),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  grading_mode: Type.Optional(Type.Union(GRADING_MODES.slice(0, 3).map((m) => Type.Literal(m)))),
  template_metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
};

/** mcqa's metrics: pass@k / majority@k of `accuracy` (= reward), voting on `extracted_answer`. */
export function mcqaComputeMetrics(tasks: Obj[][]): Obj {
  return passMajorityMetrics(tasks, (r) => ({ accuracy: Number(r.reward ?? 0) }), "extracted_answer");
}

/** mcqa's headline metrics. */
export function mcqaKeyMetrics(am: Obj): Obj {
  const key: Obj = {};
  if ("mean/reward" in am) key["mean/reward"] = am["mean/reward"];
  Object.assign(key, highestKMetrics(am, "pass@1[avg-of-{k}]", { scoreNames: ["accuracy", "no_answer"] }));
  Object.assign(key, highestKMetrics(am, "pass@{k}", { scoreNames: ["no_answer"] }));
  Object.assign(key, highestKMetrics(am, "majority@{k}", { scoreNames: ["accuracy"] }));
  if ("pass@1/accuracy" in am) key["pass@1/accuracy"] = am["pass@1/accuracy"];
  return key;
}

function serverGradingMode(ctx: ComponentContext): GradingMode | null {
  const v = ctx.config.grading_mode;
  if (v === undefined || v === null) return null;
  if (!(GRADING_MODES as readonly unknown[]).includes(v)) throw new ConfigError(`${ctx.instanceName}: grading_mode ${JSON.stringify(v)} is not one of ${GRADING_MODES.join(", ")}`, { key: "grading_mode", hint: "or null to use each row's grading_mode" });
  return v as GradingMode;
}

/** A per-row grading problem is a 422 naming the field, so the run records a typed failure and the server keeps serving. */
function rowError(e: unknown): never {
  if (e instanceof ChoiceRowError) throw new HttpError(422, e.message);
  throw e;
}

/** mcqa's verify: `{reward, expected_answer, extracted_answer}`. */
export function verifyMcqa(body: Obj, mode: GradingMode | null): Obj {
  try {
    return { ...gradeChoice(outputText(body.response), body as ChoiceRow, mode) };
  } catch (e) {
    return rowError(e);
  }
}

/** gpqa_diamond's verify: a per-row regex first (trusted), else GPQA extraction restricted to the options. */
export function verifyGpqaDiamond(body: Obj): Obj {
  const text = pyStrip(outputText(body.response));
  const row = body as ChoiceRow;
  const allowed = allowedLetters(row.options);
  let pred: string | undefined;
  try {
    const tm = row.template_metadata;
    if (tm && typeof tm === "object" && "output_regex" in tm) {
      if (typeof tm.output_regex !== "string") throw new ChoiceRowError(`template_metadata.output_regex must be a string for gpqa_diamond, got ${JSON.stringify(tm.output_regex)}`);
      pred = customRegexLetter(text, tm.output_regex, row.options, allowed);
    }
  } catch (e) {
    rowError(e);
  }
  if (pred === undefined) {
    pred = gpqaLetter(text)?.toUpperCase();
    if (pred !== undefined && allowed.size > 0 && !allowed.has(pred)) pred = undefined;
  }
  const gold = pyStrip(row.expected_answer ?? "").toUpperCase();
  return { reward: pred !== undefined && gold !== "" && pred === gold ? 1.0 : 0.0, expected_answer: gold, extracted_answer: pred ?? null };
}

/** The mcqa component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "mcqa",
  className: "MCQAResourcesServer",
  async create(ctx) {
    const mode = serverGradingMode(ctx);
    return resourcesServerApp({
      className: "MCQAResourcesServer",
      instanceName: ctx.instanceName,
      verifySchema: MCQA_VERIFY_FIELDS,
      verify: (body) => verifyMcqa(body, mode),
      computeMetrics: mcqaComputeMetrics,
      keyMetrics: mcqaKeyMetrics,
      reverifyMode: "stateless",
    });
  },
};

/** The gpqa_diamond component (upstream pins REVERIFY_MODE back to unknown). */
export const gpqaDiamondComponent: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "gpqa_diamond",
  className: "GPQADiamondResourcesServer",
  async create(ctx) {
    serverGradingMode(ctx);
    return resourcesServerApp({
      className: "GPQADiamondResourcesServer",
      instanceName: ctx.instanceName,
      verifySchema: MCQA_VERIFY_FIELDS,
      verify: (body) => verifyGpqaDiamond(body),
      computeMetrics: mcqaComputeMetrics,
      keyMetrics: mcqaKeyMetrics,
      reverifyMode: "unknown",
    });
  },
};
