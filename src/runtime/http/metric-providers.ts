/**
 * Process-local readings that a lower layer hands the OTLP push without runtime/ importing it
 * (runtime/ never imports components/): a provider is a function returning the current gauges and
 * cumulative counts; ServerTelemetry reads every registered provider at each push.
 */

/** One reading: a gauge (the value now) or a counter (cumulative since the process started). */
export interface MetricReading {
  name: string;
  unit: string;
  kind: "gauge" | "counter";
  value: number;
  attributes?: Record<string, string>;
}

/** Returns the readings of one source at push time. */
export type MetricProvider = () => MetricReading[];

const providers = new Set<MetricProvider>();

/** Register a provider; returns its removal. */
export function addMetricProvider(p: MetricProvider): () => void {
  providers.add(p);
  return () => void providers.delete(p);
}

/** The providers' readings as OTLP JSON metric objects (one per name, a data point per attribute set); empty without providers. */
export function providedMetrics(startNanos: string, nowNanos: string): unknown[] {
  const byName = new Map<string, { unit: string; kind: MetricReading["kind"]; points: unknown[] }>();
  for (const p of providers) {
    for (const r of p()) {
      let m = byName.get(r.name);
      if (!m) byName.set(r.name, (m = { unit: r.unit, kind: r.kind, points: [] }));
      m.points.push({
        attributes: Object.entries(r.attributes ?? {}).map(([key, v]) => ({ key, value: { stringValue: v } })),
        ...(r.kind === "counter" ? { startTimeUnixNano: startNanos } : {}),
        timeUnixNano: nowNanos,
        asInt: String(Math.trunc(r.value)),
      });
    }
  }
  return [...byName].map(([name, m]) =>
    m.kind === "gauge" ? { name, unit: m.unit, gauge: { dataPoints: m.points } } : { name, unit: m.unit, sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: m.points } },
  );
}
