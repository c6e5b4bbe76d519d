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
import { resolveAt } from "../config/interpolate.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import type { ServerType } from "../config/types.ts";
import { collate } from "../dataset/collate.ts";
import { rolloutConfigFrom, rolloutView } from "../rollout/config.ts";
import { runRollouts } from "../rollout/driver.ts";
import { rolloutPaths } from "../rollout/paths.ts";
import { targetsFromConfig } from "../rollout/targets.ts";
import { Supervisor } from "../runtime/process/supervisor.ts";
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

/** Recorded reward per task: by `_ng_task_index` when the rows carry it, else by line order. */
/** What identifies a rollout's task in a recording: its prompt (role and content; servers may add `type`). */
function promptKey(row: Record<string, unknown>): string {
  const input = (row.responses_create_params as { input?: unknown } | undefined)?.input;
  return JSON.stringify(Array.isArray(input) ? input.map((m) => [(m as Record<string, unknown>)?.role, (m as Record<string, unknown>)?.content]) : input);
}

/**
 * Recorded rewards by task index, or by prompt for recordings without `_ng_task_index` (upstream's
 * example rollouts: their line order need not follow example.jsonl, and scripted_model replays by prompt).
 */
function recordedRewards(path: string): { byTask: Map<number, unknown>; byPrompt: Map<string, unknown> } {
  const byTask = new Map<number, unknown>();
  const byPrompt = new Map<string, unknown>();
  for (const l of readFileSync(path, "utf8").split("\n").filter((x) => x.trim() !== "")) {
    const row = JSON.parse(l) as Record<string, unknown>;
    if (typeof row._ng_task_index === "number") {
      if (!byTask.has(row._ng_task_index)) byTask.set(row._ng_task_index, row.reward);
    } else if (!byPrompt.has(promptKey(row))) byPrompt.set(promptKey(row), row.reward);
  }
  return { byTask, byPrompt };
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
  const work = mkdtempSync(join(tmpdir(), `gym-env-test-${opts.name.replaceAll("/", "-")}-`));
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
    const collated = await collate(resolved, {
      mode: "train_preparation",
      outputDir: join(work, "collated"),
      shouldDownload: false,
      overwriteConflicts: false,
      dataSource: "huggingface",
      types: ["example"],
      sidecars: false,
    });
    if (!collated.example) {
      return fail(CHECK, `no agent in configs/${opts.name}.yaml has a dataset of type example`, `add one to the agent that drives ${opts.name} (see \`gym env init --resources-server NAME\`)`);
    }
    let inputPath = collated.example;
    let unrecorded = 0;
    if (opts.replay) {
      // Replay only the example rows that have a recording: upstream's recorded rollouts may repeat
      // a few prompts (arc_agi) or come from an older example.jsonl (math_advanced_calculations).
      // Recordings keyed by task index keep every row (filtering would shift the indices).
      const rec = recordedRewards(opts.replay);
      const rows = readFileSync(collated.example, "utf8").split("\n").filter((l) => l.trim() !== "");
      const kept = rec.byTask.size > 0 ? rows : rows.filter((l) => rec.byPrompt.has(promptKey(JSON.parse(l) as Record<string, unknown>)));
      unrecorded = rows.length - kept.length;
      if (kept.length === 0) {
        return skip(CHECK, `none of the ${rows.length} example rows has a recording in ${opts.replay} (the recordings were made from other prompts); nothing to replay`);
      }
      if (unrecorded > 0) {
        inputPath = join(work, "replay_inputs.jsonl");
        writeFileSync(inputPath, `${kept.join("\n")}\n`);
      }
    }
    const dict = resolved.dict;
    const cfg = rolloutConfigFrom({
      ...rolloutView(dict, (k) => resolveAt(dict, [k])),
      input_jsonl_fpath: inputPath,
      output_jsonl_fpath: output,
      limit: null,
      num_repeats: 1,
      resume_from_cache: false,
    });
    const lines: string[] = [];
    supervisor = new Supervisor({ resolved, isBuiltin: opts.isBuiltin, out: (l) => lines.push(l), echoServerOutput: false, logDir: join(work, "logs") });
    await Promise.race([
      supervisor.start(),
      new Promise((_, reject) => stop.signal.addEventListener("abort", () => reject(new Error(`the servers did not come up within ${opts.deadlineMs / 1000} s`)), { once: true })),
    ]);
    const summary = await runRollouts(cfg, { targets: targetsFromConfig(dict), maxAttempts: 1, tty: false, stop: stop.signal, keepResults: true });
    if (stop.signal.aborted) return fail(CHECK, `timed out after ${opts.deadlineMs / 1000} s (${summary.done}/${summary.total} rollouts done)`, "look for a tool or verify call that hangs");
    const bad = summary.results.filter((r) => typeof r.reward !== "number" || !Number.isFinite(r.reward));
    if (summary.failed > 0 || summary.done !== summary.total || bad.length > 0) {
      keep = true;
      return fail(
        CHECK,
        `${summary.done}/${summary.total} example rows verified, ${summary.failed} failed${bad.length ? `, ${bad.length} without a numeric reward` : ""}${firstFailure(summary.paths.failures)}`,
        `server logs: ${supervisor.logDir}; reproduce with \`gym eval run --resources-server ${opts.name} --model-type scripted_model --split example -o results/${opts.name}.jsonl\``,
      );
    }
    const mean = summary.results.reduce((a, r) => a + Number(r.reward), 0) / Math.max(1, summary.results.length);
    if (opts.replay) {
      const recorded = recordedRewards(opts.replay);
      const want = (r: Record<string, unknown>) => (recorded.byTask.has(Number(r._ng_task_index)) ? recorded.byTask.get(Number(r._ng_task_index)) : recorded.byPrompt.get(promptKey(r)));
      const diffs = summary.results
        .filter((r) => want(r) !== undefined && want(r) !== r.reward)
        .map((r) => `task ${String(r._ng_task_index)}: reward ${String(r.reward)} now, ${String(want(r))} recorded`);
      if (diffs.length > 0) {
        return fail(CHECK, `replaying ${opts.replay} gave different rewards:\n${diffs.join("\n")}`, "the tools or the verifier changed behaviour; if that is intended, record the example rollouts again");
      }
      return pass(CHECK, `${summary.done}/${summary.total} recorded rollouts replayed, every reward as recorded${unrecorded ? ` (${unrecorded} example row(s) without a recording not replayed)` : ""}`);
    }
    return pass(CHECK, `${summary.done}/${summary.total} example rows ran end to end with scripted_model (mean reward ${mean.toFixed(3)})`);
  } catch (err) {
    keep = true;
    const failures = existsSync(rolloutPaths(output).failures) ? firstFailure(rolloutPaths(output).failures) : "";
    return fail(CHECK, `${message(err)}${failures}`, `reproduce with \`gym eval run --resources-server ${opts.name} --model-type scripted_model --split example -o results/${opts.name}.jsonl\``);
  } finally {
    clearTimeout(timer);
    await supervisor?.shutdown({ quiet: true }).catch(() => {});
    // A failed run keeps its server logs for the user (the hint names them).
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
}
