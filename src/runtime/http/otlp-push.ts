/**
 * OTLP/HTTP metrics export (runtime.md §14): one POST of a metrics body, protobuf (OTel's default,
 * and what submit's gym telemetry asks for) or JSON (deadline 10 s, proxies honoured: a collector is
 * an external service, D34), and the periodic push of a server process's connection-pool metrics.
 * Best-effort: a collector that is down costs one warning, never a request.
 */
import { log } from "../../log.ts";
import { encodeMetricsRequest } from "./otlp-proto.ts";
import { poolMetrics } from "./pool-metrics.ts";
import { providedMetrics } from "./metric-providers.ts";
import { RuntimeError } from "../../errors.ts";

/** The OTLP/HTTP encodings gym sends. */
export type OtlpProtocol = "http/protobuf" | "http/json";

let warnedProtocol = false;

/**
 * The encoding for an `OTEL_EXPORTER_OTLP_*PROTOCOL` value: http/json when asked, else http/protobuf
 * (OTel's default). gRPC is not spoken here: it is reported once and protobuf over HTTP is sent.
 */
export function otlpProtocol(value: string | undefined): OtlpProtocol {
  const v = (value ?? "").trim().toLowerCase();
  if (v === "http/json") return "http/json";
  if (v !== "" && v !== "http/protobuf" && !warnedProtocol) {
    warnedProtocol = true;
    log.warn(`OTEL_EXPORTER_OTLP_PROTOCOL=${value}: gym exports metrics over OTLP/HTTP only; sending http/protobuf (set http/json or http/protobuf, and an HTTP endpoint such as :4318)`);
  }
  return "http/protobuf";
}

/** OTLP string attributes from a plain map. */
export function otlpAttributes(attrs: Record<string, string>): { key: string; value: { stringValue: string } }[] {
  return Object.entries(attrs).map(([key, v]) => ({ key, value: { stringValue: v } }));
}

/** POST one OTLP metrics body (built in the proto3 JSON mapping) in `protocol`; throws on a transport error or a non-2xx answer. */
export async function postOtlp(endpoint: string, body: unknown, protocol: OtlpProtocol): Promise<void> {
  const [payload, type] = protocol === "http/json" ? [JSON.stringify(body), "application/json"] : [encodeMetricsRequest(body), "application/x-protobuf"];
  const res = await fetch(endpoint, { method: "POST", body: payload, headers: { "content-type": type }, signal: AbortSignal.timeout(10_000) });
  await res.arrayBuffer();
  if (!res.ok) throw new RuntimeError(`the OTLP collector answered HTTP ${res.status}`, { hint: "check OTEL_EXPORTER_OTLP_METRICS_ENDPOINT and the collector's logs" });
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
    private readonly protocol: OtlpProtocol = "http/protobuf",
  ) {}

  /** Start recording and pushing. */
  start(): void {
    poolMetrics.enabled = true;
    this.timer = setInterval(() => void this.push(), this.intervalMs);
    this.timer.unref();
  }

  /** The OTLP body of the current pool metrics and registered providers' readings (metric-providers.ts), or undefined when there is nothing yet. */
  body(): unknown {
    const now = `${BigInt(Date.now()) * 1_000_000n}`;
    const metrics = poolMetrics.otlp(now);
    const provided = providedMetrics(poolMetrics.startNanos, now);
    if (metrics.length === 0 && provided.length === 0) return undefined;
    const scopes = [];
    if (metrics.length > 0) scopes.push({ scope: { name: "gym.http" }, metrics });
    if (provided.length > 0) scopes.push({ scope: { name: "gym" }, metrics: provided });
    return { resourceMetrics: [{ resource: { attributes: otlpAttributes({ "service.name": "gym", ...this.resource }) }, scopeMetrics: scopes }] };
  }

  /** Push once (best-effort). */
  async push(): Promise<void> {
    const body = this.body();
    if (body === undefined) return;
    try {
      await postOtlp(this.endpoint, body, this.protocol);
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
