/**
 * What `gym env status` reports (runtime.md §3.1): the head's `/server_instances` (5 s timeout)
 * and one `GET <url>` per server (2 s timeout; any HTTP answer is `success`).
 */
import { RuntimeError } from "../../errors.ts";
import type { ServerInstanceDisplay } from "./head.ts";
import { probeServer, type ProbeStatus } from "./readiness.ts";

/** One server with its probe result. */
export interface ServerStatus extends Omit<ServerInstanceDisplay, "status"> {
  status: ProbeStatus;
  /** The verifier worker pool's load (`GET /_gym/verifier_pool`), for servers that have one. */
  verifier_pool?: VerifierPoolLoad;
}

/** What a server's verifier pool reports (components/_worker-pool.ts PoolStats). */
export interface VerifierPoolLoad {
  size: number;
  workers: number;
  busy: number;
  queued: number;
  completed: number;
  failed: number;
}

/** A server's verifier-pool load, or undefined when it has no pool (404, not gym, no answer). */
async function poolLoad(url: string): Promise<VerifierPoolLoad | undefined> {
  try {
    const res = await fetch(`${url.replace(/\/+$/, "")}/_gym/verifier_pool`, { signal: AbortSignal.timeout(2000), proxy: false } as RequestInit);
    if (res.status !== 200) return undefined;
    const v = (await res.json()) as VerifierPoolLoad;
    return typeof v?.busy === "number" && typeof v.queued === "number" ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The whole status report. */
export interface EnvStatus {
  head_server: string;
  ready: boolean;
  servers: ServerStatus[];
}

/** Ask the head for its servers and probe each one. */
export async function envStatus(head: { host: string; port: number }): Promise<EnvStatus> {
  const base = `http://${head.host.includes(":") ? `[${head.host}]` : head.host}:${head.port}`;
  let instances: ServerInstanceDisplay[];
  try {
    const res = await fetch(`${base}/server_instances`, { signal: AbortSignal.timeout(5000), proxy: false } as RequestInit);
    instances = (await res.json()) as ServerInstanceDisplay[];
    if (!Array.isArray(instances)) throw new RuntimeError(`the head server answered /server_instances with ${JSON.stringify(instances).slice(0, 100)}, not a list`, { hint: "is the head_server address that of a gym (or NeMo Gym) head server?" });
  } catch (err) {
    throw new RuntimeError(`Could not connect to the head server at ${base}. Perhaps you are not running a server or your head server is on a different port?`, {
      hint: "start one with `gym env start …`, or pass ++head_server.port=<port> (and ++head_server.host=<host>) where it runs",
      cause: err,
    });
  }
  const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5000), proxy: false } as RequestInit)
    .then((r) => r.status === 200)
    .catch(() => false);
  const servers = await Promise.all(
    instances.map(async (i) => {
      const out: ServerStatus = { ...i, status: await probeServer(i.url, 2000) };
      const pool = out.status === "success" && i.server_type === "resources_servers" ? await poolLoad(i.url) : undefined;
      if (pool) out.verifier_pool = pool;
      return out;
    }),
  );
  return { head_server: base, ready, servers };
}

/** The human-readable table. */
export function formatStatus(s: EnvStatus): string {
  const healthy = s.servers.filter((x) => x.status === "success").length;
  const lines = [`${s.servers.length} servers found (${healthy} healthy, ${s.servers.length - healthy} unhealthy)`, `head server: ${s.head_server} (${s.ready ? "ready" : "starting"})`];
  const pool = (x: ServerStatus) => (x.verifier_pool ? `verifier pool ${x.verifier_pool.busy}/${x.verifier_pool.size} busy, ${x.verifier_pool.queued} queued` : "");
  const rows = s.servers.map((x) => [x.status === "success" ? "✓" : "✗", x.process_name, `${x.server_type}/${x.name}`, x.url, String(x.pid ?? "-"), x.status, pool(x)]);
  const widths = rows.reduce((w, r) => r.map((c, i) => Math.max(w[i] ?? 0, c.length)), [] as number[]);
  for (const r of rows) lines.push(`  ${r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()}`);
  return `${lines.join("\n")}\n`;
}
