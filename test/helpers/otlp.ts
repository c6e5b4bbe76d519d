/**
 * An OTLP collector for tests: a loopback server that records metrics exports, decoding protobuf
 * with protobufjs (an independent implementation of the wire format, against the field numbers of
 * opentelemetry-proto's metrics/v1) into the same proto3 JSON shape an http/json export has.
 */
import protobuf from "protobufjs";

const SCHEMA = `
syntax = "proto3";
package otlp;
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; } }
message InstrumentationScope { string name = 1; string version = 2; }
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; string schema_url = 3; }
message Metric { string name = 1; string description = 2; string unit = 3; oneof data { Gauge gauge = 5; Sum sum = 7; Histogram histogram = 9; } }
message Gauge { repeated NumberDataPoint data_points = 1; }
message Sum { repeated NumberDataPoint data_points = 1; int32 aggregation_temporality = 2; bool is_monotonic = 3; }
message Histogram { repeated HistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message NumberDataPoint {
  repeated KeyValue attributes = 7; fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
  oneof value { double as_double = 4; sfixed64 as_int = 6; }
}
message HistogramDataPoint {
  repeated KeyValue attributes = 9; fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
  fixed64 count = 4; optional double sum = 5; repeated fixed64 bucket_counts = 6; repeated double explicit_bounds = 7;
}
`;

const Request = protobuf.parse(SCHEMA).root.lookupType("otlp.ExportMetricsServiceRequest");

/** Decode protobuf export bytes into the proto3 JSON mapping's shape (64-bit integers as strings). */
export function decodeMetricsRequest(bytes: Uint8Array): Record<string, unknown> {
  return Request.toObject(Request.decode(bytes), { longs: String, arrays: true, defaults: false, oneofs: false }) as Record<string, unknown>;
}

/** One recorded export: its content type and body in the JSON shape. */
export interface Received {
  contentType: string;
  body: any;
}

/** A loopback collector at `url` (…/v1/metrics) recording every export. */
export function otlpCollector(): { url: string; received: Received[]; stop: () => void } {
  const received: Received[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const contentType = req.headers.get("content-type") ?? "";
      const body = contentType.includes("protobuf") ? decodeMetricsRequest(new Uint8Array(await req.arrayBuffer())) : await req.json();
      received.push({ contentType, body });
      return new Response(null, { status: 200 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1/metrics`, received, stop: () => server.stop(true) };
}
