/**
 * The driver step (spec submit.md §6.7): `GYM_CMD` with the flattened run overrides and the staged
 * gym binary (D23), or a custom `command` (D33 PATH export), optionally after `gym eval prepare`
 * and an upstream Python Gym install (`gym_install`).
 */
import { leaves } from "./flatten.ts";
import { flattenOverrides, pyStr } from "./flatten.ts";
import type { RenderContext } from "./context.ts";
import { onDriverNode } from "./context.ts";
import { envPrefix, renderStep } from "./step.ts";
import { dq, q } from "./shell.ts";
import { policyValues } from "../policy.ts";

/** Driver env: Gym telemetry (when on) overlaid by driver.env, plus the command variables. */
export function driverEnv(ctx: RenderContext): Record<string, string> {
  const { cfg } = ctx;
  const env: Record<string, string> = {};
  const o = cfg.otel;
  if (o.enabled && o.gym_telemetry) {
    env.NEMO_GYM_OTEL_ENABLED = "lit:1";
    env.NEMO_GYM_OTEL_RUN_ID = `lit:${ctx.gymJobId}`;
    env.NEMO_GYM_OTEL_SPAN_GROUPS = `lit:${o.gym_span_groups}`;
    if (o.gym_logs) env.NEMO_GYM_OTEL_LOGS_ENABLED = "lit:1";
    env.OTEL_EXPORTER_OTLP_ENDPOINT = "lit:http://localhost:4318";
    env.OTEL_EXPORTER_OTLP_PROTOCOL = "lit:http/protobuf";
  }
  Object.assign(env, cfg.driver.env);
  if (ctx.bench.command !== null) {
    env.NEMO_GYM_BENCH_DIR = `lit:${ctx.benchDir}`;
    const inj = policyValues(cfg);
    if (inj) {
      env.NEMO_GYM_POLICY_BASE_URL = `lit:${inj.policy_base_url}`;
      env.NEMO_GYM_POLICY_MODEL_NAME = `lit:${inj.policy_model_name}`;
      env.NEMO_GYM_POLICY_API_KEY = `lit:${inj.policy_api_key}`;
    }
  }
  return env;
}

/** Where a sharded benchmark's array tasks write (`<dir>/<task>/rollouts.jsonl`). */
export function shardDirOf(ctx: Pick<RenderContext, "benchDir">): string {
  return `${ctx.benchDir}/shards`;
}

/** The merged rollouts file of a sharded benchmark (run.output_jsonl_fpath, as unsharded). */
export function mergedOutputOf(ctx: Pick<RenderContext, "benchDir" | "bench">): string {
  return pyStr(ctx.bench.run.output_jsonl_fpath ?? `${ctx.benchDir}/artifacts/rollouts.jsonl`);
}

/** The `gym eval run` overrides in upstream order (§6.7). */
export function runTokens(ctx: RenderContext): string[] {
  const run = ctx.bench.run;
  const userSet = new Set(leaves(run).map(([p]) => p));
  const rest = { ...run };
  // Sharded: each array task writes its own shard; the merge job writes run.output_jsonl_fpath.
  const out = ctx.bench.shards
    ? `"+output_jsonl_fpath=${dq(shardDirOf(ctx))}/\${SLURM_ARRAY_TASK_ID}/rollouts.jsonl"`
    : q(`+output_jsonl_fpath=${pyStr(rest.output_jsonl_fpath ?? `${ctx.benchDir}/artifacts/rollouts.jsonl`)}`);
  delete rest.output_jsonl_fpath;
  const tokens = [out];
  if (ctx.bench.shards) tokens.push(`+num_shards=${ctx.bench.shards.count}`, '"+shard_index=${SLURM_ARRAY_TASK_ID}"');
  const cfg = ctx.cfg;
  if (cfg.driver.policy_model !== null && cfg.driver.policy_model_type !== "") tokens.push("--model-type", q(cfg.driver.policy_model_type));
  const observability = userSet.has("observability_enabled") ? run.observability_enabled !== false : true;
  if (!userSet.has("observability_enabled")) tokens.push("+observability_enabled=True");
  tokens.push(...flattenOverrides(rest));
  if (observability && !userSet.has("model_call_capture_dir")) tokens.push(q(`+model_call_capture_dir=${ctx.benchDir}/model-calls`));
  if (!userSet.has("require_complete")) tokens.push("+require_complete=True");
  if (ctx.bench.resumable !== false && !userSet.has("resume_from_cache")) tokens.push("+resume_from_cache=True");
  return tokens;
}

function gymWord(ctx: RenderContext): string {
  return ctx.cfg.driver.gym_install ? "gym" : q(`${ctx.runDir}/gym`);
}

function installLines(ctx: RenderContext): string[] {
  const gi = ctx.cfg.driver.gym_install;
  if (!gi) return [];
  const telemetry = ctx.cfg.otel.enabled && ctx.cfg.otel.gym_telemetry;
  return [
    "curl -LsSf https://astral.sh/uv/install.sh | sh",
    'source "$HOME/.local/bin/env"',
    'GYM_SRC="$(mktemp -d /tmp/gym-install-XXXXXX)"',
    `(command -v git >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq git)) && git clone ${q(gi.repo)} "$GYM_SRC/gym" && cd "$GYM_SRC/gym" && git checkout ${q(gi.ref)}`,
    "uv venv --seed .venv",
    "source .venv/bin/activate",
    telemetry ? 'uv pip install -e ".[telemetry]"' : "uv pip install -e .",
  ];
}

/** The driver section: GYM_END_TIME export, GYM_CMD array (unless command), the srun line. */
export function renderDriver(ctx: RenderContext): string {
  const { cfg, bench } = ctx;
  const lines: string[] = [];
  // D30 addendum: the batch host knows the allocation's end; the driver (maybe in a container) may not.
  lines.push(
    'if [ -n "${SLURM_JOB_END_TIME:-}" ]; then',
    '  GYM_JOB_END_TIME="$SLURM_JOB_END_TIME"',
    "else",
    '  GYM_JOB_END_TIME="$(date -d "$(squeue -h -j "$SLURM_JOB_ID" -o %e 2>/dev/null | head -n 1)" +%s 2>/dev/null || true)"',
    "fi",
    "export GYM_JOB_END_TIME",
  );
  const prepare = Object.keys(bench.prepare).length > 0 ? `${gymWord(ctx)} eval prepare ${flattenOverrides(bench.prepare).join(" ")}`.trim() : null;
  let entry: string;
  if (bench.command !== null) {
    const body = [`export PATH="${dq(ctx.runDir)}:$PATH"`, "set -euo pipefail", ...installLines(ctx), ...(prepare ? [prepare] : []), bench.command];
    entry = `bash -c ${q(body.join("\n"))}`;
  } else {
    lines.push("GYM_CMD=(", `    ${gymWord(ctx)} eval run`, ...runTokens(ctx).map((t) => `    ${t}`), ")");
    if (!cfg.driver.gym_install && !prepare) entry = '"${GYM_CMD[@]}"';
    else {
      const body = ["set -euo pipefail", ...installLines(ctx), ...(prepare ? [prepare] : []), 'exec "$@"'];
      entry = `bash -c ${q(body.join("\n"))} -- "\${GYM_CMD[@]}"`;
    }
  }
  const mounts = [...cfg.driver.mounts, `${ctx.benchDir}:${ctx.benchDir}`];
  if (!cfg.driver.gym_install) mounts.push(`${ctx.runDir}/gym:${ctx.runDir}/gym:ro`);
  lines.push(
    renderStep(
      {
        name: "driver",
        envPrefix: envPrefix(driverEnv(ctx), ctx.hostValues, "driver"),
        placement: onDriverNode(ctx),
        container: ctx.pyxis ? { image: cfg.driver.container, mounts } : null,
        command: entry,
        background: false,
      },
      false,
    ),
  );
  return lines.join("\n");
}
