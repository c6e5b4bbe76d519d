/**
 * Connection-pool metrics (runtime.md §14, the seed's `QueueTimedTCPConnector`, emitted by gym's own
 * limiter and keep-alive pool): `gym.http.connection_pool.queue_duration_ms`, a histogram of the
 * waits of requests that had to queue for a connection slot, and `gym.http.connection_pool.connect_total`,
 * a counter of new connections, with the seed's attribute names. Recording is off (one boolean test
 * per request) until a process that exports telemetry turns it on.
 */

/** Why a request queued: the process-wide limit, the per-host limit, or not known. */
export type QueueConstraint = "total" | "per_host" | "unknown";
/** How a queued wait ended. */
export type QueueOutcome = "ok" | "abandoned";

/** Bucket bounds of the queue histogram, in ms (OTel's default explicit bounds). */
export const QUEUE_BOUNDS_MS = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];

/** `host:port` without IPv6 brackets, and without the port when it is http's default (as URL.host writes it). */
function destinationKey(host: string, port: number): string {
  const bare = host.replace(/[[\]]/g, "");
  return port === 80 ? bare : `${bare}:${port}`;
}

interface Histogram {
  attrs: Record<string, string>;
  buckets: number[];
  count: number;
  sum: number;
}

/** The process's pool metrics. */
class PoolMetrics {
  /** Whether waits and connects are recorded. */
  enabled = false;
  private readonly names = new Map<string, string>();
  private readonly queues = new Map<string, Histogram>();
  private readonly connects = new Map<string, number>();
  readonly startNanos = `${BigInt(Date.now()) * 1_000_000n}`;

  /** Name a destination: a configured server's host and port; any other host reports `external`. */
  nameDestination(host: string, port: number, name: string): void {
    this.names.set(destinationKey(host, port), name);
  }

  /** The `nemo.gym.http.destination.server.name` of a `host[:port]` (as URL.host writes it, port 80 implied). */
  destinationOf(host: string): string {
    return this.names.get(host.replace(/[[\]]/g, "")) ?? "external";
  }

  /** Record one queued wait. */
  queued(host: string, ms: number, constraint: QueueConstraint, outcome: QueueOutcome = "ok"): void {
    if (!this.enabled) return;
    const destination = this.destinationOf(host);
    const key = `${constraint}|${outcome}|${destination}`;
    let h = this.queues.get(key);
    if (!h) {
      h = {
        attrs: { "nemo.gym.http.connection_pool.queue_constraint": constraint, "nemo.gym.http.connection_pool.queue_outcome": outcome, "nemo.gym.http.destination.server.name": destination },
        buckets: new Array<number>(QUEUE_BOUNDS_MS.length + 1).fill(0),
        count: 0,
        sum: 0,
      };
      this.queues.set(key, h);
    }
    let i = QUEUE_BOUNDS_MS.findIndex((b) => ms <= b);
    if (i < 0) i = QUEUE_BOUNDS_MS.length;
    h.buckets[i]!++;
    h.count++;
    h.sum += ms;
  }

  /** Count one new connection to `host:port`. */
  connected(host: string): void {
    if (!this.enabled) return;
    const destination = this.destinationOf(host);
    this.connects.set(destination, (this.connects.get(destination) ?? 0) + 1);
  }

  /** The OTLP JSON metric objects (cumulative since start); empty before anything was recorded. */
  otlp(nowNanos: string): unknown[] {
    const attrs = (a: Record<string, string>) => Object.entries(a).map(([key, v]) => ({ key, value: { stringValue: v } }));
    const out: unknown[] = [];
    if (this.queues.size > 0) {
      out.push({
        name: "gym.http.connection_pool.queue_duration_ms",
        unit: "ms",
        histogram: {
          aggregationTemporality: 2,
          dataPoints: [...this.queues.values()].map((h) => ({
            attributes: attrs(h.attrs),
            startTimeUnixNano: this.startNanos,
            timeUnixNano: nowNanos,
            count: String(h.count),
            sum: h.sum,
            bucketCounts: h.buckets.map(String),
            explicitBounds: QUEUE_BOUNDS_MS,
          })),
        },
      });
    }
    if (this.connects.size > 0) {
      out.push({
        name: "gym.http.connection_pool.connect_total",
        unit: "1",
        sum: {
          aggregationTemporality: 2,
          isMonotonic: true,
          dataPoints: [...this.connects].map(([destination, n]) => ({
            attributes: attrs({ "nemo.gym.http.destination.server.name": destination }),
            startTimeUnixNano: this.startNanos,
            timeUnixNano: nowNanos,
            asInt: String(n),
          })),
        },
      });
    }
    return out;
  }
}

/** The process-wide pool metrics (one pool per process, like the client). */
export const poolMetrics = new PoolMetrics();
