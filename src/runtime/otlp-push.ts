/**
 * OTLP/HTTP JSON export (runtime.md §14): one POST of a metrics body (deadline 10 s, proxies
 * honoured: a collector is an external service, D34), and the periodic push of a server process's
 * connection-pool metrics. Best-effort: a collector that is down costs one warning, never a request.
 */
import { log } from "../log.ts";
import { poolMetrics } from "./pool-metrics.ts";

/** OTLP string attributes from a plain map. */
export function otlpAttributes(attrs: Record<string, string>): { key: string; value: { stringValue: string } }[] {
  return Object.entries(attrs).map(([key, v]) => ({ key, value: { stringValue: v } }));
}

/** POST one OTLP JSON body; throws on a transport error or a non-2xx answer. */
export async function postOtlpJson(endpoint: string, body: unknown): Promise<void> {
  const res = await fetch(endpoint, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" }, signal: AbortSignal.timeout(10_000) });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
}

/**
 * A server process's telemetry: turns pool-metric recording on and pushes the metrics every
 * `intervalMs` (and once at `stop`) with `nemo.gym.server.name` as a resource attribute.
 */
export class ServerTelemetry {
  private timer: ReturnType<typeof setInterval> | undefined;
  private warned = false;

  constructor(
    readonly endpoint: string,
    private readonly resource: Record<string, string>,
    private readonly intervalMs = 10_000,
  ) {}

  /** Start recording and pushing. */
  start(): void {
    poolMetrics.enabled = true;
    this.timer = setInterval(() => void this.push(), this.intervalMs);
    this.timer.unref();
  }

  /** The OTLP body of the current pool metrics, or undefined when nothing was recorded yet. */
  body(): unknown {
    const metrics = poolMetrics.otlp(`${BigInt(Date.now()) * 1_000_000n}`);
    if (metrics.length === 0) return undefined;
    return { resourceMetrics: [{ resource: { attributes: otlpAttributes({ "service.name": "gym", ...this.resource }) }, scopeMetrics: [{ scope: { name: "gym.http" }, metrics }] }] };
  }

  /** Push once (best-effort). */
  async push(): Promise<void> {
    const body = this.body();
    if (body === undefined) return;
    try {
      await postOtlpJson(this.endpoint, body);
    } catch (e) {
      if (!this.warned) log.warn(`OTLP metrics push to ${this.endpoint} failed (${(e as Error).message}); the server carries on`);
      this.warned = true;
    }
  }

  /** Final push and stop. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.push();
  }
}
