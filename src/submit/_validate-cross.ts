/**
 * The cross-field rules of the submit config (spec submit.md §5.1) and the D35 sharing warnings.
 * Runs on a schema-valid config; appends messages to `errors` / `warnings`.
 */
import { checkGpus, layoutOf, serviceGpus, serviceNodes, shapeOf, stepNodes, type Deployed, type Layout } from "./deployment.ts";
import { userRunKeys } from "./policy.ts";
import type { SubmitConfig, VllmConfig } from "./schema.ts";

/** Apply every cross-field rule. */
export function crossFieldChecks(cfg: SubmitConfig, errors: string[], warnings: string[]): void {
  const [computeName, compute] = Object.entries(cfg.compute)[0]!;
  const poolNames = Object.keys(compute.node_pools);
  const poolList = poolNames.length > 0 ? poolNames.map((p) => `'${p}'`).join(", ") : "'none declared'";
  const names = Object.keys(cfg.services);
  const firstPool = poolNames[0];

  const checkPool = (svcName: string, pool: string | null) => {
    if (pool !== null && !poolNames.includes(pool)) {
      errors.push(`Service '${svcName}' node_pool '${pool}' does not match any node pool of compute '${computeName}' (${poolList}).`);
    }
  };
  const checkPlacement = (svcName: string, placement: string) => {
    if (placement !== computeName) errors.push(`Service '${svcName}' placement '${placement}' does not match any compute resource ('${computeName}').`);
  };
  const bare = compute.container_runtime === "none";
  const mountRule = (label: string, mounts: string[]) => {
    if (bare && mounts.length > 0) {
      errors.push(`compute '${computeName}' has container_runtime: none, so mounts are not allowed (${label}: [${mounts.map((m) => `'${m}'`).join(", ")}]). Remove them or use container_runtime: pyxis.`);
    }
  };

  for (const [name, svc] of Object.entries(cfg.services)) {
    checkPlacement(name, svc.placement);
    mountRule(`services.${name}`, svc.mounts);
    if (svc.type === "vllm") checkPool(name, svc.node_pool);
    if (svc.type === "ray") {
      const unknown = svc.node_pools.filter((p) => !poolNames.includes(p));
      if (unknown.length > 0) {
        errors.push(`Service '${name}' node_pools [${unknown.map((p) => `'${p}'`).join(", ")}] do not match any node pool of compute '${computeName}' (${poolList}).`);
      }
      if (new Set(svc.node_pools).size !== svc.node_pools.length) {
        errors.push(`A ray service's node_pools lists a pool more than once: [${svc.node_pools.map((p) => `'${p}'`).join(", ")}] (services.${name}.node_pools).`);
      }
      for (const p of Object.keys(svc.resources)) {
        if (!svc.node_pools.includes(p)) {
          errors.push(`A ray service sets resources for ${p}, which it does not span (node_pools: [${svc.node_pools.join(", ")}]). Add '${p}' to services.${name}.node_pools or remove its resources.`);
        }
      }
    }
    if (svc.type === "vllm_pd") {
      const taken = [`${name}-prefill`, `${name}-decode`].filter((t) => names.includes(t));
      if (taken.length > 0) {
        errors.push(`vllm_pd service '${name}' deploys its tiers as ${name}-prefill, ${name}-decode, but services already has ${taken.join(", ")}. Rename one.`);
      }
      checkPool(name, svc.node_pool);
      for (const role of ["prefill", "decode"] as const) {
        const tier = svc[role];
        const tname = `${name}-${role}`;
        checkPlacement(tname, tier.placement);
        mountRule(`services.${name}.${role}`, tier.mounts);
        if (tier.node_pool === null) {
          errors.push(`Service '${tname}' is a prefill/decode tier without a node_pool. Set services.${name}.${role}.node_pool: each tier runs on its own node pool.`);
        } else checkPool(tname, tier.node_pool);
        if (svc.server_per_node && tier.number_of_instances !== 1) {
          errors.push(`Service '${tname}' runs one server per node (server_per_node) on its node pool; number_of_instances must be 1, got ${tier.number_of_instances}.`);
        }
      }
      if (svc.prefill.data_parallel_rpc_port === svc.decode.data_parallel_rpc_port) {
        errors.push(`Services '${name}-prefill' and '${name}-decode' share data_parallel_rpc_port ${svc.prefill.data_parallel_rpc_port}. Give the tiers different data_parallel_rpc_port values.`);
      }
      if (svc.node_pool !== null && firstPool !== undefined && svc.node_pool !== firstPool && poolNames.includes(svc.node_pool)) {
        errors.push(`vllm_pd service '${name}' pins its router to node_pool '${svc.node_pool}', but the driver reaches it over localhost and runs on the first node. Pin it to '${firstPool}' or leave node_pool unset.`);
      }
    }
  }
  mountRule("driver", cfg.driver.mounts);

  const policy = cfg.driver.policy_model;
  if (policy !== null && !names.includes(policy)) {
    errors.push(`driver.policy_model '${policy}' does not match any service (${[...names].sort().join(", ")}).`);
  }
  for (const [bn, b] of Object.entries(cfg.driver.benchmarks)) {
    if (b.shards && b.command !== null) {
      errors.push(`driver.benchmarks.${bn} sets both \`command\` and \`shards\`, but shards split the rows of \`gym eval run\` (num_shards/shard_index), which \`command\` replaces. Remove driver.benchmarks.${bn}.shards or the command.`);
    }
    if (b.command === null) continue;
    if (userRunKeys(cfg, b.run).length > 0) {
      errors.push(`A benchmark sets both \`command\` and \`run\`, but \`run\` only configures \`gym eval run\`, which \`command\` replaces. Remove driver.benchmarks.${bn}.run or the command.`);
    }
    if (b.resumable !== false) {
      errors.push(`A benchmark sets both \`command\` and \`resumable\`, but resumable chains resume \`gym eval run\`, which \`command\` replaces. Remove driver.benchmarks.${bn}.resumable or the command.`);
    }
  }
  if (errors.length > 0) return;

  const layout = layoutOf(cfg);
  for (const d of layout.deployed) {
    if (d.kind !== "vllm" && d.kind !== "tier") continue;
    const r = checkGpus(layout, d);
    if (r.error) errors.push(r.error);
    if (r.warning) warnings.push(r.warning);
  }
  sharingWarnings(layout, cfg.otel.enabled, warnings);
  shardNotes(cfg, layout, warnings);
}

/** Ports a step listens on (including derived ones), for D35. */
function stepPorts(layout: Layout, d: Deployed): number[] {
  if (d.kind === "ray") return [d.svc.port];
  if (d.kind === "router") return [d.svc.port];
  const ports = [d.svc.port];
  const shape = shapeOf(layout, d);
  if (shape === "multi_dp") ports.push(d.svc.data_parallel_rpc_port);
  if (d.kind === "tier") ports.push(d.parent.nixl_side_channel_port + (d.role === "decode" ? 1 : 0));
  return ports;
}

/** D35: warn when two steps can share a node and a port, or unpinned vLLMs overfill a node's GPUs. */
function sharingWarnings(layout: Layout, collector: boolean, warnings: string[]): void {
  const steps: { d: { name: string }; nodes: Set<number>; ports: number[] }[] = layout.deployed.map((d) => ({ d, nodes: new Set(stepNodes(layout, d)), ports: stepPorts(layout, d) }));
  // The collector binds its health, OTLP gRPC and OTLP HTTP ports on the driver node.
  if (collector) steps.unshift({ d: { name: "otel_collector" }, nodes: new Set([layout.total > 1 ? layout.driverNode : 0]), ports: [13133, 4317, 4318] });
  for (let i = 0; i < steps.length; i++) {
    for (let j = i + 1; j < steps.length; j++) {
      const a = steps[i]!;
      const b = steps[j]!;
      const node = [...a.nodes].find((n) => b.nodes.has(n));
      if (node === undefined) continue;
      const port = a.ports.find((p) => b.ports.includes(p));
      if (port === undefined) continue;
      warnings.push(`Services '${a.d.name}' and '${b.d.name}' can run on the same node (index ${node}) and both use port ${port}; one of them will fail to bind. Change a port or pin them to different node pools.`);
    }
  }
  const unpinned = layout.deployed.filter(
    (d): d is Deployed & { svc: VllmConfig } => (d.kind === "vllm" || d.kind === "tier") && d.svc.node_pool === null,
  );
  if (unpinned.length < 2) return;
  const g = serviceGpus(layout, unpinned[0]!);
  if (g === null) return;
  let perNode = 0;
  for (const d of unpinned) {
    const n = Math.max(1, serviceNodes(layout, d));
    const tpxpp = d.svc.tensor_parallel_size * d.svc.pipeline_parallel_size;
    perNode += Math.ceil((tpxpp * d.svc.number_of_instances) / n);
  }
  if (perNode > g) {
    warnings.push(`Unpinned vLLM services ${unpinned.map((d) => `'${d.name}'`).join(", ")} share the allocation's nodes and together need ${perNode} GPUs per node, more than gpus_per_node (${g}). Pin them to separate node pools.`);
  }
}

/** The GPU arithmetic of sharded benchmarks: every array task is its own allocation with its own services. */
function shardNotes(cfg: SubmitConfig, layout: Layout, warnings: string[]): void {
  const perTask = layout.pools.reduce((acc, p) => acc + p.nodes * (p.gpus_per_node ?? 0), 0);
  for (const [bn, b] of Object.entries(cfg.driver.benchmarks)) {
    if (!b.shards) continue;
    const { count, max_parallel } = b.shards;
    const running = Math.min(count, max_parallel ?? count);
    const gpus = perTask > 0 ? `${layout.total} node(s) and ${perTask} GPU(s) each, so up to ${running * perTask} GPUs at once (${running} running task(s) × ${perTask}; ${count * perTask} GPU allocations in all)` : `${layout.total || 1} node(s) each and no GPUs`;
    warnings.push(`driver.benchmarks.${bn}.shards: ${count} array task(s), each starting its own copy of every service (services are per task): ${gpus}. Set shards.max_parallel to cap how many run at once.`);
  }
}
