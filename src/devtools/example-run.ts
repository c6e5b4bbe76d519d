/**
 * What `gym env test` runs where upstream runs the server's pytest suite (cli-config §12 item 13,
 * gym's reading): the server's config plus the built-in offline `scripted_model` (D26), its
 * example rows collated (row validation included), every server started by the supervisor, and
 * the rows sent end to end through the rollout driver. Every row must come back verified with a
 * numeric reward; a deadline bounds the whole run.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configAccess } from "../config/access.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import type { ServerType } from "../config/types.ts";
import { ConfigError } from "../errors.ts";
import { rolloutConfigFrom, rolloutView } from "../rollout/config.ts";
import { rolloutPaths } from "../rollout/paths.ts";
import { E_NO_SPLIT_DATASET, prepareSplit, runEval } from "../rollout/run-eval.ts";
import { fail, pass, skip, type Check } from "./check.ts";

/** Inputs of one end-to-end example run. */
export interface ExampleRunOptions {
  /** Resources server name (`--resources-server` selector). */
  name: string;
  searchDirs: string[];
  /** Extra override tokens from the command line. */
  overrides: string[];
  isBuiltin: (t: ServerType, impl: string) => boolean;
  /** Deadline of the whole run (start, 5 rollouts, shutdown), ms. */
  deadlineMs: number;
  /**
   * Replay these recorded rollouts (`data/example_rollouts.jsonl`) through scripted_model instead
   * of scripted answers, and require each task's reward to equal the recorded one: a regression
   * test of the server's tools and verifier against known-good trajectories.
   */
  replay?: string;
}

/**
 * Recorded reward per task: by `_ng_task_index` when the rows carry it; else by the row's input
 * messages (older upstream recordings carry no index and are not in example.jsonl's order).
 */
function recordedRewards(path: string): (result: Record<string, unknown>) => unknown {
  const byTask = new Map<number, unknown>();
  const byInput = new Map<string, unknown>();
  let indexed = false;
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .forEach((l, i) => {
      const row = JSON.parse(l) as Record<string, unknown>;
      if (typeof row._ng_task_index === "number") indexed = true;
      const task = typeof row._ng_task_index === "number" ? row._ng_task_index : i;
      if (!byTask.has(task)) byTask.set(task, row.reward);
      const key = inputKey(row);
      if (key !== undefined && !byInput.has(key)) byInput.set(key, row.reward);
    });
  return (r) => {
    if (!indexed) {
      const key = inputKey(r);
      if (key !== undefined && byInput.has(key)) return byInput.get(key);
    }
    return byTask.get(Number(r._ng_task_index));
  };
}

function inputKey(row: Record<string, unknown>): string | undefined {
  const input = (row.responses_create_params as { input?: unknown } | undefined)?.input;
  if (input === undefined) return undefined;
  // Recordings may spell a message with extra defaults (`type: "message"`): key on role + content.
  if (!Array.isArray(input)) return canonical(input);
  return canonical(input.map((m) => (m && typeof m === "object" ? [(m as Record<string, unknown>).role, (m as Record<string, unknown>).content] : m)));
}

/** JSON with object keys sorted (recordings and collated rows order keys differently). */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/**
 * Overrides that point every `judge_model_server` of the `impl` resources servers at policy_model,
 * and remove (`~name`) each judge instance no other server refers to.
 */
export function offlineJudgeOverrides(dict: Record<string, unknown>, impl: string): string[] {
  const out: string[] = [];
  const judges = new Set<string>();
  for (const [inst, v] of Object.entries(dict)) {
    const leaf = ((v as Record<string, unknown> | null)?.resources_servers as Record<string, unknown> | undefined)?.[impl] as Record<string, unknown> | undefined;
    const name = (leaf?.judge_model_server as { name?: unknown } | undefined)?.name;
    if (typeof name !== "string" || name === "policy_model") continue;
    out.push(`++${inst}.resources_servers.${impl}.judge_model_server.name=policy_model`);
    judges.add(name);
  }
  for (const name of judges) {
    if (!(name in dict)) continue;
    // References left once the judge refs above are redirected (count every {type, name} object naming it).
    let refs = 0;
    const walk = (x: unknown, key: string) => {
      if (Array.isArray(x)) x.forEach((y) => walk(y, key));
      else if (x && typeof x === "object") {
        const o = x as Record<string, unknown>;
        if (o.name === name && o.type === "responses_api_models" && key !== "judge_model_server") refs++;
        for (const [k, y] of Object.entries(o)) walk(y, k);
      }
    };
    for (const [inst, v] of Object.entries(dict)) if (inst !== name) walk(v, "");
    if (refs === 0) out.push(`~${name}`);
  }
  return out;
}

function message(err: unknown): string {
  const e = err as { message?: string; hint?: string };
  return `${e.message ?? String(err)}${e.hint ? ` (${e.hint})` : ""}`;
}

/** The first failure record's reason, for the report. */
function firstFailure(path: string): string {
  try {
    const line = readFileSync(path, "utf8").split("\n").find((l) => l.trim() !== "");
    if (!line) return "";
    const rec = JSON.parse(line) as Record<string, unknown>;
    const reason = [rec._ng_failure_message, rec._ng_failure_response_body].filter((x) => typeof x === "string" && x !== "").join(": ");
    return `; first failure (${String(rec._ng_failure_category ?? "?")}): ${reason.slice(0, 400)}`;
  } catch {
    return "";
  }
}

/** Run the server's example rows end to end with `scripted_model`; one check. */
export async function exampleRun(opts: ExampleRunOptions): Promise<Check> {
  const CHECK = opts.replay ? "replay" : "example run";
  const work = mkdtempSync(join(tmpdir(), `gym-env-test-${opts.name.replaceAll("/", "_")}-`));
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), opts.deadlineMs);
  let keep = false;
  const output = join(work, "rollouts.jsonl");
  try {
    const resolve = (extra: string[]) =>
      resolveGlobalConfig({
        selectors: { configPaths: [], resourcesServer: opts.name, modelType: "scripted_model", searchDirs: opts.searchDirs },
        overrides: [
          "++head_server.port=0",
          ...(opts.replay ? [`++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${JSON.stringify(opts.replay)}`] : []),
          ...extra,
          ...opts.overrides,
        ],
      });
    // A flavored selector (`name/flavor`) names the implementation before the slash.
    const impl = opts.name.split("/")[0]!;
    let resolved: Awaited<ReturnType<typeof resolveGlobalConfig>>;
    let judgeOverrides: string[] = [];
    try {
      resolved = await resolve([]);
    } catch (e) {
      // A judge model defined in a separate upstream config (math_with_autograder's judge_model) is not in
      // this run: the scripted model stands in for it, replaying the recorded judge answers (D26).
      const m = /In server instance '([^']+)', field 'judge_model_server' references responses_api_models\/'[^']+', which is not defined/.exec(String((e as Error).message));
      if (!m) throw e;
      judgeOverrides = [`++${m[1]}.resources_servers.${impl}.judge_model_server.name=policy_model`];
      resolved = await resolve(judgeOverrides);
    }
    // The run is offline with scripted_model (D26): a judge on any other model server (a hosted
    // endpoint, a URL left to env.yaml, a local vLLM) is replaced by the scripted model too, which
    // answers or replays the judge calls; the judge's own instance is dropped when nothing else uses it.
    const redirect = opts.overrides.some((o) => o.includes("judge_model_server")) ? [] : offlineJudgeOverrides(resolved.dict, impl);
    if (redirect.length > 0) resolved = await resolve([...judgeOverrides, ...redirect]);
    let example: string;
    try {
      example = await prepareSplit(resolved, { split: "example", outputDir: join(work, "collated"), download: false });
    } catch (e) {
      if (!(e instanceof ConfigError && e.code === E_NO_SPLIT_DATASET)) throw e;
      return fail(CHECK, `no agent in configs/${opts.name}.yaml has a dataset of type example`, `add one to the agent that drives ${opts.name} (see \`gym env init --resources-server NAME\`)`);
    }
    // Replay only the example rows that have a recording (upstream's example_rollouts.jsonl does not
    // always cover every example row, e.g. iheval's multi-turn row).
    let inputPath = example;
    let uncovered = 0;
    if (opts.replay) {
      const recordedInputs = new Set(
        readFileSync(opts.replay, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => inputKey(JSON.parse(l) as Record<string, unknown>)),
      );
      const rows = readFileSync(example, "utf8").split("\n").filter((l) => l.trim() !== "");
      const kept = rows.filter((l) => recordedInputs.has(inputKey(JSON.parse(l) as Record<string, unknown>)));
      uncovered = rows.length - kept.length;
      // Recordings made from other prompts (upstream re-made math_advanced_calculations' examples after recording).
      if (kept.length === 0) return skip(CHECK, `none of the ${rows.length} example rows has a recording in ${opts.replay} (the recordings were made from other prompts); nothing to replay`);
      if (uncovered > 0) {
        inputPath = join(work, "replayable.jsonl");
        writeFileSync(inputPath, kept.map((l) => `${l}\n`).join(""));
      }
    }
    const cfg = rolloutConfigFrom({
      ...rolloutView(configAccess(resolved)),
      input_jsonl_fpath: inputPath,
      output_jsonl_fpath: output,
      limit: null,
      num_repeats: 1,
      resume_from_cache: false,
    });
    const lines: string[] = [];
    const logDir = join(work, "logs");
    const summary = await runEval({
      resolved,
      cfg,
      serve: {
        isBuiltin: opts.isBuiltin,
        supervisor: { out: (l) => lines.push(l), echoServerOutput: false, logDir },
        startAbortMessage: `the servers did not come up within ${opts.deadlineMs / 1000} s`,
        quietShutdown: true,
      },
      driver: { maxAttempts: 1, tty: false, keepResults: true },
      stop: stop.signal,
    });
    if (stop.signal.aborted) return fail(CHECK, `timed out after ${opts.deadlineMs / 1000} s (${summary.done}/${summary.total} rollouts done)`, "look for a tool or verify call that hangs");
    const bad = summary.results.filter((r) => typeof r.reward !== "number" || !Number.isFinite(r.reward));
    if (summary.failed > 0 || summary.done !== summary.total || bad.length > 0) {
      keep = true;
      return fail(
        CHECK,
        `${summary.done}/${summary.total} example rows verified, ${summary.failed} failed${bad.length ? `, ${bad.length} without a numeric reward` : ""}${firstFailure(summary.paths.failures)}`,
        `server logs: ${logDir}; reproduce with \`gym eval run --resources-server ${opts.name} --model-type scripted_model --split example -o results/${opts.name}.jsonl\``,
      );
    }
    const mean = summary.results.reduce((a, r) => a + Number(r.reward), 0) / Math.max(1, summary.results.length);
    if (opts.replay) {
      const recorded = recordedRewards(opts.replay);
      const diffs = summary.results
        .filter((r) => recorded(r) !== undefined && recorded(r) !== r.reward)
        .map((r) => `task ${String(r._ng_task_index)}: reward ${String(r.reward)} now, ${String(recorded(r))} recorded`);
      if (diffs.length > 0) {
        return fail(CHECK, `replaying ${opts.replay} gave different rewards:\n${diffs.join("\n")}`, "the tools or the verifier changed behaviour; if that is intended, record the example rollouts again");
      }
      return pass(CHECK, `${summary.done}/${summary.total} recorded rollouts replayed, every reward as recorded${uncovered ? ` (${uncovered} example row(s) have no recording)` : ""}`);
    }
    return pass(CHECK, `${summary.done}/${summary.total} example rows ran end to end with scripted_model (mean reward ${mean.toFixed(3)})`);
  } catch (err) {
    keep = true;
    const failures = existsSync(rolloutPaths(output).failures) ? firstFailure(rolloutPaths(output).failures) : "";
    return fail(CHECK, `${message(err)}${failures}`, `reproduce with \`gym eval run --resources-server ${opts.name} --model-type scripted_model --split example -o results/${opts.name}.jsonl\``);
  } finally {
    clearTimeout(timer);
    // A failed run keeps its server logs for the user (the hint names them).
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
}
