/**
 * evalplus (HumanEval+ / MBPP+) on the CodeRunner: strict code extraction, the base and plus checks of
 * evalplus 0.3.1's `check_correctness`, and the ground truth (canonical outputs and reference times)
 * computed by running the canonical solutions. The comparisons themselves run in Python (evalplus.py):
 * expected outputs travel as text only that harness reads, so no Python value is reinterpreted here.
 */
import { pyStrip } from "../../util/py-str.ts";
import type { CodeRunner } from "./runner.ts";

/** One evalplus task as the server keeps it: the release row's raw JSON line and the fields read here. */
export interface EvalplusTask {
  taskId: string;
  prompt: string;
  entryPoint: string;
  /** The release file's line for this task (Python parses it: its big ints and floats stay exact). */
  raw: string;
  /** Whether the row has a canonical solution (MBPP+ has a few without). */
  hasCanonical: boolean;
}

/** Canonical outputs and reference times of one task's base and plus inputs. */
export interface EvalplusTruth {
  base: string;
  base_time: number[];
  plus: string;
  plus_time: number[];
}

/** One input set's verdict: evalplus' status and its per-input details (as far as the run got). */
export interface EvalplusOutcome {
  status: "pass" | "fail" | "timeout";
  details: boolean[];
}

/** Time-limit knobs of `check_correctness`. */
export interface EvalplusLimits {
  minTimeLimit: number;
  gtTimeLimitFactor: number;
}

/** Skills' `preprocess_code` strict mode: the last ```python (else ```) block with a closing fence, stripped. */
export function extractCodeStrict(completion: string, language = "python"): string {
  const text = completion.replaceAll("\r", "");
  const specific = "```" + language;
  let start = text.lastIndexOf(specific);
  let len = specific.length;
  if (start < 0) {
    start = text.lastIndexOf("```");
    len = 3;
  }
  if (start < 0) return "";
  const rest = text.slice(start + len);
  const end = rest.indexOf("```");
  return end < 0 ? "" : pyStrip(rest.slice(0, end));
}

/** The program evalplus runs: the prompt prepended unless the code already starts with it. */
export function evalplusSolution(prompt: string, code: string): string {
  return code.startsWith(prompt) ? code : prompt + code;
}

/** A harness failure that is not a verdict (bad data, an unserialisable canonical output). */
export class EvalplusHarnessError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EvalplusHarnessError";
  }
}

/**
 * Run the canonical solutions of a batch of tasks on their base and plus inputs (evalplus' trusted_exec:
 * dataset code, so one child runs the whole batch); outputs come back as the harness' tagged JSON text.
 */
export async function groundTruthOf(runner: CodeRunner, dataset: string, tasks: EvalplusTask[], budgetSecs = 900): Promise<Record<string, EvalplusTruth>> {
  const r = await runner.runRaw({ kind: "evalplus", mode: "groundtruth", dataset, rows: tasks.map((t) => t.raw), answer_cap: 1024 ** 3 }, budgetSecs);
  const a = r.answer;
  const which = `${tasks[0]?.taskId ?? "?"}…${tasks.at(-1)?.taskId ?? "?"}`;
  if (!a) throw new EvalplusHarnessError(`${which}: the canonical solutions ${r.killed ? `did not finish within ${budgetSecs} s` : "crashed the interpreter"}`);
  if (typeof a.error === "string") throw new EvalplusHarnessError(`${which}: ${a.error}`);
  return a.tasks as Record<string, EvalplusTruth>;
}

/**
 * evalplus `untrusted_check` for one input set: per-input limits max(min, factor · ref_time), the whole
 * run killed at min(60, Σ limits) + 3 s (upstream's process timeout, data-collection second and join
 * grace); a killed or dead run is a timeout with the inputs it finished, as evalplus reads its counters.
 */
export async function evalplusCheck(runner: CodeRunner, dataset: string, task: EvalplusTask, solution: string, which: "base" | "plus", expected: string, refTime: number[], limits: EvalplusLimits): Promise<EvalplusOutcome> {
  const perInput = refTime.map((t) => Math.max(limits.minTimeLimit, limits.gtTimeLimitFactor * t));
  const budget = Math.min(60, perInput.reduce((a, b) => a + b, 0)) + 3;
  const r = await runner.runRaw({ kind: "evalplus", mode: "check", dataset, which, row: task.raw, code: solution, expected, ref_time: refTime, min_time_limit: limits.minTimeLimit, factor: limits.gtTimeLimitFactor }, budget);
  const a = r.answer;
  if (!a) return { status: "timeout", details: [...r.progress].map((c) => c === "1") };
  if (typeof a.error === "string") throw new EvalplusHarnessError(`${task.taskId} ${which}: ${a.error}`);
  return { status: a.status as EvalplusOutcome["status"], details: a.details as boolean[] };
}

/** Release file names and versions per `dataset` (evalplus 0.3.1's defaults). */
export const EVALPLUS_RELEASES = {
  humaneval: { name: "HumanEvalPlus", version: "v0.1.10", count: 164 },
  mbpp: { name: "MbppPlus", version: "v0.2.0", count: 378 },
} as const;

/** The dataset names the server accepts. */
export type EvalplusDataset = keyof typeof EVALPLUS_RELEASES;

/** File stem of a release as evalplus caches it (`HumanEvalPlus-v0.1.10`); upstream's HumanEval path ignores the version knob. */
export function releaseStem(dataset: EvalplusDataset, version = "default"): string {
  const r = EVALPLUS_RELEASES[dataset];
  return `${r.name}-${dataset === "humaneval" || version === "default" ? r.version : version}`;
}

/** The tasks of a release file (one JSON object per line); `where` names it in errors. */
export function parseRelease(text: string, where: string): EvalplusTask[] {
  const tasks: EvalplusTask[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let row: Record<string, unknown>;
    try {
      row = JSON.parse(line) as Record<string, unknown>;
    } catch (e) {
      throw new EvalplusHarnessError(`${where}:${i + 1}: not valid JSON (${(e as Error).message})`);
    }
    const { task_id, prompt, entry_point, canonical_solution } = row;
    if (typeof task_id !== "string" || typeof prompt !== "string" || typeof entry_point !== "string" || !Array.isArray(row.base_input) || !Array.isArray(row.plus_input)) {
      throw new EvalplusHarnessError(`${where}:${i + 1}: an evalplus task needs task_id, prompt, entry_point, base_input and plus_input`);
    }
    tasks.push({ taskId: task_id, prompt, entryPoint: entry_point, raw: line, hasCanonical: typeof canonical_solution === "string" && canonical_solution !== "" });
  });
  return tasks;
}

/** The expected-outputs file format written beside the prepared data. */
export const EXPECTED_FORMAT = "gym-evalplus-expected/1";

/** Every task's ground truth (tasks without a canonical solution are left out, as evalplus filters them), in batches. */
export async function computeGroundTruth(runner: CodeRunner, dataset: EvalplusDataset, tasks: EvalplusTask[], batch = 16): Promise<Record<string, EvalplusTruth>> {
  const todo = tasks.filter((t) => t.hasCanonical);
  const batches: EvalplusTask[][] = [];
  for (let i = 0; i < todo.length; i += batch) batches.push(todo.slice(i, i + batch));
  const parts = await Promise.all(batches.map((b) => groundTruthOf(runner, dataset, b)));
  return Object.assign({}, ...parts) as Record<string, EvalplusTruth>;
}
