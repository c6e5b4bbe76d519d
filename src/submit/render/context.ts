/** What every part of the renderer reads: the validated config, its layout and this benchmark. */
import type { Deployed, Layout } from "../deployment.ts";
import type { BenchmarkConfig, ServiceCommon, SubmitConfig } from "../schema.ts";
import type { ContainerSpec } from "./step.ts";

/** Input of one benchmark's script. */
export interface RenderContext {
  cfg: SubmitConfig;
  layout: Layout;
  hostValues: Record<string, string>;
  gymJobId: string;
  runDir: string;
  benchDir: string;
  benchName: string;
  bench: BenchmarkConfig;
  /** The `gym_nodes` host array is emitted (§6.2). */
  hostArray: boolean;
  /** Steps run in pyxis containers (D24: false with container_runtime none). */
  pyxis: boolean;
}

/** Container flags of a service step, or null under container_runtime none. */
export function containerOf(ctx: RenderContext, svc: ServiceCommon): ContainerSpec | null {
  if (!ctx.pyxis || svc.container === undefined) return null;
  return { image: svc.container, mounts: svc.mounts };
}

/** srun placement flags of a deployed service (§6.3). */
export function placementOf(ctx: RenderContext, d: Deployed): string[] {
  const { layout } = ctx;
  const pin = d.kind === "ray" ? null : d.svc.node_pool;
  const pool = pin === null ? undefined : layout.pools.find((p) => p.name === pin);
  if (pool) return [`--nodelist="\${GYM_POOL_${poolVar(pool.name)}_NODES}"`, `--nodes=${pool.nodes}`, `--ntasks=${pool.nodes}`];
  if (layout.total > 1) {
    if (d.kind === "vllm") return [`--nodes=${layout.total}`, `--ntasks=${layout.total}`];
    return onDriverNode(ctx);
  }
  return singleNode(ctx);
}

/** Placement on the driver node d (router, ray head, collector, driver when T > 1). */
export function onDriverNode(ctx: RenderContext): string[] {
  if (ctx.layout.total <= 1) return singleNode(ctx);
  return [`--nodelist="\${gym_nodes[${ctx.layout.driverNode}]}"`, "--nodes=1", "--ntasks=1"];
}

/** Placement flags on a single-node allocation: none, or one task when ntasks_per_node > 1. */
export function singleNode(ctx: RenderContext): string[] {
  return ctx.layout.ntasksPerNode > 1 ? ["--ntasks=1"] : [];
}

/** The pool part of `GYM_POOL_<POOL>_NODES`. */
export function poolVar(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}

/** Node index where a deployed service is probed from the batch host (§6.5). */
export function probeNode(ctx: RenderContext, d: Deployed): number {
  const { layout } = ctx;
  if (d.kind !== "ray") {
    const pool = d.svc.node_pool === null ? undefined : layout.pools.find((p) => p.name === d.svc.node_pool);
    if (pool) return pool.start;
    if (d.kind === "vllm") return 0;
  }
  return layout.total > 1 || d.kind === "ray" ? layout.driverNode : 0;
}
