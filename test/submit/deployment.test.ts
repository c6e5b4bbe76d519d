/** Deployment shapes and GPU arithmetic of spec submit.md §4.3–§4.4 and §11, as a table. */
import { describe, expect, test } from "bun:test";
import { checkGpus, layoutOf, shapeOf, stepNodes, type Deployed } from "../../src/submit/deployment.ts";
import type { VllmConfig } from "../../src/submit/schema.ts";
import { baseConfig, check } from "./_helpers.ts";

interface Row {
  name: string;
  nodes: number;
  gpus: number | null;
  tp: number;
  pp?: number;
  n: number;
  rayServe?: boolean;
  shape: string;
  error?: string;
  warning?: string;
}

const rows: Row[] = [
  { name: "1 node, fits exactly", nodes: 1, gpus: 8, tp: 8, n: 1, shape: "single" },
  { name: "1 node, DP fits", nodes: 1, gpus: 8, tp: 2, n: 4, shape: "single" },
  { name: "1 node, DP idle GPUs", nodes: 1, gpus: 8, tp: 2, n: 2, shape: "single", warning: "requires 4 GPUs (tensor_parallel_size=2 x pipeline_parallel_size=1 x number_of_instances=2) of the node pool's gpus_per_node (8) on compute 'cluster', leaving 4 GPU(s) idle" },
  { name: "1 node, too big", nodes: 1, gpus: 8, tp: 4, pp: 4, n: 1, shape: "single", error: "requires 16 GPUs (tensor_parallel_size=4 x pipeline_parallel_size=4 x number_of_instances=1), which exceeds the node pool's gpus_per_node (8)" },
  { name: "2 nodes, one instance across nodes", nodes: 2, gpus: 8, tp: 16, n: 1, shape: "across_nodes" },
  { name: "2 nodes, one small instance (idle)", nodes: 2, gpus: 8, tp: 8, n: 1, shape: "across_nodes", warning: "requires 8 GPUs (tensor_parallel_size=8 x pipeline_parallel_size=1) of the total GPUs across all nodes (16) on compute 'cluster', leaving 8 GPU(s) idle" },
  { name: "2 nodes, one instance too big", nodes: 2, gpus: 8, tp: 8, pp: 4, n: 1, shape: "across_nodes", error: "requires 32 GPUs (tensor_parallel_size=8 x pipeline_parallel_size=4), which exceeds the total GPUs across all nodes (16)" },
  { name: "2 nodes, multi-node DP", nodes: 2, gpus: 8, tp: 4, n: 4, shape: "multi_dp" },
  { name: "2 nodes, multi-node DP too big per node", nodes: 2, gpus: 8, tp: 3, n: 8, shape: "multi_dp", error: "requires 12 GPUs (4 local replica(s) per node (number_of_instances=8 / 2 nodes) x tensor_parallel_size=3 x pipeline_parallel_size=1), which exceeds a single node's gpus_per_node (8)" },
  { name: "2 nodes, DP not divisible", nodes: 2, gpus: 8, tp: 1, n: 3, shape: "multi_dp", error: "has number_of_instances=3, which must be evenly divisible by the number of nodes (2)" },
  { name: "2 nodes, instance bigger than a node → ray serve", nodes: 2, gpus: 8, tp: 16, n: 2, shape: "ray_serve", error: "requires 32 GPUs (tensor_parallel_size=16 x pipeline_parallel_size=1 x number_of_instances=2 (ray_serve gateway)), which exceeds the total GPUs across all nodes (16)" },
  { name: "4 nodes, ray serve fits, divisibility waived", nodes: 4, gpus: 8, tp: 16, n: 2, shape: "ray_serve" },
  { name: "3 nodes, ray serve N=3 not divisible is fine", nodes: 3, gpus: 8, tp: 16, n: 3, shape: "ray_serve", error: "requires 48 GPUs" },
  { name: "forced ray serve without gpus", nodes: 1, gpus: null, tp: 1, n: 2, rayServe: true, shape: "ray_serve" },
  { name: "no gpus_per_node: no footprint checks", nodes: 1, gpus: null, tp: 64, n: 4, shape: "single" },
];

describe("deployment shapes and GPU footprint", () => {
  test.each(rows)("$name", (r) => {
    const c = baseConfig();
    c.compute.cluster.node_pools = { gpu: { partition: "p", nodes: r.nodes, gpus_per_node: r.gpus } };
    Object.assign(c.services.policy, { tensor_parallel_size: r.tp, pipeline_parallel_size: r.pp ?? 1, number_of_instances: r.n, use_ray_serve: r.rayServe ?? false });
    // Shape and arithmetic are computed on a config that skips the cross checks (so errors show).
    const ok = baseConfig();
    ok.services.policy.tensor_parallel_size = 1;
    const v = check(ok).config;
    v.compute.cluster!.node_pools = { gpu: { partition: "p", nodes: r.nodes, ntasks_per_node: 1, gpus_per_node: r.gpus, extra_args: {} } };
    Object.assign(v.services.policy!, { tensor_parallel_size: r.tp, pipeline_parallel_size: r.pp ?? 1, number_of_instances: r.n, use_ray_serve: r.rayServe ?? false });
    const layout = layoutOf(v);
    const d = layout.deployed[0] as Deployed & { svc: VllmConfig };
    expect(shapeOf(layout, d)).toBe(r.shape as never);
    const res = checkGpus(layout, d);
    if (r.error) expect(res.error).toContain(r.error);
    else expect(res.error).toBeUndefined();
    if (r.warning) expect(res.warning).toContain(r.warning);
    // And the same through the validator: an error fails validation, a warning does not.
    let msg = "";
    try {
      check(c);
    } catch (e) {
      msg = (e as Error).message;
    }
    if (r.error) expect(msg).toContain(r.error);
    else expect(msg).toBe("");
  });

  test("pools divide one allocation into contiguous ranges in declaration order", () => {
    const c = baseConfig();
    c.compute.cluster.node_pools = { a: { partition: "p", nodes: 2 }, b: { partition: "p", nodes: 3 }, c: { partition: "p", nodes: 1 } };
    c.services.policy.node_pool = "b";
    const layout = layoutOf(check(c).config);
    expect(layout.pools.map((p) => [p.name, p.start, p.nodes])).toEqual([["a", 0, 2], ["b", 2, 3], ["c", 5, 1]]);
    expect(layout.total).toBe(6);
    expect(layout.driverNode).toBe(2);
    expect(stepNodes(layout, layout.deployed[0]!)).toEqual([2, 3, 4]);
  });

  test("server_per_node tiers are sized as one node", () => {
    const c = baseConfig();
    c.compute.cluster.node_pools = { a: { partition: "p", nodes: 1, gpus_per_node: 8 }, b: { partition: "p", nodes: 2, gpus_per_node: 8 } };
    c.services = { pol: { type: "vllm_pd", container: "c", model: "m", server_per_node: true, prefill: { node_pool: "a", tensor_parallel_size: 8 }, decode: { node_pool: "b", tensor_parallel_size: 8 } } };
    c.driver.policy_model = "pol";
    const layout = layoutOf(check(c).config);
    const dec = layout.deployed[1] as Deployed & { svc: VllmConfig };
    expect(dec.name).toBe("pol-decode");
    expect(shapeOf(layout, dec)).toBe("per_node");
    expect(checkGpus(layout, dec)).toEqual({});
  });
});
