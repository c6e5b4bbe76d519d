/**
 * Driver metrics over OTLP/HTTP (runtime §14; submit's gym telemetry sets NEMO_GYM_OTEL_ENABLED and
 * OTEL_EXPORTER_OTLP_ENDPOINT): rollout counters, in-flight gauge, running mean reward and a
 * duration histogram, pushed as OTLP (protobuf or JSON) every `intervalMs` and once at the end. Best-effort:
 * a collector that is down costs one warning, never the run. Honours proxy variables (D34: external).
 */
import { log } from "../log.ts";
import { otlpAttributes, postOtlp, type OtlpProtocol } from "../runtime/http/otlp-push.ts";
import { poolMetrics } from "../runtime/http/pool-metrics.ts";

const BOUNDS_MS = [100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000, 1800000];

/** The counts a push reports. */
export interface RolloutCounts {
  done: number;
  failed: number;
  in_flight: number;
  total: number;
  mean_reward: number | null;
}

/** Periodic OTLP/HTTP JSON metrics of one collection. */
export class OtlpMetrics {
  private readonly buckets = new Array<number>(BOUNDS_MS.length + 1).fill(0);
  private count = 0;
  private sum = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private warned = false;
  private readonly start = `${BigInt(Date.now()) * 1_000_000n}`;

  constructor(
    readonly endpoint: string,
    private readonly attributes: Record<string, string> = {},
    private readonly intervalMs = 10_000,
    private readonly protocol: OtlpProtocol = "http/protobuf",
  ) {}

  /** Record one finished rollout's duration. */
  observe(ms: number): void {
    let i = BOUNDS_MS.findIndex((b) => ms <= b);
    if (i < 0) i = BOUNDS_MS.length;
    this.buckets[i]!++;
    this.count++;
    this.sum += ms;
  }

  /** The OTLP JSON body for the given counts. */
  body(c: RolloutCounts): unknown {
    const now = `${BigInt(Date.now()) * 1_000_000n}`;
    const sum = (name: string, v: number) => ({ name, unit: "1", sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [{ asInt: String(v), startTimeUnixNano: this.start, timeUnixNano: now }] } });
    const gauge = (name: string, v: number, unit = "1") => ({ name, unit, gauge: { dataPoints: [{ asDouble: v, timeUnixNano: now }] } });
    const metrics: unknown[] = [
      sum("gym.rollouts.completed", c.done),
      sum("gym.rollouts.failed", c.failed),
      gauge("gym.rollouts.in_flight", c.in_flight),
      gauge("gym.rollouts.total", c.total),
      {
        name: "gym.rollout.duration",
        unit: "ms",
        histogram: {
          aggregationTemporality: 2,
          dataPoints: [{ startTimeUnixNano: this.start, timeUnixNano: now, count: String(this.count), sum: this.sum, bucketCounts: this.buckets.map(String), explicitBounds: BOUNDS_MS }],
        },
      },
    ];
    if (c.mean_reward !== null) metrics.push(gauge("gym.rollouts.mean_reward", c.mean_reward));
    // The driver's own connections (runtime §14: the orchestrator initialises telemetry too).
    metrics.push(...poolMetrics.otlp(now));
    return {
      resourceMetrics: [
        {
          resource: { attributes: otlpAttributes({ "service.name": "gym", "nemo.gym.server.name": "rollout_collection", ...this.attributes }) },
          scopeMetrics: [{ scope: { name: "gym.rollout" }, metrics }],
        },
      ],
    };
  }

  /** Push once (best-effort). */
  async push(c: RolloutCounts): Promise<void> {
    try {
      await postOtlp(this.endpoint, this.body(c), this.protocol);
    } catch (e) {
      if (!this.warned) log.warn(`OTLP metrics push to ${this.endpoint} failed (${(e as Error).message}); the run continues`);
      this.warned = true;
    }
  }

  /** Push every interval from `counts()`. */
  begin(counts: () => RolloutCounts): void {
    poolMetrics.enabled = true;
    this.timer = setInterval(() => void this.push(counts()), this.intervalMs);
    this.timer.unref?.();
  }

  /** Final push and stop. */
  async end(c: RolloutCounts): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.push(c);
  }
}
