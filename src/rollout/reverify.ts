/**
 * `gym eval reverify`: recompute rewards from stored rollouts without calling the policy — each
 * stored trajectory goes back to its resources server's `/verify` (only servers whose
 * `GET /reverify_mode` is `"stateless"`, unless forced). Output and failures are journaled like
 * collection (one line per record, resume skips pairs already written).
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import { postJson } from "./http.ts";
import { pairKey } from "./journal.ts";
import { JsonlAppender, repairTornTail } from "./jsonl.ts";
import { readJsonl } from "../util/jsonl.ts";
import { rolloutPaths } from "./paths.ts";
import type { Row } from "./record.ts";

/** Reverify settings. */
export interface ReverifyOptions {
  rollouts: string;
  /** Materialized inputs of the run; when given, the verify body starts from the input row. */
  inputs?: string;
  output: string;
  concurrency: number;
  limit?: number;
  judgeFailedOnly: boolean;
  force: boolean;
  /** fresh: refuse an existing output unless `overwrite`; append: add; resume: skip pairs already in the output. */
  mode: "fresh" | "append" | "resume";
  overwrite: boolean;
  timeoutMs: number;
  retryBudgetMs: number;
}

/** Where an agent's resources server listens (undefined when the agent has none). */
export type ResourcesUrlFor = (agent: string) => string | undefined;

/** Counts of one reverify run. */
export interface ReverifySummary {
  verified: number;
  copied: number;
  skipped: number;
  failed: number;
  changed: number;
}

const DROP = new Set(["reward", "_ng_environment_server", "_ng_result_type", "ng_model_call_capture", "ng_trajectory", "ng_agent_observations", "verification_skipped"]);

function judgeFailed(r: Row): boolean {
  return r.judge_failed === true || r._ng_failure_class === "judge_failed" || r._ng_failure_kind === "judge_failed";
}

/** Run a reverification. */
export async function reverify(opts: ReverifyOptions, rsFor: ResourcesUrlFor): Promise<ReverifySummary> {
  const paths = rolloutPaths(opts.output);
  mkdirSync(dirname(opts.output), { recursive: true });
  const done = new Set<number>();
  if (existsSync(opts.output)) {
    if (opts.mode === "fresh" && !opts.overwrite) {
      throw new ConfigError(`output ${opts.output} already exists`, { key: "output_jsonl_fpath", hint: "pass --overwrite to replace it, --append to add to it, or --resume to continue it" });
    }
    if (opts.mode === "fresh") for (const f of [paths.output, paths.failures, paths.aggregate]) rmSync(f, { force: true });
    else {
      repairTornTail(opts.output);
      if (opts.mode === "resume") for await (const { value, lineNo } of readJsonl(opts.output)) done.add(pairKey(Number(value._ng_task_index ?? 0), Number(value._ng_rollout_index ?? 0), { file: opts.output, line: lineNo }));
    }
  }
  const inputs = new Map<number, Row>();
  if (opts.inputs) for await (const { value, lineNo } of readJsonl(opts.inputs)) inputs.set(pairKey(Number(value._ng_task_index ?? 0), Number(value._ng_rollout_index ?? 0), { file: opts.inputs, line: lineNo }), value);

  const modes = new Map<string, Promise<string>>();
  const modeOf = (base: string) => {
    let m = modes.get(base);
    if (!m) {
      m = fetch(`${base}/reverify_mode`, { signal: AbortSignal.timeout(30_000), proxy: false } as RequestInit)
        .then(async (r) => (r.ok ? String(await r.json()) : "unknown"))
        .catch(() => "unknown");
      modes.set(base, m);
    }
    return m;
  };

  const out = new JsonlAppender(opts.output);
  const fails = new JsonlAppender(paths.failures);
  const summary: ReverifySummary = { verified: 0, copied: 0, skipped: 0, failed: 0, changed: 0 };
  const running = new Set<Promise<void>>();
  let n = 0;
  try {
    for await (const { value: rollout, lineNo } of readJsonl(opts.rollouts)) {
      if (opts.limit !== undefined && n >= opts.limit) break;
      n++;
      const key = pairKey(Number(rollout._ng_task_index ?? 0), Number(rollout._ng_rollout_index ?? 0), { file: opts.rollouts, line: lineNo });
      if (done.has(key)) {
        summary.skipped++;
        continue;
      }
      if (opts.judgeFailedOnly && !judgeFailed(rollout)) {
        out.append(rollout);
        summary.copied++;
        continue;
      }
      const agent = (rollout.agent_ref as { name?: string } | undefined)?.name ?? "";
      const base = rsFor(agent);
      if (!base) throw new ConfigError(`agent '${agent}' has no resources_server in the config, so its rollouts cannot be re-verified`, { hint: "pass the config the rollouts were collected with" });
      const mode = await modeOf(base);
      if (mode !== "stateless" && !opts.force) {
        throw new ConfigError(`the resources server of agent '${agent}' (${base}) reports reverify_mode=${JSON.stringify(mode)}, not "stateless"`, {
          hint: "its verify depends on session state; pass --force to re-verify anyway",
        });
      }
      while (running.size >= opts.concurrency) await Promise.race(running);
      const p = (async () => {
        const body: Row = { ...(inputs.get(key) ?? {}) };
        for (const [k, v] of Object.entries(rollout)) if (!DROP.has(k)) body[k] = v;
        const res = await postJson(`${base}/verify`, JSON.stringify(body), { timeoutMs: opts.timeoutMs, retryBudgetMs: opts.retryBudgetMs });
        const stamps: Row = {};
        for (const k of ["_ng_task_index", "_ng_rollout_index", "agent_ref", "_ng_environment_server", "_ng_result_type", "_ng_attempt_index", "_ng_rollout_id"]) if (rollout[k] !== undefined) stamps[k] = rollout[k];
        if (res.kind === "response" && res.status >= 200 && res.status < 300) {
          let verified: Row | undefined;
          try {
            verified = JSON.parse(res.text) as Row;
          } catch {
            verified = undefined;
          }
          if (verified && typeof verified === "object") {
            const record = { ...verified, ...stamps };
            out.append(record);
            summary.verified++;
            if (record.reward !== rollout.reward) summary.changed++;
            return;
          }
        }
        const message = res.kind === "response" ? `/verify answered ${res.status}: ${res.text.slice(0, 500)}` : res.kind === "aborted" ? "aborted" : res.message;
        fails.append({ ...stamps, _ng_failure_class: "reverify_failed", _ng_failure_message: message, _ng_failure_category: res.kind === "timeout" ? "timeout" : "verifier", ...(res.kind === "response" ? { _ng_failure_http_status: res.status } : {}) });
        summary.failed++;
      })();
      running.add(p);
      void p.finally(() => running.delete(p));
    }
    await Promise.all(running);
  } finally {
    out.close();
    fails.close();
  }
  log.info(`reverify: ${summary.verified} re-verified (${summary.changed} with a different reward), ${summary.copied} copied, ${summary.skipped} already done, ${summary.failed} failed`);
  return summary;
}
