/**
 * resources_servers/iheval: IHEval instruction-hierarchy scoring (verify/iheval). Gold and routing
 * fields ride at the row's top level (task, domain, setting, instruction, answer), with a nested
 * verifier_metadata as fallback; every request field is echoed back (upstream allows extra fields).
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { ACCURACY_MODES, type AccuracyMode, ihevalKeyMetrics, ihevalMetrics } from "../../verify/iheval/metrics.ts";
import { pyStr, responseText, scoreIheval } from "../../verify/iheval/score.ts";
import { warmIfeval } from "../../verify/ifeval/warm.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "IHEvalResourcesServer";
type Obj = Record<string, unknown>;

const field = (body: Obj, meta: Obj, key: string): string => {
  const top = body[key];
  if (typeof top === "string" && top) return top;
  return meta[key] === undefined || meta[key] === null ? "" : pyStr(meta[key]);
};

/** Grade one verify body: `{reward, task, setting, domain, row_id, generation, …scorer details}` plus the echoed fields. */
export function gradeIheval(body: Obj): Obj {
  const meta = (body.verifier_metadata && typeof body.verifier_metadata === "object" ? body.verifier_metadata : {}) as Obj;
  const task = field(body, meta, "task");
  const setting = field(body, meta, "setting");
  const domain = field(body, meta, "domain");
  const rawAnswer = body.answer !== undefined && body.answer !== null ? body.answer : meta.answer;
  const result = scoreIheval(task, setting, rawAnswer, responseText(body.response as Obj));
  const rowId = body.id !== undefined && body.id !== null ? body.id : (meta.id ?? "");
  const { responses_create_params: _rcp, response: _resp, reward: _r, task: _t, setting: _s, domain: _d, ...rest } = body;
  return {
    id: null,
    instruction: "",
    answer: null,
    verifier_metadata: null,
    ...rest,
    reward: Number(result.reward ?? 0),
    task,
    setting,
    domain,
    row_id: pyStr(rowId),
    ...result,
  };
}

function accuracyMode(ctx: Pick<ComponentContext, "instanceName" | "config">): AccuracyMode {
  const v = ctx.config.accuracy_mode ?? "hierarchy";
  if (!(ACCURACY_MODES as readonly unknown[]).includes(v)) throw new ConfigError(`${ctx.instanceName}: accuracy_mode ${JSON.stringify(v)} is not one of ${ACCURACY_MODES.join(", ")}`, { key: "accuracy_mode", hint: "hierarchy (conflict score, the default) or hierarchy_sysprompt (mean of aligned and conflict)" });
  return v as AccuracyMode;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "iheval",
  className: CLASS_NAME,
  checkConfig: (ctx) => void accuracyMode(ctx),
  async create(ctx) {
    const mode = accuracyMode(ctx);
    setTimeout(warmIfeval, 0);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: {
        task: Type.Optional(Type.String()),
        domain: Type.Optional(Type.String()),
        setting: Type.Optional(Type.String()),
        instruction: Type.Optional(Type.String()),
        verifier_metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
      },
      verify: (body) => gradeIheval(body),
      // Cross-row: the reference setting's concatenation average and the hierarchical category scores.
      computeMetrics: (tasks) => ihevalMetrics(tasks, mode),
      keyMetrics: ihevalKeyMetrics,
    });
  },
};
