/**
 * The derived deployment model (spec submit.md §4): which steps run, on which nodes of the one
 * allocation, in which shape, and how many GPUs each needs. Pure arithmetic over a validated config.
 */
import type { NodePoolConfig, RayConfig, SlurmConfig, SubmitConfig, VllmConfig, VllmPdConfig } from "./schema.ts";

/** A node pool with its contiguous node range in the allocation. */
export interface PlacedPool extends NodePoolConfig {
  name: string;
  start: number;
}

/** One deployed service: a plain vLLM, a PD tier, a PD router, or a Ray cluster. */
export type Deployed =
  | { kind: "vllm"; name: string; svc: VllmConfig }
  | { kind: "tier"; name: string; svc: VllmConfig; role: "prefill" | "decode"; parent: VllmPdConfig; parentName: string }
  | { kind: "router"; name: string; svc: VllmPdConfig }
  | { kind: "ray"; name: string; svc: RayConfig };

/** How a vLLM service (or tier) is launched (§4.3). */
export type Shape = "single" | "across_nodes" | "multi_dp" | "ray_serve" | "per_node";

/** The allocation as a whole. */
export interface Layout {
  computeName: string;
  compute: SlurmConfig;
  pools: PlacedPool[];
  /** Total nodes T (0 when no pools are declared). */
  total: number;
  /** Agreed `ntasks_per_node` (1 without pools). */
  ntasksPerNode: number;
  deployed: Deployed[];
  /** Driver node index d (§6.3). */
  driverNode: number;
}

/** Build the layout of a validated config. */
export function layoutOf(cfg: SubmitConfig): Layout {
  const [computeName, compute] = Object.entries(cfg.compute)[0]!;
  const pools: PlacedPool[] = [];
  let start = 0;
  for (const [name, p] of Object.entries(compute.node_pools)) {
    pools.push({ ...p, name, start });
    start += p.nodes;
  }
  const deployed: Deployed[] = [];
  for (const [name, svc] of Object.entries(cfg.services)) {
    if (svc.type === "vllm") deployed.push({ kind: "vllm", name, svc });
    else if (svc.type === "ray") deployed.push({ kind: "ray", name, svc });
    else {
      deployed.push({ kind: "tier", name: `${name}-prefill`, svc: svc.prefill, role: "prefill", parent: svc, parentName: name });
      deployed.push({ kind: "tier", name: `${name}-decode`, svc: svc.decode, role: "decode", parent: svc, parentName: name });
      deployed.push({ kind: "router", name, svc });
    }
  }
  let driverNode = 0;
  const policy = cfg.driver.policy_model ? cfg.services[cfg.driver.policy_model] : undefined;
  if (policy && policy.type !== "ray" && policy.node_pool) driverNode = pools.find((p) => p.name === policy.node_pool)?.start ?? 0;
  return { computeName, compute, pools, total: start, ntasksPerNode: pools[0]?.ntasks_per_node ?? 1, deployed, driverNode };
}

/** The pool a name refers to. */
export function poolOf(layout: Layout, name: string | null): PlacedPool | undefined {
  return name === null ? undefined : layout.pools.find((p) => p.name === name);
}

/** Nodes a vLLM service or tier is sized for (§4.2). */
export function serviceNodes(layout: Layout, d: Deployed): number {
  if (d.kind === "tier" && d.parent.server_per_node) return 1;
  if (d.kind === "ray") return layout.total;
  const pool = poolOf(layout, d.svc.node_pool);
  return pool ? pool.nodes : layout.total;
}

/** Pools a service draws on: its own pool if pinned, else all. */
export function servicePools(layout: Layout, d: Deployed): PlacedPool[] {
  if (d.kind === "ray") return layout.pools.filter((p) => d.svc.node_pools.includes(p.name));
  const pool = poolOf(layout, d.svc.node_pool);
  return pool ? [pool] : layout.pools;
}

/** GPUs per node G of a service (max over its pools that declare one), or null. */
export function serviceGpus(layout: Layout, d: Deployed): number | null {
  let g: number | null = null;
  for (const p of servicePools(layout, d)) if (p.gpus_per_node !== null) g = Math.max(g ?? 0, p.gpus_per_node);
  return g;
}

/** Whether a vLLM service or tier goes through the Ray Serve gateway. */
export function usesRayServe(layout: Layout, d: Deployed & { svc: VllmConfig }): boolean {
  const g = serviceGpus(layout, d);
  const n = serviceNodes(layout, d);
  const tpxpp = d.svc.tensor_parallel_size * d.svc.pipeline_parallel_size;
  return d.svc.use_ray_serve || (g !== null && n > 1 && d.svc.number_of_instances > 1 && tpxpp > g);
}

/** The launch shape of a vLLM service or tier (§4.3). */
export function shapeOf(layout: Layout, d: Deployed & { svc: VllmConfig }): Shape {
  if (usesRayServe(layout, d)) return "ray_serve";
  if (d.kind === "tier" && d.parent.server_per_node) return "per_node";
  const n = serviceNodes(layout, d);
  if (n <= 1) return "single";
  return d.svc.number_of_instances === 1 ? "across_nodes" : "multi_dp";
}

/** Result of the GPU arithmetic of one service. */
export interface GpuCheck {
  error?: string;
  warning?: string;
}

/** Divisibility and GPU footprint check of one vLLM service or tier (§4.4). */
export function checkGpus(layout: Layout, d: Deployed & { svc: VllmConfig }): GpuCheck {
  const s = d.svc;
  const n = serviceNodes(layout, d);
  const N = s.number_of_instances;
  const rs = usesRayServe(layout, d);
  if (n > 1 && N > 1 && N % n !== 0 && !rs) {
    return {
      error: `Service '${d.name}' has number_of_instances=${N}, which must be evenly divisible by the number of nodes (${n}) it spans for multi-node data parallelism. Set number_of_instances to a multiple of ${n}, pin the service to a smaller node_pool, or set use_ray_serve: true.`,
    };
  }
  const g = serviceGpus(layout, d);
  if (g === null) return {};
  const tp = s.tensor_parallel_size;
  const pp = s.pipeline_parallel_size;
  const factors = `tensor_parallel_size=${tp} x pipeline_parallel_size=${pp}`;
  const total = servicePools(layout, d).reduce((acc, p) => acc + p.nodes * (p.gpus_per_node ?? 0), 0);
  let needed: number;
  let available: number;
  let footprint: string;
  let scope: string;
  if (n > 1 && rs) {
    needed = tp * pp * N;
    available = total;
    footprint = `${factors} x number_of_instances=${N} (ray_serve gateway)`;
    scope = `the total GPUs across all nodes (${available})`;
  } else if (n > 1 && N > 1) {
    const local = Math.floor(N / n);
    needed = tp * pp * local;
    available = g;
    footprint = `${local} local replica(s) per node (number_of_instances=${N} / ${n} nodes) x ${factors}`;
    scope = `a single node's gpus_per_node (${g})`;
  } else if (n > 1) {
    needed = tp * pp;
    available = total;
    footprint = factors;
    scope = `the total GPUs across all nodes (${available})`;
  } else {
    needed = tp * pp * N;
    available = g;
    footprint = `${factors} x number_of_instances=${N}${rs ? " (ray_serve gateway)" : ""}`;
    scope = `the node pool's gpus_per_node (${g})`;
  }
  if (needed > available) {
    return {
      error: `Service '${d.name}' requires ${needed} GPUs (${footprint}), which exceeds ${scope} on compute '${layout.computeName}'. Lower tensor_parallel_size, pipeline_parallel_size or number_of_instances, or give the service more GPUs.`,
    };
  }
  if (needed < available) {
    return {
      warning: `Service '${d.name}' requires ${needed} GPUs (${footprint}) of ${scope} on compute '${layout.computeName}', leaving ${available - needed} GPU(s) idle.`,
    };
  }
  return {};
}

/** Node indices a deployed step occupies (§6.3), for the D35 sharing warnings. */
export function stepNodes(layout: Layout, d: Deployed): number[] {
  const range = (start: number, count: number) => Array.from({ length: count }, (_, i) => start + i);
  if (d.kind === "ray") {
    const nodes = new Set<number>([layout.driverNode]);
    for (const p of servicePools(layout, d)) for (const i of range(p.start, p.nodes)) nodes.add(i);
    return [...nodes].sort((a, b) => a - b);
  }
  const pool = poolOf(layout, d.svc.node_pool);
  if (pool) return range(pool.start, pool.nodes);
  if (layout.total <= 1) return [0];
  if (d.kind === "router") return [layout.driverNode];
  return range(0, layout.total);
}
