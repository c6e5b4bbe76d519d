/**
 * vLLM service commands per deployment shape (spec submit.md §4.3, §6.6): single node, one instance
 * across nodes (Ray executor via symmetric-run), multi-node data parallel (head + headless workers),
 * and the Ray Serve gateway.
 */
import { serviceGpus, serviceNodes, shapeOf, type Deployed } from "../deployment.ts";
import type { VllmConfig } from "../schema.ts";
import { GATEWAY_SOURCE } from "./_gateway-source.ts";
import type { RenderContext } from "./context.ts";
import { nodeHost, q } from "./shell.ts";

type VllmDeployed = Deployed & { svc: VllmConfig };

const ENSURE_RAY = `command -v ray >/dev/null 2>&1 || pip install -q "ray[default]"`;
const RAY_RES = "--num-cpus=${SLURM_CPUS_PER_TASK:-$SLURM_CPUS_ON_NODE} --num-gpus=${SLURM_GPUS_PER_TASK:-$SLURM_GPUS_ON_NODE}";

/** `vllm serve <model> --port … --tensor-parallel-size …` (+ served name, PP, extra args). */
export function vllmBase(s: VllmConfig): string {
  const parts = ["vllm", "serve", q(s.model), "--port", String(s.port), "--tensor-parallel-size", String(s.tensor_parallel_size)];
  if (s.served_model_name !== null) parts.push("--served-model-name", q(s.served_model_name));
  if (s.pipeline_parallel_size > 1) parts.push("--pipeline-parallel-size", String(s.pipeline_parallel_size));
  if (s.extra_args.trim() !== "") parts.push(s.extra_args.trim());
  return parts.join(" ");
}

/** `--kv-transfer-config '<json>'` of a PD tier (compact JSON, fixed key order), else "". */
export function kvFlag(d: VllmDeployed): string {
  if (d.kind !== "tier") return "";
  const json = JSON.stringify({
    kv_connector: d.parent.kv_connector,
    kv_role: d.role === "prefill" ? "kv_producer" : "kv_consumer",
    kv_load_failure_policy: d.parent.kv_load_failure_policy,
  });
  return `--kv-transfer-config ${q(json)}`;
}

function join(...parts: string[]): string {
  return parts.filter((p) => p !== "").join(" ");
}

/** The single-node command: base + `--data-parallel-size N` + trust + kv flag. */
export function singleNodeCommand(d: VllmDeployed): string {
  const s = d.svc;
  return join(vllmBase(s), s.number_of_instances > 1 ? `--data-parallel-size ${s.number_of_instances}` : "", s.trust_remote_code ? "--trust-remote-code" : "", kvFlag(d));
}

/** Address of the Ray head for a service spanning nodes: the pool head when pinned. */
function rayHeadAddress(ctx: RenderContext, d: VllmDeployed): string {
  const pool = ctx.layout.pools.find((p) => p.name === d.svc.node_pool);
  return pool && pool.start !== 0 ? `"${nodeHost(pool.start)}:6379"` : `"$RAY_HEAD_NODE_IP"`;
}

/** Wrap an entrypoint in the symmetric-run launcher over `n` nodes (with a start/block fallback). */
function symmetricRun(ctx: RenderContext, d: VllmDeployed, n: number, entry: string): string {
  const addr = rayHeadAddress(ctx, d);
  const body = [
    "export RAY_SYMMETRIC_RUN_CLUSTER_WAIT_TIMEOUT=600",
    "export RAY_SERVE_QUEUE_LENGTH_RESPONSE_DEADLINE_S=1.0",
    ENSURE_RAY,
    "if ray symmetric-run --help >/dev/null 2>&1; then",
    `  ray symmetric-run --address ${addr} --min-nodes ${n} ${RAY_RES} -- ${entry}`,
    "else",
    '  if [ "$SLURM_NODEID" = "0" ]; then',
    `    ray start --head --port=6379 ${RAY_RES} && ${entry}`,
    "  else",
    `    ray start --address=${addr} ${RAY_RES} --block`,
    "  fi",
    "fi",
  ].join("\n");
  return `bash -lc ${q(body)}`;
}

function gatewayChain(ctx: RenderContext, d: VllmDeployed): string {
  const s = d.svc;
  const g = serviceGpus(ctx.layout, d);
  const b64 = Buffer.from(GATEWAY_SOURCE).toString("base64");
  const args = [
    "python3 ray_serve_gateway.py --model", q(s.model), "--port", String(s.port),
    "--tensor-parallel-size", String(s.tensor_parallel_size), "--pipeline-parallel-size", String(s.pipeline_parallel_size),
    "--number-of-instances", String(s.number_of_instances),
  ];
  if (g !== null) args.push("--gpus-per-node", String(g));
  if (s.trust_remote_code) args.push("--trust-remote-code");
  if (s.served_model_name !== null) args.push("--served-model-name", q(s.served_model_name));
  if (s.extra_args.trim() !== "") args.push("--extra-args", q(s.extra_args.trim()));
  return `printf '%s' '${b64}' | base64 -d > ray_serve_gateway.py && pip install --quiet aiohttp && (${ENSURE_RAY}) && ${args.join(" ")}`;
}

function dqWrap(s: string): string {
  return `"${s.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;
}

/** The command of a vLLM service or PD tier, before any pre_command wrapping. */
export function vllmCommand(ctx: RenderContext, d: VllmDeployed): string {
  const s = d.svc;
  const n = serviceNodes(ctx.layout, d);
  switch (shapeOf(ctx.layout, d)) {
    case "single":
    case "per_node":
      return singleNodeCommand(d);
    case "across_nodes":
      return symmetricRun(ctx, d, n, `${join(vllmBase(s), s.trust_remote_code ? "--trust-remote-code" : "", kvFlag(d))} --distributed-executor-backend ray`);
    case "ray_serve":
      if (n <= 1) return `bash -lc ${dqWrap(gatewayChain(ctx, d))}`;
      return symmetricRun(ctx, d, n, `bash -c ${dqWrap(gatewayChain(ctx, d))}`);
    case "multi_dp": {
      const local = s.number_of_instances / n;
      const pool = ctx.layout.pools.find((p) => p.name === s.node_pool);
      const addr = pool ? nodeHost(pool.start) : `"$HEAD_NODE_IP"`;
      const common = join(vllmBase(s), kvFlag(d));
      const dp = `--data-parallel-size ${s.number_of_instances} --data-parallel-size-local ${local} --data-parallel-address ${addr} --data-parallel-rpc-port ${s.data_parallel_rpc_port}`;
      const trust = s.trust_remote_code ? "--trust-remote-code" : "";
      const head = join(common, dp, trust);
      const workerCommon = common.replace(/\s--api-server-count(=|\s+)\S+/g, "");
      const worker = join(workerCommon, dp, trust, `--headless --data-parallel-start-rank $(( SLURM_NODEID * ${local} ))`);
      return `bash -lc ${q(`\nif [ "$SLURM_NODEID" = "0" ]; then ${head}; else ${worker}; fi\n`)}`;
    }
  }
}
