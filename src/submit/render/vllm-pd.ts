/**
 * Prefill/decode pieces (spec submit.md §6.6): the NIXL exports that prefix each tier's command and
 * the `vllm-router` command with its endpoints, hosts expanded on the batch host (D29).
 */
import type { Layout } from "../deployment.ts";
import type { VllmPdConfig } from "../schema.ts";
import { nodeHost } from "./shell.ts";

/** The pre_command of a tier: NIXL side-channel exports, then the tier's own pre_command. */
export function tierPreCommand(parent: VllmPdConfig, role: "prefill" | "decode", own: string): string {
  const port = parent.nixl_side_channel_port + (role === "decode" ? 1 : 0);
  const lines = ["export VLLM_NIXL_SIDE_CHANNEL_HOST=$(hostname)", `export VLLM_NIXL_SIDE_CHANNEL_PORT=${port}`];
  if (own.trim() !== "") lines.push(own);
  return lines.join("\n");
}

function endpoints(layout: Layout, flag: string, pool: string | null, port: number, perNode: boolean): string[] {
  const p = layout.pools.find((x) => x.name === pool);
  if (!p) return [];
  const nodes = perNode ? Array.from({ length: p.nodes }, (_, i) => p.start + i) : [p.start];
  return nodes.map((i) => `${flag} "http://${nodeHost(i)}:${port}"`);
}

/** The `vllm-router` command of a `vllm_pd` service. */
export function routerCommand(layout: Layout, svc: VllmPdConfig): string {
  return [
    "vllm-router",
    `--prefill-policy ${svc.prefill_policy}`,
    `--decode-policy ${svc.decode_policy}`,
    "--vllm-pd-disaggregation",
    ...endpoints(layout, "--prefill", svc.prefill.node_pool, svc.prefill.port, svc.server_per_node),
    ...endpoints(layout, "--decode", svc.decode.node_pool, svc.decode.port, svc.server_per_node),
    "--host 0.0.0.0",
    `--port ${svc.port}`,
    `--intra-node-data-parallel-size ${svc.intra_node_data_parallel_size}`,
    `--request-timeout-secs ${svc.request_timeout_secs}`,
    `--log-level ${svc.log_level}`,
  ].join(" ");
}
