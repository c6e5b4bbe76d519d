/** Every default of the seed tables (spec submit.md §3) lands in the validated config. */
import { describe, expect, test } from "bun:test";
import { baseConfig, check } from "./_helpers.ts";

function get(obj: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);
}

describe("submit defaults", () => {
  const cfg = baseConfig();
  cfg.services.pd = { type: "vllm_pd", container: "c", model: "pm", prefill: { node_pool: "gpu" }, decode: { node_pool: "gpu" } };
  cfg.services.r = { type: "ray", container: "ray" };
  cfg.compute.cluster.node_pools.gpu = { partition: "batch" };
  cfg.driver.benchmarks.b2 = { command: "true" };
  cfg.driver.benchmarks.b3 = { resumable: {} };
  delete cfg.otel;
  cfg.otel = { enabled: false };
  const v = check(cfg).config;
  const table: [string, unknown][] = [
    ["services.policy.port", 8000],
    ["services.policy.served_model_name", null],
    ["services.policy.tensor_parallel_size", 1],
    ["services.policy.pipeline_parallel_size", 1],
    ["services.policy.number_of_instances", 1],
    ["services.policy.trust_remote_code", false],
    ["services.policy.use_ray_serve", false],
    ["services.policy.extra_args", ""],
    ["services.policy.data_parallel_rpc_port", 13345],
    ["services.policy.node_pool", null],
    ["services.policy.placement", "cluster"],
    ["services.policy.health_check", { path: "/health", port: 8000, timeout_seconds: 60 }],
    ["services.policy.env", {}],
    ["services.policy.mounts", []],
    ["services.policy.pre_command", ""],
    ["services.pd.port", 8000],
    ["services.pd.server_per_node", false],
    ["services.pd.nixl_side_channel_port", 5600],
    ["services.pd.prefill_policy", "cache_aware"],
    ["services.pd.decode_policy", "cache_aware"],
    ["services.pd.intra_node_data_parallel_size", 1],
    ["services.pd.request_timeout_secs", 86400],
    ["services.pd.log_level", "error"],
    ["services.pd.kv_connector", "NixlConnector"],
    ["services.pd.kv_load_failure_policy", "fail"],
    ["services.pd.health_check.port", 8000],
    ["services.pd.prefill.port", 8001],
    ["services.pd.decode.port", 8002],
    ["services.pd.prefill.model", "pm"],
    ["services.pd.decode.container", "c"],
    ["services.pd.prefill.data_parallel_rpc_port", 13345],
    ["services.pd.decode.data_parallel_rpc_port", 13346],
    ["services.r.node_pools", []],
    ["services.r.port", 6379],
    ["services.r.resources", {}],
    ["services.r.num_cpus", null],
    ["services.r.num_gpus", null],
    ["services.r.extra_args", ""],
    ["services.r.health_check", undefined],
    ["compute.cluster.hostname", null],
    ["compute.cluster.walltime", null],
    ["compute.cluster.forward_env", []],
    ["compute.cluster.extra_args", {}],
    ["compute.cluster.container_runtime", "pyxis"],
    ["compute.cluster.node_pools.gpu.nodes", 1],
    ["compute.cluster.node_pools.gpu.ntasks_per_node", 1],
    ["compute.cluster.node_pools.gpu.gpus_per_node", null],
    ["compute.cluster.node_pools.gpu.extra_args", {}],
    ["driver.container", "python:3.12"],
    ["driver.gym_install", null],
    ["driver.policy_host", "localhost"],
    ["driver.policy_model_type", "openai_model"],
    ["driver.env", {}],
    ["driver.mounts", []],
    ["driver.benchmarks.b2.prepare", {}],
    ["driver.benchmarks.b2.command", "true"],
    ["driver.benchmarks.b2.resumable", false],
    ["driver.benchmarks.b3.resumable", { max_retries: 3, max_walltime: null }],
    ["otel.endpoint", null],
    ["otel.service_name", null],
    ["otel.token_env", "OTEL_TOKEN"],
    ["otel.binary", "otelcol-contrib"],
    ["otel.container", null],
    ["otel.component", "gym-vllm"],
    ["otel.gym_telemetry", true],
    ["otel.gym_span_groups", "default,verify"],
    ["otel.gym_logs", true],
    ["otel.gpu_metrics_port", 9400],
    ["otel.node_metrics_port", 9100],
    ["otel.scrape_interval_seconds", 15],
    ["otel.health_check_timeout_seconds", 300],
  ];
  test.each(table)("%s", (path, want) => {
    expect(get(v, path)).toEqual(want);
  });

  test("otel is enabled when the key is absent", () => {
    const c = baseConfig();
    delete c.otel;
    expect(check(c).config.otel.enabled).toBe(true);
  });

  test("gym_install repo default", () => {
    const c = baseConfig();
    c.driver.gym_install = { ref: "main" };
    expect(check(c).config.driver.gym_install).toEqual({ repo: "https://github.com/NVIDIA-NeMo/gym", ref: "main" });
  });

  test("a health_check without port gets the service port; policy keys are injected", () => {
    const c = baseConfig();
    c.services.policy.port = 9000;
    c.services.policy.served_model_name = "served";
    c.services.policy.health_check = { path: "/v1/models" };
    const v = check(c).config;
    expect(v.services.policy!.health_check).toEqual({ path: "/v1/models", port: 9000, timeout_seconds: 60 });
    expect(v.driver.benchmarks.b1!.run).toEqual({ num_repeats: 1, policy_base_url: "http://localhost:9000/v1", policy_model_name: "served", policy_api_key: "dummy" });
  });

  test("a ray policy gets nothing injected", () => {
    const c = baseConfig();
    c.services = { r: { type: "ray", container: "ray" } };
    c.driver.policy_model = "r";
    expect(check(c).config.driver.benchmarks.b1!.run).toEqual({ num_repeats: 1 });
  });
});
