/**
 * resources_servers ruler, ruler2, graphwalks and mrcr: long-context verifiers on
 * verify/rules/long-context.ts, each echoing the row's fields as upstream's extra="allow" models do,
 * with upstream's own compute_metrics / get_key_metrics where it has them.
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { pyError } from "../../servers/py-error.ts";
import { highestKMetrics, passMajorityMetrics, type ScoreFn, type VerifyResponse } from "../../verify/aggregate-metrics.ts";
import { outputText } from "../../verify/response-text.ts";
import {
  extractMcqLetter, graphwalksExpected, graphwalksF1, graphwalksParse, mrcrGrade, ruler2DefaultParse, ruler2Score, RULER2_MATCH_TYPES, rulerMatchAll, rulerMatchPart,
} from "../../verify/rules/long-context.ts";
import { subsetMetrics } from "../../verify/sample-metrics.ts";
import { pyRepr, pyStr } from "../../util/py-str-of.ts";
import { pyStrip } from "../../util/py-str.ts";
import type { BuiltinComponent } from "../registry.ts";

type Obj = Record<string, unknown>;
const RULER_SUBSETS = ["cwe", "fwe", "niah_multikey_1", "niah_multikey_2", "niah_multikey_3", "niah_multiquery", "niah_multivalue", "niah_single_1", "niah_single_2", "niah_single_3", "qa_1", "qa_2", "vt"];
const RULER2_SUBTASKS = ["mk_niah_basic", "mk_niah_easy", "mk_niah_medium", "mk_niah_hard", "mv_niah_basic", "mv_niah_easy", "mv_niah_medium", "mv_niah_hard", "qa_basic", "qa_easy", "qa_medium", "qa_hard"];
const accuracy: ScoreFn = (r) => ({ accuracy: Number(r.reward) });
const rowOf = (body: Obj): Obj => {
  const { responses_create_params: _r, response: _s, ...row } = body;
  return row;
};

/** Upstream's get_key_metrics of these servers: token means, highest-k pass@1[avg] and pass@k (plus extra keys). */
function keyMetrics(extra: (am: Obj) => Obj = () => ({})) {
  return (am: Obj): Obj => {
    const key: Obj = {};
    for (const n of ["mean/input_tokens", "mean/output_tokens"]) if (n in am) key[n] = am[n];
    Object.assign(key, highestKMetrics(am, "pass@1[avg-of-{k}]"), highestKMetrics(am, "pass@{k}"), extra(am));
    return key;
  };
}

/** Pass@k plus a per-field subset breakdown named `<field>=<value>/…` (graphwalks, mrcr). */
function namedSubsetMetrics(field: string) {
  return (tasks: VerifyResponse[][]): Obj => {
    const out: Obj = { ...passMajorityMetrics(tasks, accuracy) };
    for (const [k, v] of Object.entries(subsetMetrics(tasks, field, accuracy))) out[k.includes("/") ? `${field}=${k}` : k] = v;
    return out;
  };
}

/** ruler. */
export const rulerComponent: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "ruler",
  className: "RulerResourcesServer",
  async create(ctx) {
    return resourcesServerApp({
      className: "RulerResourcesServer",
      instanceName: ctx.instanceName,
      verifySchema: { outputs: Type.Array(Type.String()), length: Type.Integer(), subset: Type.String() },
      verify: (body) => {
        const pred = pyStrip(outputText(body.response));
        const refs = body.outputs as string[];
        const subset = body.subset as string;
        if (refs.length === 0) throw pyError("ValueError", subset === "qa_1" || subset === "qa_2" ? "max() arg is an empty sequence" : "division by zero");
        const reward = subset === "qa_1" || subset === "qa_2" ? rulerMatchPart(pred, refs) : rulerMatchAll(pred, refs);
        return { ...rowOf(body), ...Object.fromEntries(RULER_SUBSETS.map((s) => [s, null])), reward, [subset]: reward };
      },
    });
  },
};

/** ruler2. */
export const ruler2Component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "ruler2",
  className: "Ruler2ResourcesServer",
  async create(ctx) {
    return resourcesServerApp({
      className: "Ruler2ResourcesServer",
      instanceName: ctx.instanceName,
      verifySchema: {
        expected_answer: Type.Unknown(),
        eval_type: Type.Optional(Type.String()),
        match_type: Type.Optional(Type.String()),
        task: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        length: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
      },
      verify: (body) => {
        const prediction = outputText(body.response);
        const evalType = (body.eval_type as string | undefined) ?? "ruler2";
        const matchType = (body.match_type as string | undefined) ?? "all";
        const base = { ...rowOf(body), eval_type: evalType, match_type: matchType, task: body.task ?? null, length: body.length ?? null, predicted_answer: ruler2DefaultParse(prediction) };
        if (evalType === "multichoice") {
          const extracted = extractMcqLetter(prediction);
          const gold = body.expected_answer === null || body.expected_answer === undefined ? "" : pyStrip(pyStr(body.expected_answer)).toUpperCase();
          return { ...base, reward: extracted !== null && extracted === gold ? 1.0 : 0.0, extracted_answer: extracted };
        }
        if (!(RULER2_MATCH_TYPES as readonly string[]).includes(matchType)) throw pyError("ValueError", `Unsupported match_type=${pyRepr(matchType)}; expected one of ['2steps', 'all', 'part']`);
        const refs = (Array.isArray(body.expected_answer) ? body.expected_answer : [body.expected_answer]).map((r) => pyStr(r));
        return { ...base, reward: ruler2Score(matchType as (typeof RULER2_MATCH_TYPES)[number], prediction, refs), extracted_answer: null };
      },
      computeMetrics: (tasks) => {
        const out: Obj = { ...passMajorityMetrics(tasks, accuracy) };
        const subsets = subsetMetrics(tasks, "task", accuracy);
        Object.assign(out, subsets);
        // The suite mean (nemo_skills ruler2_score) only when all 12 sub-tasks are in the run.
        const bySuffix = new Map<string, Map<string, number>>();
        for (const [k, v] of Object.entries(subsets)) {
          const i = k.indexOf("/");
          if (i < 0) continue;
          const rest = k.slice(i + 1);
          if (!bySuffix.has(rest)) bySuffix.set(rest, new Map());
          bySuffix.get(rest)!.set(k.slice(0, i), v as number);
        }
        for (const [rest, byTask] of bySuffix) if (RULER2_SUBTASKS.every((t) => byTask.has(t))) out[`ruler2_suite_avg/${rest}`] = RULER2_SUBTASKS.reduce((s, t) => s + byTask.get(t)!, 0) / RULER2_SUBTASKS.length;
        return out;
      },
      keyMetrics: keyMetrics((am) => Object.fromEntries(Object.entries(am).filter(([k]) => k.startsWith("ruler2_suite_avg/")))),
    });
  },
};

/** graphwalks. */
export const graphwalksComponent: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "graphwalks",
  className: "GraphWalksResourcesServer",
  async create(ctx) {
    return resourcesServerApp({
      className: "GraphWalksResourcesServer",
      instanceName: ctx.instanceName,
      verifySchema: {
        expected_answer: Type.String(),
        problem_type: Type.String(),
        n_tokens: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
        prompt_chars: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
      },
      verify: (body) => {
        const { nodes, parseFailed } = graphwalksParse(outputText(body.response));
        const f1 = graphwalksF1(new Set(nodes), graphwalksExpected(body.expected_answer as string), parseFailed);
        return { ...rowOf(body), n_tokens: body.n_tokens ?? null, prompt_chars: body.prompt_chars ?? null, reward: f1, f1, parse_failed: parseFailed, predicted_nodes: nodes };
      },
      computeMetrics: namedSubsetMetrics("problem_type"),
      keyMetrics: keyMetrics(),
    });
  },
};

/** mrcr. */
export const mrcrComponent: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "mrcr",
  className: "MRCRResourcesServer",
  async create(ctx) {
    return resourcesServerApp({
      className: "MRCRResourcesServer",
      instanceName: ctx.instanceName,
      verifySchema: { expected_answer: Type.String(), random_string_to_prepend: Type.String(), n_needles: Type.Integer(), n_tokens: Type.Integer() },
      verify: (body) => {
        const response = pyStrip(outputText(body.response));
        const prefix = body.random_string_to_prepend as string;
        const ratio = mrcrGrade(response, body.expected_answer as string, prefix);
        return { ...rowOf(body), reward: ratio, prefix_matched: response.startsWith(prefix), seq_match_ratio: ratio };
      },
      computeMetrics: namedSubsetMetrics("n_needles"),
      keyMetrics: keyMetrics(),
    });
  },
};
