/**
 * Ray clusters (spec submit.md §6.2, §6.6): the address exports, the head step on the driver node
 * and one worker step per spanned pool that has nodes besides the head.
 */
import type { Layout, PlacedPool } from "../deployment.ts";
import type { RayConfig } from "../schema.ts";
import { bashVar, q } from "./shell.ts";

/** JSON of a resources map: keys sorted, `{"a": 1, "b": 2.5}` (Python json.dumps spacing). */
export function resourcesJson(r: Record<string, number>): string {
  const keys = Object.keys(r).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}: ${JSON.stringify(r[k])}`).join(", ")}}`;
}

/** A worker range of a ray service: the pool minus the head node. */
export interface RayWorkers {
  pool: PlacedPool;
  start: number;
  count: number;
}

/** Pools of a ray service that have worker nodes (pool range minus head node d). */
export function rayWorkers(layout: Layout, svc: RayConfig): RayWorkers[] {
  const out: RayWorkers[] = [];
  for (const p of layout.pools) {
    if (!svc.node_pools.includes(p.name) || p.nodes === 0) continue;
    const d = layout.driverNode;
    const start = d === p.start ? p.start + 1 : p.start;
    const count = d >= p.start && d < p.start + p.nodes ? p.nodes - 1 : p.nodes;
    if (count > 0) out.push({ pool: p, start, count });
  }
  return out;
}

/** Name of the workers variable of a ray service for one pool. */
export function workersVar(service: string, pool: string): string {
  return `GYM_RAY_${bashVar(service)}_${bashVar(pool)}_WORKERS`;
}

/** The `export GYM_RAY_…` lines of a ray service (host array exists). */
export function rayExports(layout: Layout, name: string, svc: RayConfig): string[] {
  const lines = [`export GYM_RAY_ADDRESS_${bashVar(name)}="$(getent hosts "\${gym_nodes[${layout.driverNode}]}" | awk '{print $1; exit}'):${svc.port}"`];
  for (const w of rayWorkers(layout, svc)) lines.push(`export ${workersVar(name, w.pool.name)}="$(IFS=,; echo "\${gym_nodes[*]:${w.start}:${w.count}}")"`);
  return lines;
}

function resourceFlags(svc: RayConfig, pool: string | undefined): string[] {
  const out: string[] = [];
  if (svc.num_cpus !== null) out.push(`--num-cpus ${svc.num_cpus}`);
  if (svc.num_gpus !== null) out.push(`--num-gpus ${svc.num_gpus}`);
  const res = pool === undefined ? undefined : svc.resources[pool];
  if (res && Object.keys(res).length > 0) out.push(`--resources=${q(resourcesJson(res))}`);
  return out;
}

/** The head command; `hostArray` adds `--node-ip-address` from the exported address. */
export function rayHeadCommand(layout: Layout, name: string, svc: RayConfig, hostArray: boolean): string {
  const parts = ["ray start --block --head --port", String(svc.port)];
  if (hostArray) parts.push(`--node-ip-address "\${GYM_RAY_ADDRESS_${bashVar(name)}%:*}"`);
  const d = layout.driverNode;
  const headPool = layout.pools.find((p) => d >= p.start && d < p.start + p.nodes && svc.node_pools.includes(p.name));
  parts.push(...resourceFlags(svc, headPool?.name));
  if (svc.extra_args.trim() !== "") parts.push(svc.extra_args.trim());
  return parts.join(" ");
}

/** `extra_args` without the head-only flags (`--port`, `--redis-shard-ports`, `--include-dashboard`). */
export function workerExtraArgs(extra: string): string {
  return extra
    .replace(/(^|\s)--(port|redis-shard-ports|include-dashboard)(=\S*|\s+(?!-)\S+)?/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** The pre_command and command of one worker step. */
export function rayWorker(name: string, svc: RayConfig, pool: string): { pre: string; command: string } {
  const addr = `"$GYM_RAY_ADDRESS_${bashVar(name)}"`;
  const wait = `until ray status --address ${addr} >/dev/null 2>&1; do sleep 5; done`;
  const pre = svc.pre_command.trim() === "" ? wait : `${svc.pre_command}\n${wait}`;
  const parts = ["ray start --block --address", addr, ...resourceFlags(svc, pool)];
  const extra = workerExtraArgs(svc.extra_args);
  if (extra !== "") parts.push(extra);
  return { pre, command: parts.join(" ") };
}
