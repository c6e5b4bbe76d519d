/** Helpers for supervisor tests: ResolvedConfig objects built by hand, and process-table checks. */
import { join } from "node:path";
import type { ConfigDict, ResolvedConfig, ServerInstance, ServerType } from "../../src/config/types.ts";

/** Root of the runtime fixtures (upstream layout: resources_servers/<impl>/…). */
export const FIXTURES = join(import.meta.dir, "..", "fixtures", "runtime");

/** One server of a hand-built config. */
export interface ServerDef {
  name: string;
  type: ServerType;
  impl: string;
  leaf: Record<string, unknown>;
  external?: boolean;
}

/** A ResolvedConfig with the runtime's defaults filled in (what config/ would produce). */
export function resolvedConfig(servers: ServerDef[], globals: ConfigDict = {}): ResolvedConfig {
  const dict: ConfigDict = {
    head_server: { host: "127.0.0.1", port: 0 },
    port_range_low: 10001,
    port_range_high: 20000,
    disallowed_ports: [],
    server_spinup_timeout_seconds: 30,
    model_endpoint_readiness_timeout_seconds: 0,
    ...globals,
  };
  const instances: ServerInstance[] = [];
  for (const s of servers) {
    const leaf = { host: "127.0.0.1", ...s.leaf };
    dict[s.name] = { [s.type]: { [s.impl]: leaf } };
    instances.push({ name: s.name, serverType: s.type, implementation: s.impl, leaf, dir: s.external ? join(FIXTURES, s.type, s.impl) : undefined, generated: false });
  }
  return { dict, servers: instances, roots: [FIXTURES] };
}

/** True while a pid exists (zombies included). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True when the pid is gone or a zombie about to be reaped. */
export async function pidGone(pid: number): Promise<boolean> {
  if (!pidAlive(pid)) return true;
  const stat = await Bun.file(`/proc/${pid}/stat`).text().catch(() => "");
  return stat === "" || / Z /.test(stat);
}

/**
 * Wait until every pid is gone (bounded); returns the ones left. Zombies count as left unless
 * `allowZombies` (processes re-parented to an init that may not reap them promptly).
 */
export async function waitGone(pids: number[], ms = 5000, allowZombies = false): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left: number[] = [];
    for (const p of pids) if (allowZombies ? !(await pidGone(p)) : pidAlive(p)) left.push(p);
    if (left.length === 0 || Date.now() > deadline) return left;
    await Bun.sleep(50);
  }
}

/** GET JSON. */
export async function getJson(url: string): Promise<{ status: number; body: unknown; text: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

/** A port that was free a moment ago (for head_server.port in CLI tests; config/ rejects port 0). */
export function freePort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const p = s.port!;
  s.stop(true);
  return p;
}

/** Every descendant pid of `pid` right now (from /proc/<pid>/task/<tid>/children, recursively). */
export async function descendants(pid: number): Promise<number[]> {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift()!;
    let tids: string[] = [];
    try {
      tids = (await Array.fromAsync(new Bun.Glob("*").scan({ cwd: `/proc/${p}/task`, onlyFiles: false }))) as string[];
    } catch {
      continue;
    }
    for (const tid of tids) {
      const text = await Bun.file(`/proc/${p}/task/${tid}/children`).text().catch(() => "");
      for (const c of text.split(/\s+/).filter((x) => x !== "").map(Number)) {
        if (!out.includes(c)) {
          out.push(c);
          queue.push(c);
        }
      }
    }
  }
  return out;
}
