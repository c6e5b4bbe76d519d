/**
 * What `gym env test` runs where upstream runs the server's pytest suite (cli-config §12 item 13,
 * gym's reading): the server's config plus the built-in offline `scripted_model` (D26), its
 * example rows collated (row validation included), every server started by the supervisor, and
 * the rows sent end to end through the rollout driver. Every row must come back verified with a
 * numeric reward; a deadline bounds the whole run.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configAccess } from "../config/access.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import type { ServerType } from "../config/types.ts";
import { ConfigError } from "../errors.ts";
import { rolloutConfigFrom, rolloutView } from "../rollout/config.ts";
import { rolloutPaths } from "../rollout/paths.ts";
import { E_NO_SPLIT_DATASET, runEval, splitInput } from "../rollout/run-eval.ts";
import type { RunSummary } from "../rollout/summary.ts";
import type { Supervisor } from "../runtime/process/supervisor.ts";
import { fail, pass, type Check } from "./check.ts";

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

/** Recorded reward per task: by `_ng_task_index` when the rows carry it, else by line order. */
function recordedRewards(path: string): Map<number, unknown> {
  const out = new Map<number, unknown>();
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .forEach((l, i) => {
      const row = JSON.parse(l) as Record<string, unknown>;
      const task = typeof row._ng_task_index === "number" ? row._ng_task_index : i;
      if (!out.has(task)) out.set(task, row.reward);
    });
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
  const work = mkdtempSync(join(tmpdir(), `gym-env-test-${opts.name}-`));
  let supervisor: Supervisor | undefined;
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), opts.deadlineMs);
  let keep = false;
  const output = join(work, "rollouts.jsonl");
  try {
    const resolved = await resolveGlobalConfig({
      selectors: { configPaths: [], resourcesServer: opts.name, modelType: "scripted_model", searchDirs: opts.searchDirs },
      overrides: [
        "++head_server.port=0",
        ...(opts.replay ? [`++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${JSON.stringify(opts.replay)}`] : []),
        ...opts.overrides,
      ],
    });
    const { outputDir, input } = splitInput("example", output);
    const cfg = rolloutConfigFrom({
      ...rolloutView(configAccess(resolved)),
      input_jsonl_fpath: input,
      output_jsonl_fpath: output,
      limit: null,
      num_repeats: 1,
      resume_from_cache: false,
    });
    const lines: string[] = [];
    let summary: RunSummary;
    try {
      summary = await runEval({
        resolved,
        cfg,
        serve: {
          split: "example",
          outputDir,
          download: false,
          isBuiltin: opts.isBuiltin,
          supervisor: { out: (l) => lines.push(l), echoServerOutput: false, logDir: join(work, "logs") },
          startAbortMessage: `the servers did not come up within ${opts.deadlineMs / 1000} s`,
          quietShutdown: true,
          onSupervisor: (s) => (supervisor = s),
        },
        driver: { maxAttempts: 1, tty: false, keepResults: true },
        stop: stop.signal,
      });
    } catch (err) {
      if (err instanceof ConfigError && err.code === E_NO_SPLIT_DATASET) {
        return fail(CHECK, `no agent in configs/${opts.name}.yaml has a dataset of type example`, `add one to the agent that drives ${opts.name} (see \`gym env init --resources-server NAME\`)`);
      }
      throw err;
    }
    if (stop.signal.aborted) return fail(CHECK, `timed out after ${opts.deadlineMs / 1000} s (${summary.done}/${summary.total} rollouts done)`, "look for a tool or verify call that hangs");
    const bad = summary.results.filter((r) => typeof r.reward !== "number" || !Number.isFinite(r.reward));
    if (summary.failed > 0 || summary.done !== summary.total || bad.length > 0) {
      keep = true;
      return fail(
        CHECK,
        `${summary.done}/${summary.total} example rows verified, ${summary.failed} failed${bad.length ? `, ${bad.length} without a numeric reward` : ""}${firstFailure(summary.paths.failures)}`,
        `server logs: ${supervisor?.logDir}; reproduce with \`gym eval run --resources-server ${opts.name} --model-type scripted_model --split example -o results/${opts.name}.jsonl\``,
      );
    }
    const mean = summary.results.reduce((a, r) => a + Number(r.reward), 0) / Math.max(1, summary.results.length);
    if (opts.replay) {
      const recorded = recordedRewards(opts.replay);
      const diffs = summary.results
        .filter((r) => recorded.has(Number(r._ng_task_index)) && recorded.get(Number(r._ng_task_index)) !== r.reward)
        .map((r) => `task ${String(r._ng_task_index)}: reward ${String(r.reward)} now, ${String(recorded.get(Number(r._ng_task_index)))} recorded`);
      if (diffs.length > 0) {
        return fail(CHECK, `replaying ${opts.replay} gave different rewards:\n${diffs.join("\n")}`, "the tools or the verifier changed behaviour; if that is intended, record the example rollouts again");
      }
      return pass(CHECK, `${summary.done}/${summary.total} recorded rollouts replayed, every reward as recorded`);
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
