/**
 * The OTel collector (spec submit.md §7, §6.9): its step, its staged `collector.yaml`, and the
 * shutdown after the driver. The token is referenced as `${env:<token_env>}`, never written.
 */
import { stringify } from "yaml";
import type { RenderContext } from "./context.ts";
import { onDriverNode } from "./context.ts";
import { q, reEscape } from "./shell.ts";
import { renderStep } from "./step.ts";

/** Path of the collector config of a benchmark. */
export function collectorPath(ctx: RenderContext): string {
  return `${ctx.benchDir}/otel/collector.yaml`;
}

/** The collector step (first of all steps). */
export function collectorStep(ctx: RenderContext): string {
  const o = ctx.cfg.otel;
  const env = `env "${o.token_env}=\${${o.token_env}}" "SLURM_JOB_ID=\${SLURM_JOB_ID}" `;
  return renderStep({
    name: "otel_collector",
    envPrefix: env,
    placement: onDriverNode(ctx),
    container: ctx.pyxis && o.container ? { image: o.container, mounts: [`${ctx.benchDir}:${ctx.benchDir}`], workdir: ctx.benchDir } : null,
    command: `${q(o.binary)} --config ${q(collectorPath(ctx))}`,
    background: true,
    pidVar: "OTEL_COLLECTOR_PID",
  });
}

/** Stop the collector gracefully after the driver, then exit with the driver's status. */
export function collectorShutdown(ctx: RenderContext): string {
  const o = ctx.cfg.otel;
  const pattern = `^([^ ]*/)?${reEscape(o.binary)} --config ${reEscape(collectorPath(ctx))}`;
  const pkill = `pkill -TERM -u "$(id -u)" -f -- ${q(pattern)}`;
  const d = ctx.layout.driverNode;
  const signal = d === 0 || ctx.layout.total <= 1 ? `${pkill} || true` : `srun --overlap --nodelist="\${gym_nodes[${d}]}" --nodes=1 --ntasks=1 ${pkill} || true`;
  return [
    "DRIVER_RC=$?",
    "sleep 20",
    signal,
    "for _i in $(seq 1 30); do",
    '  kill -0 "$OTEL_COLLECTOR_PID" 2>/dev/null || break',
    "  sleep 1",
    "done",
    'kill -TERM "$OTEL_COLLECTOR_PID" 2>/dev/null || true',
    'exit "$DRIVER_RC"',
  ].join("\n");
}

/** The staged `otel/collector.yaml` of a benchmark. */
export function collectorYaml(ctx: RenderContext): string {
  const { cfg, layout } = ctx;
  const o = cfg.otel;
  const jobs: unknown[] = [];
  for (const d of layout.deployed) {
    if (d.kind === "ray") continue;
    jobs.push({ job_name: `${o.component}/${d.name}`, scrape_interval: `${o.scrape_interval_seconds}s`, static_configs: [{ targets: [`localhost:${d.svc.port}`] }] });
  }
  if (o.gpu_metrics_port !== null) jobs.push({ job_name: "dcgm", scrape_interval: `${o.scrape_interval_seconds}s`, static_configs: [{ targets: [`localhost:${o.gpu_metrics_port}`] }] });
  if (o.node_metrics_port !== null) jobs.push({ job_name: "node", scrape_interval: `${o.scrape_interval_seconds}s`, static_configs: [{ targets: [`localhost:${o.node_metrics_port}`] }] });
  const policy = cfg.driver.policy_model ? cfg.services[cfg.driver.policy_model] : undefined;
  const attrs: { key: string; value?: string; action: string; from_attribute?: string }[] = [
    { key: "service.name", value: o.service_name ?? "", action: "upsert" },
    { key: "Authorization", value: `\${env:${o.token_env}}`, action: "upsert" },
    { key: "user", value: "${env:USER}", action: "upsert" },
    { key: "run_id", value: ctx.gymJobId, action: "upsert" },
    { key: "slurm_job_id", value: "${env:SLURM_JOB_ID}", action: "upsert" },
    { key: "slurm_job_id", action: "convert", },
    { key: "benchmark", value: ctx.benchName, action: "upsert" },
    { key: "cluster", value: layout.computeName, action: "upsert" },
  ];
  if (policy && policy.type !== "ray") attrs.push({ key: "model", value: policy.served_model_name ?? policy.model, action: "upsert" });
  const doc = {
    receivers: {
      ...(jobs.length > 0 ? { prometheus: { config: { scrape_configs: jobs } } } : {}),
      otlp: { protocols: { grpc: { endpoint: "0.0.0.0:4317" }, http: { endpoint: "0.0.0.0:4318" } } },
    },
    extensions: { health_check: { endpoint: "0.0.0.0:13133" } },
    processors: {
      batch: {},
      "metricstransform/vllm": {
        transforms: [{ include: "^vllm:(.*)$", match_type: "regexp", action: "update", new_name: "vllm_$${1}" }],
      },
      "resource/display": { attributes: [{ key: "service.name.override", from_attribute: "service.name", action: "insert" }] },
      "resource/gym": { attributes: attrs.map((a) => (a.action === "convert" ? { key: a.key, action: "convert", converted_type: "string" } : a)) },
    },
    exporters: {
      otlphttp: { endpoint: o.endpoint ?? "", headers: { Authorization: `Bearer \${env:${o.token_env}}` } },
      "file/metrics": { path: `${ctx.benchDir}/otel/metrics.jsonl` },
      "file/traces": { path: `${ctx.benchDir}/otel/traces.jsonl` },
      "file/logs": { path: `${ctx.benchDir}/otel/logs.jsonl` },
    },
    service: {
      extensions: ["health_check"],
      pipelines: {
        metrics: { receivers: [...(jobs.length > 0 ? ["prometheus"] : []), "otlp"], processors: ["metricstransform/vllm", "resource/display", "resource/gym", "batch"], exporters: ["otlphttp", "file/metrics"] },
        traces: { receivers: ["otlp"], processors: ["resource/display", "resource/gym", "batch"], exporters: ["otlphttp", "file/traces"] },
        logs: { receivers: ["otlp"], processors: ["resource/display", "resource/gym", "batch"], exporters: ["otlphttp", "file/logs"] },
      },
    },
  };
  return stringify(doc);
}
