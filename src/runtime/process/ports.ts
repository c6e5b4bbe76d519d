/**
 * Port choice without races (D14): a port is only "chosen" once a process holds it. Built-in
 * children bind candidates from [port_range_low, port_range_high] themselves and report the one
 * they hold; for external servers the parent probes a candidate and respawns on a lost bind.
 */
import { RuntimeError } from "../../errors.ts";

/** The range and exclusions ports are chosen from. */
export interface PortRange {
  low: number;
  high: number;
  disallowed: Set<number>;
}

/** Upstream gives up after this many candidates. */
export const MAX_PORT_ATTEMPTS = 50;

/** Read the range keys from a config (defaults 10001–20000, the head port and claimed ports excluded). */
export function portRangeFromConfig(dict: Record<string, unknown>): PortRange {
  const low = Number(dict.port_range_low ?? 10001);
  const high = Number(dict.port_range_high ?? 20000);
  const disallowed = new Set<number>();
  if (Array.isArray(dict.disallowed_ports)) for (const p of dict.disallowed_ports) if (Number.isInteger(Number(p))) disallowed.add(Number(p));
  const head = (dict.head_server ?? {}) as Record<string, unknown>;
  if (Number(head.port) > 0) disallowed.add(Number(head.port));
  return { low: Number.isInteger(low) ? low : 10001, high: Number.isInteger(high) ? high : 20000, disallowed };
}

/** A random candidate in the range that is not disallowed (or undefined when none is left). */
export function randomCandidate(range: PortRange, tried: Set<number>): number | undefined {
  const span = range.high - range.low + 1;
  if (span <= 0) return undefined;
  for (let k = 0; k < 200; k++) {
    const p = range.low + Math.floor(Math.random() * span);
    if (!range.disallowed.has(p) && !tried.has(p)) return p;
  }
  for (let p = range.low; p <= range.high; p++) if (!range.disallowed.has(p) && !tried.has(p)) return p;
  return undefined;
}

/** Upstream's error when no port can be found. */
export function noPortError(range: PortRange): RuntimeError {
  return new RuntimeError(
    `Unable to find an open port that doesn't conflict with disallowed ports [${[...range.disallowed].sort((a, b) => a - b).join(", ")}] after ${MAX_PORT_ATTEMPTS} attempts`,
    { hint: "widen port_range_low/port_range_high or free some ports" },
  );
}

function inUse(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === "EADDRINUSE" || /in use|EADDRINUSE/i.test(e?.message ?? "");
}

/** Bind by trying candidates until one holds (`bind` throws EADDRINUSE on a taken port). */
export function bindInRange<T>(range: PortRange, bind: (port: number) => T): { port: number; value: T } {
  const tried = new Set<number>();
  for (let attempt = 0; attempt < MAX_PORT_ATTEMPTS; attempt++) {
    const port = randomCandidate(range, tried);
    if (port === undefined) break;
    tried.add(port);
    try {
      return { port, value: bind(port) };
    } catch (err) {
      if (!inUse(err)) throw err;
    }
  }
  throw noPortError(range);
}

/** True when `host:port` can be bound right now (probe, then released: only for servers the parent cannot hand a socket to). */
export function portLooksFree(host: string, port: number): boolean {
  try {
    const l = Bun.listen({ hostname: host, port, socket: { data() {} } });
    l.stop(true);
    return true;
  } catch {
    return false;
  }
}

/** A candidate port for an external server: free right now and not claimed by this run. */
export function probeExternalPort(host: string, range: PortRange): number {
  const tried = new Set<number>();
  for (let attempt = 0; attempt < MAX_PORT_ATTEMPTS; attempt++) {
    const port = randomCandidate(range, tried);
    if (port === undefined) break;
    tried.add(port);
    if (portLooksFree(host, port)) return port;
  }
  throw noPortError(range);
}

/** True when an error is a lost bind (address in use). */
export { inUse as isAddressInUse };
