/**
 * resources_servers/code_fim: HumanEval-Infilling completions. Skills' unstripped last-fence extraction and
 * overlap trimming, then human-eval-infilling's check on the sandboxed CodeRunner (D27); reward 1 iff
 * "passed". The split's problem file is left in `<prepared root>/human_eval_infilling/` by `gym eval
 * prepare --benchmark human_eval_infilling` (or `fim_data_dir`); upstream downloads it at start-up.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Type from "typebox";
import { preparedRoot } from "../../assets/embedded.ts";
import { ConfigError, RuntimeError } from "../../errors.ts";
import { log } from "../../log.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { pyStrRepr } from "../../util/py-repr.ts";
import { highestKMetrics, passMajorityMetrics, type ScoreFn } from "../../verify/aggregate-metrics.ts";
import { extractFimCode, fimCheck, postprocessCompletion } from "../../verify/code/fim.ts";
import { outputText } from "../../verify/response-text.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { startCodeRunner } from "./_code-runner.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "CodeFIMResourcesServer";

/** The problem file of each split (human-eval-infilling's names). */
export const FIM_SPLIT_FILES = {
  single_line: "HumanEval-SingleLineInfilling",
  multi_line: "HumanEval-MultiLineInfilling",
  random_span: "HumanEval-RandomSpanInfilling",
  random_span_light: "HumanEval-RandomSpanInfillingLight",
} as const;

/** Where the preparer leaves the problem files (under the prepared root). */
export const FIM_DATA_DIR = "human_eval_infilling";

/** Upstream `_score_fn`. */
export const fimScore: ScoreFn = (r) => ({ accuracy: r.passed === true ? 1 : 0 });

/** Upstream compute_metrics: pass@k / majority@k voting on the post-processed completion. */
export function fimComputeMetrics(tasks: Obj[][]): Obj {
  return passMajorityMetrics(tasks, fimScore, "completion");
}

/** Upstream get_key_metrics: token means and the highest-k pass@1[avg], pass@k, majority@k. */
export function fimKeyMetrics(am: Obj): Obj {
  const key: Obj = {};
  for (const n of ["mean/input_tokens", "mean/output_tokens"]) if (n in am) key[n] = am[n];
  for (const p of ["pass@1[avg-of-{k}]", "pass@{k}", "majority@{k}"]) Object.assign(key, highestKMetrics(am, p, { scoreNames: ["accuracy"] }));
  return key;
}

function settings(ctx: Pick<ComponentContext, "instanceName" | "config">) {
  const c = ctx.config;
  const bad = (k: string, what: string) => new ConfigError(`${ctx.instanceName}: ${k} must be ${what}, got ${JSON.stringify(c[k])}`, { key: k });
  const split = (c.split ?? "random_span") as string;
  if (!Object.hasOwn(FIM_SPLIT_FILES, split)) throw bad("split", Object.keys(FIM_SPLIT_FILES).join(" | "));
  const processes = c.num_processes ?? 8;
  if (typeof processes !== "number" || !Number.isInteger(processes) || processes < 1) throw bad("num_processes", "a positive integer");
  const timeout = c.timeout ?? 3.0;
  if (typeof timeout !== "number" || !(timeout > 0)) throw bad("timeout", "a positive number of seconds");
  const dataDir = c.fim_data_dir;
  if (dataDir !== undefined && dataDir !== null && typeof dataDir !== "string") throw bad("fim_data_dir", "a directory path");
  return { split: split as keyof typeof FIM_SPLIT_FILES, processes, timeout, dataDir: (dataDir as string | null | undefined) ?? join(preparedRoot(), FIM_DATA_DIR) };
}

/** A split's problems by task_id: the raw line (for Python) and the prefix/suffix read here. */
export function loadFimProblems(dir: string, split: keyof typeof FIM_SPLIT_FILES): Map<string, { raw: string; prompt: string; suffix: string }> {
  const file = join(dir, `${FIM_SPLIT_FILES[split]}.jsonl`);
  if (!existsSync(file)) {
    throw new RuntimeError(`HumanEval-Infilling split '${split}' is not prepared: ${file} does not exist`, { code: "E_FIM_DATA", hint: "run `gym eval prepare --benchmark human_eval_infilling` (it downloads every split), or point fim_data_dir at the folder holding it" });
  }
  const out = new Map<string, { raw: string; prompt: string; suffix: string }>();
  readFileSync(file, "utf8").split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    const row = JSON.parse(raw) as Obj;
    if (typeof row.task_id !== "string" || typeof row.prompt !== "string" || typeof row.suffix !== "string") throw new RuntimeError(`${file}:${i + 1}: a problem needs task_id, prompt and suffix`);
    out.set(row.task_id, { raw, prompt: row.prompt, suffix: row.suffix });
  });
  return out;
}

/** The code_fim component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "code_fim",
  className: CLASS_NAME,
  checkConfig(ctx) {
    settings(ctx);
  },
  async create(ctx) {
    const cfg = settings(ctx);
    const runner = await startCodeRunner(ctx.instanceName, cfg.processes);
    let problems: ReturnType<typeof loadFimProblems> | RuntimeError;
    try {
      problems = loadFimProblems(cfg.dataDir, cfg.split);
    } catch (e) {
      if (!(e instanceof RuntimeError)) throw e;
      problems = e;
      log.error(`${ctx.instanceName}: ${e.message} — every /verify will fail as a verifier error; ${e.hint}`);
    }
    const verifyOne = async (body: Obj): Promise<Obj & { reward: number }> => {
      const none = { extracted_model_output: null, extracted_model_code: null, completion: null, status: null, passed: false, metadata: null };
      const taskId = ((body.verifier_metadata ?? null) as Obj | null)?.task_id;
      if (taskId === undefined || taskId === null) return { ...none, reward: 0.0, metadata: { error: "missing task_id in verifier_metadata" } };
      if (problems instanceof RuntimeError) throw problems;
      const problem = typeof taskId === "string" ? problems.get(taskId) : undefined;
      if (!problem) return { ...none, reward: 0.0, metadata: { error: `unknown task_id ${typeof taskId === "string" ? pyStrRepr(taskId) : JSON.stringify(taskId)} for split '${cfg.split}'` } };
      const text = outputText(body.response);
      if (!text) return { ...none, reward: 0.0 };
      const code = extractFimCode(text);
      if (!code) return { ...none, reward: 0.0, extracted_model_output: text };
      const completion = postprocessCompletion(code, problem.prompt, problem.suffix);
      const r = await fimCheck(runner, problem.raw, completion, cfg.timeout);
      return { reward: r.passed ? 1.0 : 0.0, extracted_model_output: text, extracted_model_code: code, completion, status: r.result, passed: r.passed, metadata: null };
    };
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { verifier_metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])) },
      reverifyMode: "stateless",
      computeMetrics: fimComputeMetrics,
      keyMetrics: fimKeyMetrics,
      async verify(body) {
        const fields = await verifyOne(body);
        return { ...fields, verifier_metadata: body.verifier_metadata ?? null } as typeof fields;
      },
    });
  },
};
