/**
 * Render one benchmark's sbatch script (spec submit.md §6): a pure function of the validated config,
 * the run identity and the host values. Section order: directives, resume prologue, node setup,
 * service steps (collector first, ray last), health checks, driver, collector shutdown.
 */
import { ConfigError } from "../../errors.ts";
import { layoutOf, type Deployed, type Layout } from "../deployment.ts";
import type { SubmitConfig } from "../schema.ts";
import { containerOf, placementOf, poolVar, probeNode, type RenderContext } from "./context.ts";
import { renderDriver } from "./driver.ts";
import { renderHealth } from "./health.ts";
import { collectorShutdown, collectorStep } from "./otel.ts";
import { rayExports, rayHeadCommand, rayWorker, rayWorkers, workersVar } from "./ray.ts";
import { resumePrologue } from "./resume.ts";
import { expandMarkers, wrapPre } from "./shell.ts";
import { envPrefix, pidVarOf, renderStep } from "./step.ts";
import { routerCommand, tierPreCommand } from "./vllm-pd.ts";
import { vllmCommand } from "./vllm.ts";

/** Identity of the run a script belongs to. */
export interface RunIdentity {
  gymJobId: string;
  /** `<job.output_path>/<gym_job_id>`, absolute. */
  runDir: string;
}

function directiveValue(v: string): string {
  return /\s/.test(v) ? `"${v.replace(/(["\\])/g, "\\$1")}"` : v;
}

function directive(k: string, v: string | number | boolean): string {
  if (v === true || v === "") return `#SBATCH --${k}`;
  return `#SBATCH --${k}=${directiveValue(String(v))}`;
}

/** Check that pools agree on one allocation's values (§5.3); returns the merged pool extra_args. */
export function poolAgreement(layout: Layout): Record<string, string | number | boolean> {
  const pools = layout.pools;
  for (const field of ["partition", "ntasks_per_node", "gpus_per_node"] as const) {
    const values = new Set(pools.map((p) => p[field]));
    if (values.size > 1) {
      const listing = pools.map((p) => `${p.name}='${String(p[field])}'`).join(", ");
      throw new ConfigError(`Node pools disagree on ${field} (${listing}). One Slurm job takes a single value for the whole allocation; give every pool the same ${field}.`, { code: "E_SUBMIT_CONFIG" });
    }
  }
  const merged: Record<string, string | number | boolean> = {};
  for (const p of pools) {
    for (const [k, v] of Object.entries(p.extra_args)) {
      if (k in merged && merged[k] !== v) {
        throw new ConfigError(`Node pool '${p.name}' sets extra_args['${k}']='${String(v)}', which conflicts with another pool's '${String(merged[k])}'. One Slurm job takes a single value; make the pools agree.`, { code: "E_SUBMIT_CONFIG" });
      }
      merged[k] = v;
    }
  }
  return merged;
}

function directives(ctx: RenderContext): string {
  const { layout } = ctx;
  const c = layout.compute;
  const lines = [directive("job-name", `gym-${ctx.benchName}`), directive("account", c.account)];
  if (c.walltime !== null) lines.push(directive("time", c.walltime));
  lines.push(directive("chdir", ctx.benchDir));
  const shards = ctx.bench.shards;
  if (shards) lines.push(directive("array", `0-${shards.count - 1}${shards.max_parallel !== null ? `%${shards.max_parallel}` : ""}`));
  for (const [k, v] of Object.entries(c.extra_args)) lines.push(directive(k, v));
  if (layout.pools.length > 0) {
    const merged = poolAgreement(layout);
    const p0 = layout.pools[0]!;
    lines.push(directive("partition", p0.partition), directive("nodes", layout.total), directive("ntasks-per-node", p0.ntasks_per_node));
    if (p0.gpus_per_node !== null) lines.push(directive("gpus-per-node", p0.gpus_per_node));
    for (const [k, v] of Object.entries(merged)) lines.push(directive(k, v));
  }
  return ["#!/bin/bash", ...lines].join("\n");
}

function hasVllm(cfg: SubmitConfig): boolean {
  return Object.values(cfg.services).some((s) => s.type !== "ray");
}

function nodeSetup(ctx: RenderContext): string {
  const { layout, cfg } = ctx;
  const lines: string[] = [];
  if (ctx.hostArray) lines.push('gym_nodes=($(scontrol show hostnames "$SLURM_JOB_NODELIST"))');
  if (layout.total > 1 && hasVllm(cfg)) {
    lines.push(
      `head_node_ip="$(getent hosts "$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)" | awk '{print $1; exit}')"`,
      'export HEAD_NODE_IP="$head_node_ip"',
      'export RAY_HEAD_NODE_IP="$head_node_ip:6379"',
    );
  }
  const pinned = layout.deployed.some((d) => d.kind !== "ray" && d.svc.node_pool !== null);
  if (layout.total > 1 || pinned) {
    for (const p of layout.pools) {
      if (p.nodes > 0) lines.push(`export GYM_POOL_${poolVar(p.name)}_NODES="$(IFS=,; echo "\${gym_nodes[*]:${p.start}:${p.nodes}}")"`);
    }
  }
  for (const d of layout.deployed) if (d.kind === "ray") lines.push(...rayExports(layout, d.name, d.svc));
  return lines.join("\n");
}

function serviceStep(ctx: RenderContext, d: Deployed): string[] {
  if (d.kind === "ray") {
    const head = renderStep({
      name: d.name,
      envPrefix: envPrefix(d.svc.env, ctx.hostValues, `services.${d.name}`),
      placement: placementOf(ctx, d),
      container: containerOf(ctx, d.svc),
      command: wrapPre(d.svc.pre_command, rayHeadCommand(ctx.layout, d.name, d.svc, ctx.hostArray)),
      background: true,
    });
    const steps = [head];
    for (const w of rayWorkers(ctx.layout, d.svc)) {
      const { pre, command } = rayWorker(d.name, d.svc, w.pool.name);
      steps.push(
        renderStep({
          name: `${d.name}_${w.pool.name}_workers`,
          envPrefix: envPrefix(d.svc.env, ctx.hostValues, `services.${d.name}`),
          placement: [`--nodelist="\${${workersVar(d.name, w.pool.name)}}"`, `--nodes=${w.count}`, `--ntasks=${w.count}`],
          container: containerOf(ctx, d.svc),
          command: wrapPre(pre, command),
          background: true,
        }),
      );
    }
    return steps;
  }
  let command: string;
  let pre = d.svc.pre_command;
  let label = `services.${d.name}`;
  if (d.kind === "router") command = routerCommand(ctx.layout, d.svc);
  else {
    command = vllmCommand(ctx, d);
    if (d.kind === "tier") {
      pre = tierPreCommand(d.parent, d.role, d.svc.pre_command);
      label = `services.${d.parentName}.${d.role}`;
    }
  }
  return [
    renderStep({
      name: d.name,
      envPrefix: envPrefix(d.svc.env, ctx.hostValues, label),
      placement: placementOf(ctx, d),
      container: containerOf(ctx, d.svc),
      command: wrapPre(pre, command),
      background: true,
    }),
  ];
}

function healthChecks(ctx: RenderContext): string[] {
  const out: string[] = [];
  if (ctx.cfg.otel.enabled) {
    out.push(renderHealth({ name: "otel_collector", node: ctx.layout.total > 1 ? ctx.layout.driverNode : 0, port: 13133, path: "/", timeoutSeconds: ctx.cfg.otel.health_check_timeout_seconds, pidVar: "OTEL_COLLECTOR_PID", readyVar: "OTEL_COLLECTOR" }));
  }
  for (const d of ctx.layout.deployed) {
    const hc = d.svc.health_check;
    if (!hc) continue;
    out.push(renderHealth({ name: d.name, node: probeNode(ctx, d), port: hc.port ?? d.svc.port, path: hc.path, timeoutSeconds: hc.timeout_seconds, pidVar: pidVarOf(d.name) }));
  }
  return out;
}

/** Render the sbatch script of benchmark `benchName`. Throws ConfigError on render-time problems. */
export function renderScript(cfg: SubmitConfig, hostValues: Record<string, string>, id: RunIdentity, benchName: string): string {
  const layout = layoutOf(cfg);
  const bench = cfg.driver.benchmarks[benchName]!;
  const pinned = layout.deployed.some((d) => d.kind !== "ray" && d.svc.node_pool !== null);
  const ctx: RenderContext = {
    cfg,
    layout,
    hostValues,
    gymJobId: id.gymJobId,
    runDir: id.runDir,
    benchDir: `${id.runDir}/${benchName}`,
    benchName,
    bench,
    hostArray: layout.total > 1 || pinned || layout.deployed.some((d) => d.kind === "ray"),
    pyxis: layout.compute.container_runtime === "pyxis",
  };
  const sections: string[] = [directives(ctx)];
  const sharded = bench.shards !== undefined;
  // Sharded: every array task keeps its shard output and chain files in its own directory.
  if (sharded) sections.push('GYM_SHARD_DIR="$PWD/shards/$SLURM_ARRAY_TASK_ID"\nmkdir -p "$GYM_SHARD_DIR"');
  sections.push(bench.resumable === false ? "" : resumePrologue(bench.resumable, sharded));
  sections.push(nodeSetup(ctx));
  // Teardown: when the script ends (driver done, failed health check, cancel), stop every step it
  // started so the allocation is released promptly; Slurm would otherwise wait for KillWait.
  sections.push('_gym_teardown() { jobs -p | xargs -r kill -TERM 2>/dev/null || true; }\ntrap _gym_teardown EXIT');
  const steps: string[] = [];
  if (cfg.otel.enabled) steps.push(collectorStep(ctx));
  for (const d of layout.deployed) if (d.kind !== "ray") steps.push(...serviceStep(ctx, d));
  for (const d of layout.deployed) if (d.kind === "ray") steps.push(...serviceStep(ctx, d));
  sections.push(steps.join("\n\n"));
  sections.push(healthChecks(ctx).join("\n"));
  sections.push(renderDriver(ctx));
  // The merge job (aggregate.ts) only merges shards whose driver finished.
  if (sharded) sections.push('_gym_driver_rc=$?\nif [ "$_gym_driver_rc" -eq 0 ]; then touch "$GYM_SHARD_DIR/.gym_shard_done"; fi');
  if (cfg.otel.enabled) sections.push(collectorShutdown(ctx));
  if (sharded) sections.push('exit "$_gym_driver_rc"');
  return `${expandMarkers(sections.join("\n\n"))}\n`;
}
