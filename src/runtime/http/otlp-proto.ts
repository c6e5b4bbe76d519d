/**
 * OTLP/HTTP protobuf encoding of a metrics export (opentelemetry-proto `ExportMetricsServiceRequest`,
 * metrics/v1). gym builds its metrics in the proto3 JSON mapping (what `http/json` sends); this
 * writes the same message in the binary wire format for `http/protobuf`, the OTel default and what
 * submit's gym telemetry asks for. Only what gym emits is covered: string attributes, an instrumentation
 * scope name, and sum, gauge and explicit-bucket histogram points.
 */

type Json = Record<string, unknown>;

// Field numbers of opentelemetry/proto/{collector/metrics,metrics,common,resource}/v1.
const F = {
  request: { resourceMetrics: 1 },
  resourceMetrics: { resource: 1, scopeMetrics: 2 },
  resource: { attributes: 1 },
  keyValue: { key: 1, value: 2 },
  anyValue: { stringValue: 1 },
  scopeMetrics: { scope: 1, metrics: 2 },
  scope: { name: 1, version: 2 },
  metric: { name: 1, description: 2, unit: 3, gauge: 5, sum: 7, histogram: 9 },
  gauge: { dataPoints: 1 },
  sum: { dataPoints: 1, aggregationTemporality: 2, isMonotonic: 3 },
  histogram: { dataPoints: 1, aggregationTemporality: 2 },
  number: { startTimeUnixNano: 2, timeUnixNano: 3, asDouble: 4, asInt: 6, attributes: 7 },
  histogramPoint: { startTimeUnixNano: 2, timeUnixNano: 3, count: 4, sum: 5, bucketCounts: 6, explicitBounds: 7, attributes: 9 },
} as const;

const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;

/** A growable protobuf writer. */
class Writer {
  private buf = new Uint8Array(256);
  private view = new DataView(this.buf.buffer);
  private len = 0;

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  private varint(v: bigint | number): void {
    let n = BigInt.asUintN(64, BigInt(v));
    this.room(10);
    while (n >= 0x80n) {
      this.buf[this.len++] = Number(n & 0x7fn) | 0x80;
      n >>= 7n;
    }
    this.buf[this.len++] = Number(n);
  }

  private tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  /** A varint field (enums, bools, ints); proto3 leaves zero out. */
  uint(field: number, v: number | boolean): void {
    const n = typeof v === "boolean" ? Number(v) : v;
    if (n === 0) return;
    this.tag(field, VARINT);
    this.varint(n);
  }

  /** A fixed64 / sfixed64 field from a decimal string or number (nanosecond times, counts). */
  fixed64(field: number, v: string | number | undefined): void {
    if (v === undefined) return;
    const n = BigInt(v);
    if (n === 0n) return;
    this.tag(field, FIXED64);
    this.room(8);
    this.view.setBigUint64(this.len, BigInt.asUintN(64, n), true);
    this.len += 8;
  }

  /** An sfixed64 member of a oneof (`as_int`): written even when zero. */
  sfixed64(field: number, v: string | number): void {
    this.tag(field, FIXED64);
    this.room(8);
    this.view.setBigInt64(this.len, BigInt.asIntN(64, BigInt(v)), true);
    this.len += 8;
  }

  /** A double field (written even when zero: `as_double` and `sum` are presence-tracked). */
  double(field: number, v: number | undefined): void {
    if (v === undefined) return;
    this.tag(field, FIXED64);
    this.room(8);
    this.view.setFloat64(this.len, v, true);
    this.len += 8;
  }

  /** A string field. */
  string(field: number, v: string | undefined): void {
    if (v === undefined || v === "") return;
    this.bytes(field, new TextEncoder().encode(v));
  }

  /** A length-delimited field. */
  bytes(field: number, b: Uint8Array): void {
    this.tag(field, LEN);
    this.varint(b.length);
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  /** An embedded message. */
  message(field: number, build: (w: Writer) => void): void {
    const w = new Writer();
    build(w);
    this.bytes(field, w.finish());
  }

  /** A packed repeated fixed64 field. */
  packedFixed64(field: number, vs: (string | number)[] | undefined): void {
    if (!vs || vs.length === 0) return;
    const w = new Writer();
    w.room(vs.length * 8);
    for (const v of vs) {
      w.view.setBigUint64(w.len, BigInt.asUintN(64, BigInt(v)), true);
      w.len += 8;
    }
    this.bytes(field, w.finish());
  }

  /** A packed repeated double field. */
  packedDouble(field: number, vs: number[] | undefined): void {
    if (!vs || vs.length === 0) return;
    const w = new Writer();
    w.room(vs.length * 8);
    for (const v of vs) {
      w.view.setFloat64(w.len, v, true);
      w.len += 8;
    }
    this.bytes(field, w.finish());
  }

  /** The bytes written. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

function attributes(w: Writer, field: number, attrs: unknown): void {
  for (const a of (attrs as { key: string; value: { stringValue?: string } }[] | undefined) ?? []) {
    w.message(field, (kv) => {
      kv.string(F.keyValue.key, a.key);
      kv.message(F.keyValue.value, (v) => v.string(F.anyValue.stringValue, a.value.stringValue ?? ""));
    });
  }
}

function numberPoint(w: Writer, p: Json): void {
  attributes(w, F.number.attributes, p.attributes);
  w.fixed64(F.number.startTimeUnixNano, p.startTimeUnixNano as string | undefined);
  w.fixed64(F.number.timeUnixNano, p.timeUnixNano as string | undefined);
  if (p.asInt !== undefined) w.sfixed64(F.number.asInt, p.asInt as string);
  else w.double(F.number.asDouble, p.asDouble as number | undefined);
}

function histogramPoint(w: Writer, p: Json): void {
  attributes(w, F.histogramPoint.attributes, p.attributes);
  w.fixed64(F.histogramPoint.startTimeUnixNano, p.startTimeUnixNano as string | undefined);
  w.fixed64(F.histogramPoint.timeUnixNano, p.timeUnixNano as string | undefined);
  w.fixed64(F.histogramPoint.count, p.count as string | undefined);
  w.double(F.histogramPoint.sum, p.sum as number | undefined);
  w.packedFixed64(F.histogramPoint.bucketCounts, p.bucketCounts as string[] | undefined);
  w.packedDouble(F.histogramPoint.explicitBounds, p.explicitBounds as number[] | undefined);
}

function metric(w: Writer, m: Json): void {
  w.string(F.metric.name, m.name as string);
  w.string(F.metric.description, m.description as string | undefined);
  w.string(F.metric.unit, m.unit as string | undefined);
  const points = (x: Json | undefined) => ((x?.dataPoints as Json[] | undefined) ?? []);
  if (m.sum) {
    const s = m.sum as Json;
    w.message(F.metric.sum, (sw) => {
      for (const p of points(s)) sw.message(F.sum.dataPoints, (pw) => numberPoint(pw, p));
      sw.uint(F.sum.aggregationTemporality, (s.aggregationTemporality as number | undefined) ?? 0);
      sw.uint(F.sum.isMonotonic, s.isMonotonic === true);
    });
  } else if (m.gauge) {
    w.message(F.metric.gauge, (gw) => {
      for (const p of points(m.gauge as Json)) gw.message(F.gauge.dataPoints, (pw) => numberPoint(pw, p));
    });
  } else if (m.histogram) {
    const h = m.histogram as Json;
    w.message(F.metric.histogram, (hw) => {
      for (const p of points(h)) hw.message(F.histogram.dataPoints, (pw) => histogramPoint(pw, p));
      hw.uint(F.histogram.aggregationTemporality, (h.aggregationTemporality as number | undefined) ?? 0);
    });
  }
}

/** Encode an OTLP metrics body given in the proto3 JSON mapping as `ExportMetricsServiceRequest` bytes. */
export function encodeMetricsRequest(body: unknown): Uint8Array {
  const w = new Writer();
  for (const rm of ((body as Json).resourceMetrics as Json[] | undefined) ?? []) {
    w.message(F.request.resourceMetrics, (rw) => {
      const resource = rm.resource as Json | undefined;
      if (resource) rw.message(F.resourceMetrics.resource, (r) => attributes(r, F.resource.attributes, resource.attributes));
      for (const sm of (rm.scopeMetrics as Json[] | undefined) ?? []) {
        rw.message(F.resourceMetrics.scopeMetrics, (sw) => {
          const scope = sm.scope as Json | undefined;
          if (scope) sw.message(F.scopeMetrics.scope, (s) => {
            s.string(F.scope.name, scope.name as string | undefined);
            s.string(F.scope.version, scope.version as string | undefined);
          });
          for (const m of (sm.metrics as Json[] | undefined) ?? []) sw.message(F.scopeMetrics.metrics, (mw) => metric(mw, m));
        });
      }
    });
  }
  return w.finish();
}
