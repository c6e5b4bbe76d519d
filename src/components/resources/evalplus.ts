/**
 * resources_servers/evalplus (components.md §3.6): HumanEval+ / MBPP+ function completions. Strict
 * last-fence extraction, the task prompt prepended unless the code starts with it, then evalplus 0.3.1's
 * base and plus checks on the sandboxed CodeRunner (D27); reward 1 iff both pass.
 *
 * Upstream downloads the release and runs every canonical solution at start-up. Here `gym eval prepare
 * --benchmark human_eval|mbpp` does both once, with the same runner, and leaves `<stem>.jsonl` and
 * `<stem>.expected.json` in `<prepared root>/evalplus/` (or `evalplus_data_dir`); the server only reads
 * them. Missing data or python3 is said at start, and each verify then fails as a `verifier` error.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Type from "typebox";
import { preparedRoot } from "../../assets/embedded.ts";
import { ConfigError, RuntimeError } from "../../errors.ts";
import { log } from "../../log.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { highestKMetrics, passMajorityMetrics, type ScoreFn } from "../../verify/aggregate-metrics.ts";
import { EXPECTED_FORMAT, EVALPLUS_RELEASES, evalplusCheck, evalplusSolution, extractCodeStrict, parseRelease, releaseStem, type EvalplusDataset, type EvalplusTask, type EvalplusTruth } from "../../verify/code/evalplus.ts";
import { outputText } from "../../verify/response-text.ts";
import { pyStrRepr } from "../../util/py-repr.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { startCodeRunner } from "./_code-runner.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "EvalPlusResourcesServer";

/** Upstream `_score_fn`: the base and plus verdicts as scores. */
export const evalplusScore: ScoreFn = (r) => ({ passing_base_tests: r.is_correct === true ? 1 : 0, passing_plus_tests: r.is_correct_plus === true ? 1 : 0 });

/** Upstream compute_metrics: pass@k / majority@k of both scores, voting on the extracted code. */
export function evalplusComputeMetrics(tasks: Obj[][]): Obj {
  return passMajorityMetrics(tasks, evalplusScore, "extracted_model_code");
}

/** Upstream get_key_metrics: token means and the highest-k pass@1[avg], pass@k, majority@k of both scores. */
export function evalplusKeyMetrics(am: Obj): Obj {
  const key: Obj = {};
  for (const n of ["mean/input_tokens", "mean/output_tokens"]) if (n in am) key[n] = am[n];
  const scoreNames = ["passing_base_tests", "passing_plus_tests"];
  for (const p of ["pass@1[avg-of-{k}]", "pass@{k}", "majority@{k}"]) Object.assign(key, highestKMetrics(am, p, { scoreNames }));
  return key;
}

interface Settings {
  dataset: EvalplusDataset;
  processes: number;
  minTimeLimit: number;
  gtTimeLimitFactor: number;
  version: string;
  dataDir: string | undefined;
}

function settings(ctx: Pick<ComponentContext, "instanceName" | "config">): Settings {
  const c = ctx.config;
  const bad = (k: string, what: string) => new ConfigError(`${ctx.instanceName}: ${k} must be ${what}, got ${JSON.stringify(c[k])}`, { key: k });
  const dataset = c.dataset;
  if (dataset !== "humaneval" && dataset !== "mbpp") throw bad("dataset", "humaneval or mbpp");
  const processes = c.num_processes ?? 8;
  if (typeof processes !== "number" || !Number.isInteger(processes) || processes < 1) throw bad("num_processes", "a positive integer");
  const num = (k: string, fallback: number) => {
    const v = c[k] ?? fallback;
    if (typeof v !== "number" || !(v > 0)) throw bad(k, "a positive number");
    return v;
  };
  const version = c.evalplus_version ?? "default";
  if (typeof version !== "string") throw bad("evalplus_version", "a string");
  const dataDir = c.evalplus_data_dir;
  if (dataDir !== undefined && dataDir !== null && typeof dataDir !== "string") throw bad("evalplus_data_dir", "a directory path");
  return { dataset, processes, minTimeLimit: num("min_time_limit", 1.0), gtTimeLimitFactor: num("gt_time_limit_factor", 4.0), version, dataDir: dataDir ?? undefined };
}

/** The prepared data of one dataset: tasks by id and their ground truth. */
export interface EvalplusData {
  tasks: Map<string, EvalplusTask>;
  truth: Record<string, EvalplusTruth>;
}

/** Where `gym eval prepare` leaves a dataset's release and expected outputs. */
export function evalplusDataDir(dataDir?: string): string {
  return dataDir ?? join(preparedRoot(), "evalplus");
}

/** Read the prepared release and expected outputs; a missing or stale file is a RuntimeError saying how to prepare. */
export function loadEvalplusData(dir: string, dataset: EvalplusDataset, version = "default"): EvalplusData {
  const stem = releaseStem(dataset, version);
  const release = join(dir, `${stem}.jsonl`);
  const expected = join(dir, `${stem}.expected.json`);
  const benchmark = dataset === "humaneval" ? "human_eval" : "mbpp";
  const hint = `run \`gym eval prepare --benchmark ${benchmark}\` (it downloads ${EVALPLUS_RELEASES[dataset].name} and computes the expected outputs once), or point evalplus_data_dir at the folder holding ${stem}.jsonl`;
  if (!existsSync(release) || !existsSync(expected)) throw new RuntimeError(`evalplus data for '${dataset}' is not prepared: ${existsSync(release) ? expected : release} does not exist`, { code: "E_EVALPLUS_DATA", hint });
  const bytes = readFileSync(release);
  const truthFile = JSON.parse(readFileSync(expected, "utf8")) as { format?: string; source_sha256?: string; tasks?: Record<string, EvalplusTruth> };
  const sha = createHash("sha256").update(bytes).digest("hex");
  if (truthFile.format !== EXPECTED_FORMAT || truthFile.source_sha256 !== sha || typeof truthFile.tasks !== "object") {
    throw new RuntimeError(`${expected} does not belong to ${release} (computed from another release file, or from an older gym)`, { code: "E_EVALPLUS_DATA", hint });
  }
  const tasks = new Map(parseRelease(bytes.toString("utf8"), release).map((t) => [t.taskId, t]));
  return { tasks, truth: truthFile.tasks };
}

/** The evalplus component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "evalplus",
  className: CLASS_NAME,
  checkConfig(ctx) {
    settings(ctx);
  },
  async create(ctx) {
    const cfg = settings(ctx);
    const runner = await startCodeRunner(ctx.instanceName, cfg.processes);
    let data: EvalplusData | RuntimeError;
    try {
      data = loadEvalplusData(evalplusDataDir(cfg.dataDir), cfg.dataset, cfg.version);
      log.info(`${ctx.instanceName}: ${data.tasks.size} ${cfg.dataset} tasks with expected outputs`);
    } catch (e) {
      if (!(e instanceof RuntimeError)) throw e;
      data = e;
      log.error(`${ctx.instanceName}: ${e.message} — every /verify will fail as a verifier error; ${e.hint}`);
    }
    const limits = { minTimeLimit: cfg.minTimeLimit, gtTimeLimitFactor: cfg.gtTimeLimitFactor };
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { verifier_metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])) },
      reverifyMode: "stateless",
      computeMetrics: evalplusComputeMetrics,
      keyMetrics: evalplusKeyMetrics,
      async verify(body) {
        const fields = await verifyOne(body);
        // EvalPlusVerifyResponse(**body.model_dump()): the request's verifier_metadata comes back.
        return { ...fields, verifier_metadata: body.verifier_metadata ?? null } as typeof fields;
      },
    });

    async function verifyOne(body: Obj): Promise<Obj & { reward: number }> {
      const none = { extracted_model_output: null, extracted_model_code: null, base_status: null, plus_status: null, is_correct: false, is_correct_plus: false, metadata: null };
      const taskId = ((body.verifier_metadata ?? null) as Obj | null)?.task_id;
      if (taskId === undefined || taskId === null) return { ...none, reward: 0.0, metadata: { error: "missing task_id in verifier_metadata" } };
      if (data instanceof RuntimeError) throw data;
      const task = typeof taskId === "string" ? data.tasks.get(taskId) : undefined;
      const truth = typeof taskId === "string" ? data.truth[taskId] : undefined;
      if (!task || !truth) return { ...none, reward: 0.0, metadata: { error: `unknown task_id ${typeof taskId === "string" ? pyStrRepr(taskId) : JSON.stringify(taskId)} for dataset '${cfg.dataset}'` } };
      const text = outputText(body.response);
      if (text.trim() === "") return { ...none, reward: 0.0 };
      const code = extractCodeStrict(text);
      if (!code) return { ...none, reward: 0.0, extracted_model_output: text };
      const solution = evalplusSolution(task.prompt, code);
      // Base, then plus, as check_correctness runs them (one after the other, each in its own process).
      const base = await evalplusCheck(runner, cfg.dataset, task, solution, "base", truth.base, truth.base_time, limits);
      const plus = await evalplusCheck(runner, cfg.dataset, task, solution, "plus", truth.plus, truth.plus_time, limits);
      const isCorrect = base.status === "pass";
      const isCorrectPlus = isCorrect && plus.status === "pass";
      return {
        reward: isCorrectPlus ? 1.0 : 0.0,
        extracted_model_output: text,
        extracted_model_code: code,
        base_status: base.status,
        plus_status: plus.status,
        is_correct: isCorrect,
        is_correct_plus: isCorrectPlus,
        // multiprocessing.Array("b") slices to ints, so upstream's details are 1/0.
        metadata: { base_details: base.details.map(Number), plus_details: plus.details.map(Number) },
      };
    }
  },
};
