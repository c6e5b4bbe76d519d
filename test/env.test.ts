/** src/env.ts: the telemetry variables as the driver and server processes read them. */
import { describe, expect, test } from "bun:test";
import { readEnv } from "../src/env.ts";

describe("readEnv telemetry", () => {
  test("the metrics endpoint, the run id and the export interval", () => {
    const e = readEnv({ NEMO_GYM_OTEL_ENABLED: "1", OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318/", NEMO_GYM_OTEL_RUN_ID: "42", OTEL_METRIC_EXPORT_INTERVAL: "5000" });
    expect([e.otelEnabled, e.otlpMetricsEndpoint, e.otelRunId, e.otelMetricExportIntervalMs]).toEqual([true, "http://localhost:4318/v1/metrics", "42", 5000]);
    // The metrics-specific endpoint wins; a bad or non-positive interval falls back to gym's default.
    const f = readEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://b:4318/m", OTEL_METRIC_EXPORT_INTERVAL: "soon" });
    expect([f.otelEnabled, f.otlpMetricsEndpoint, f.otelMetricExportIntervalMs]).toEqual([false, "http://b:4318/m", undefined]);
    expect(readEnv({ OTEL_METRIC_EXPORT_INTERVAL: "0" }).otelMetricExportIntervalMs).toBeUndefined();
  });
});
