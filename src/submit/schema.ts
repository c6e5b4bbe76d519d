/**
 * The strict submit-config schema (spec submit.md §3). Every object rejects unknown keys; every
 * default is the seed's. Services and compute entries are discriminated by `type` and checked one
 * at a time (validate.ts) so error paths carry the tag (`services.policy.vllm_pd.decode`).
 */
import Type, { type Static, type TSchema, type TProperties } from "typebox";

/** A strict object: unknown keys are errors ("Extra inputs are not permitted"). */
function strict<P extends TProperties>(props: P, opts: { default?: unknown } = {}) {
  return Type.Object(props, { additionalProperties: false, ...opts });
}

/** `T | null`, default null. */
function nullable<T extends TSchema>(t: T) {
  return Type.Optional(Type.Union([t, Type.Null()], { default: null }));
}

/** An optional field with a default. */
function opt<T extends TSchema>(t: T, def: unknown) {
  return Type.Optional(Type.Unsafe<Static<T>>({ ...t, default: def }));
}

/** `env` map: name → prefixed value (`lit:`, `host:`, `runtime:`; checked in env-values.ts). */
export const EnvMap = Type.Record(Type.String(), Type.String(), { default: {} });

/** Health check of a service. */
export const HealthCheck = strict({
  path: opt(Type.String(), "/health"),
  port: nullable(Type.Integer()),
  timeout_seconds: opt(Type.Integer(), 60),
});
/** Health check of a service. */
export type HealthCheck = { path: string; port: number | null; timeout_seconds: number };

const common = {
  container: Type.Optional(Type.String()),
  placement: Type.Optional(Type.String()),
  health_check: Type.Optional(HealthCheck),
  env: Type.Optional(EnvMap),
  mounts: opt(Type.Array(Type.String()), []),
  pre_command: opt(Type.String(), ""),
};

const vllmFields = {
  model: Type.String(),
  port: opt(Type.Integer(), 8000),
  served_model_name: nullable(Type.String()),
  tensor_parallel_size: opt(Type.Integer({ minimum: 1 }), 1),
  pipeline_parallel_size: opt(Type.Integer({ minimum: 1 }), 1),
  number_of_instances: opt(Type.Integer(), 1),
  trust_remote_code: opt(Type.Boolean(), false),
  use_ray_serve: opt(Type.Boolean(), false),
  extra_args: opt(Type.String(), ""),
  data_parallel_rpc_port: opt(Type.Integer(), 13345),
};

/** `type: vllm`. */
export const VllmService = strict({
  type: Type.Literal("vllm"),
  ...common,
  node_pool: nullable(Type.String()),
  ...vllmFields,
});

/** A prefill or decode tier inside `vllm_pd` (type implied; container/model inherited). */
export const VllmTier = strict({
  type: Type.Optional(Type.Literal("vllm")),
  ...common,
  node_pool: nullable(Type.String()),
  ...vllmFields,
  model: Type.Optional(Type.String()),
});

/** `type: vllm_pd`: prefill tier, decode tier and a router. */
export const VllmPdService = strict({
  type: Type.Literal("vllm_pd"),
  ...common,
  node_pool: nullable(Type.String()),
  model: Type.String(),
  served_model_name: nullable(Type.String()),
  port: opt(Type.Integer(), 8000),
  prefill: Type.Record(Type.String(), Type.Unknown()),
  decode: Type.Record(Type.String(), Type.Unknown()),
  server_per_node: opt(Type.Boolean(), false),
  nixl_side_channel_port: opt(Type.Integer(), 5600),
  prefill_policy: opt(Type.String(), "cache_aware"),
  decode_policy: opt(Type.String(), "cache_aware"),
  intra_node_data_parallel_size: opt(Type.Integer({ minimum: 1 }), 1),
  request_timeout_secs: opt(Type.Integer(), 86400),
  log_level: opt(Type.String(), "error"),
  kv_connector: opt(Type.String(), "NixlConnector"),
  kv_load_failure_policy: opt(Type.String(), "fail"),
});

/** `type: ray`: a Ray cluster spanning node pools (no `node_pool`). */
export const RayService = strict({
  type: Type.Literal("ray"),
  ...common,
  node_pools: opt(Type.Array(Type.String()), []),
  port: opt(Type.Integer(), 6379),
  resources: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Number()), { default: {} })),
  num_cpus: nullable(Type.Number()),
  num_gpus: nullable(Type.Number()),
  extra_args: opt(Type.String(), ""),
});

const ExtraArgs = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), { default: {} });

/** A node pool of the Slurm compute entry. */
export const NodePool = strict({
  partition: Type.String(),
  nodes: opt(Type.Integer({ minimum: 0 }), 1),
  ntasks_per_node: opt(Type.Integer({ minimum: 1 }), 1),
  gpus_per_node: nullable(Type.Integer({ minimum: 0 })),
  extra_args: Type.Optional(ExtraArgs),
});

/** `compute.<name>` with `type: slurm`. */
export const SlurmCompute = strict({
  type: Type.Literal("slurm"),
  account: Type.String(),
  hostname: nullable(Type.String()),
  walltime: nullable(Type.String()),
  forward_env: opt(Type.Array(Type.String()), []),
  node_pools: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { default: {} })),
  extra_args: Type.Optional(ExtraArgs),
  container_runtime: opt(Type.Enum(["pyxis", "none"]), "pyxis"),
});

/** `resumable` as a mapping. */
export const Resumable = strict({
  max_retries: opt(Type.Integer({ minimum: 0 }), 3),
  max_walltime: nullable(Type.String()),
});

/** One benchmark of the driver. */
export const Benchmark = strict({
  prepare: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { default: {} })),
  run: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { default: {} })),
  command: nullable(Type.String()),
  resumable: opt(Type.Union([Type.Boolean(), Resumable]), false),
  shards: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Unknown()])),
});

/** `shards` as a mapping (issue 20): array size and the `%` throttle of `--array`. */
export const Shards = strict({
  count: Type.Integer({ minimum: 1 }),
  max_parallel: nullable(Type.Integer({ minimum: 1 })),
});

/** `driver.gym_install`. */
export const GymInstall = strict({
  repo: opt(Type.String(), "https://github.com/NVIDIA-NeMo/gym"),
  ref: Type.String(),
});

/** `driver`. */
export const Driver = strict({
  container: opt(Type.String(), "python:3.12"),
  gym_install: nullable(GymInstall),
  policy_model: nullable(Type.String()),
  policy_host: opt(Type.String(), "localhost"),
  policy_model_type: opt(Type.String(), "openai_model"),
  benchmarks: Type.Record(Type.String(), Type.Unknown()),
  env: Type.Optional(EnvMap),
  mounts: opt(Type.Array(Type.String()), []),
});

/** `job`. */
export const Job = strict({ output_path: Type.String() });

/** `otel` (collector on by default). */
export const Otel = strict(
  {
    enabled: opt(Type.Boolean(), true),
    endpoint: nullable(Type.String()),
    service_name: nullable(Type.String()),
    token_env: opt(Type.String(), "OTEL_TOKEN"),
    binary: opt(Type.String(), "otelcol-contrib"),
    container: nullable(Type.String()),
    component: opt(Type.String(), "gym-vllm"),
    gym_telemetry: opt(Type.Boolean(), true),
    gym_span_groups: opt(Type.String(), "default,verify"),
    gym_logs: opt(Type.Boolean(), true),
    gpu_metrics_port: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { default: 9400 })),
    node_metrics_port: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { default: 9100 })),
    scrape_interval_seconds: opt(Type.Integer({ minimum: 1 }), 15),
    health_check_timeout_seconds: opt(Type.Integer({ minimum: 1 }), 300),
  },
  { default: {} },
);

/** The top level; services/compute/benchmarks/pools are checked entry by entry. */
export const SubmitTop = strict({
  services: Type.Record(Type.String(), Type.Unknown()),
  compute: Type.Record(Type.String(), Type.Unknown()),
  driver: Type.Record(Type.String(), Type.Unknown()),
  job: Type.Record(Type.String(), Type.Unknown()),
  otel: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

/** Names of the service types (the discriminator values). */
export const SERVICE_TYPES = ["vllm", "vllm_pd", "ray"] as const;

// ---- validated shapes (after defaults) -------------------------------------------------------

/** Fields every validated service has. */
export interface ServiceCommon {
  container?: string;
  placement: string;
  health_check?: HealthCheck;
  env: Record<string, string>;
  mounts: string[];
  pre_command: string;
}

/** A validated `vllm` service (also the shape of a derived PD tier). */
export interface VllmConfig extends ServiceCommon {
  type: "vllm";
  node_pool: string | null;
  model: string;
  port: number;
  served_model_name: string | null;
  tensor_parallel_size: number;
  pipeline_parallel_size: number;
  number_of_instances: number;
  trust_remote_code: boolean;
  use_ray_serve: boolean;
  extra_args: string;
  data_parallel_rpc_port: number;
}

/** A validated `vllm_pd` service (tiers already derived). */
export interface VllmPdConfig extends ServiceCommon {
  type: "vllm_pd";
  node_pool: string | null;
  model: string;
  served_model_name: string | null;
  port: number;
  prefill: VllmConfig;
  decode: VllmConfig;
  server_per_node: boolean;
  nixl_side_channel_port: number;
  prefill_policy: string;
  decode_policy: string;
  intra_node_data_parallel_size: number;
  request_timeout_secs: number;
  log_level: string;
  kv_connector: string;
  kv_load_failure_policy: string;
}

/** A validated `ray` service. */
export interface RayConfig extends ServiceCommon {
  type: "ray";
  node_pools: string[];
  port: number;
  resources: Record<string, Record<string, number>>;
  num_cpus: number | null;
  num_gpus: number | null;
  extra_args: string;
}

/** Any validated service. */
export type ServiceConfig = VllmConfig | VllmPdConfig | RayConfig;

/** A validated node pool. */
export interface NodePoolConfig {
  partition: string;
  nodes: number;
  ntasks_per_node: number;
  gpus_per_node: number | null;
  extra_args: Record<string, string | number | boolean>;
}

/** A validated Slurm compute entry. */
export interface SlurmConfig {
  type: "slurm";
  account: string;
  hostname: string | null;
  walltime: string | null;
  forward_env: string[];
  node_pools: Record<string, NodePoolConfig>;
  extra_args: Record<string, string | number | boolean>;
  container_runtime: "pyxis" | "none";
}

/** A validated benchmark. */
export interface BenchmarkConfig {
  prepare: Record<string, unknown>;
  run: Record<string, unknown>;
  command: string | null;
  resumable: boolean | { max_retries: number; max_walltime: string | null };
  /** Sharded collection over a job array (issue 20); absent = one job. Normalized to the mapping by validate. */
  shards?: ShardsConfig;
}

/** A validated `shards` value. */
export interface ShardsConfig {
  count: number;
  max_parallel: number | null;
}

/** A validated driver. */
export interface DriverConfig {
  container: string;
  gym_install: { repo: string; ref: string } | null;
  policy_model: string | null;
  policy_host: string;
  policy_model_type: string;
  benchmarks: Record<string, BenchmarkConfig>;
  env: Record<string, string>;
  mounts: string[];
}

/** Validated `otel`. */
export type OtelConfig = {
  enabled: boolean;
  endpoint: string | null;
  service_name: string | null;
  token_env: string;
  binary: string;
  container: string | null;
  component: string;
  gym_telemetry: boolean;
  gym_span_groups: string;
  gym_logs: boolean;
  gpu_metrics_port: number | null;
  node_metrics_port: number | null;
  scrape_interval_seconds: number;
  health_check_timeout_seconds: number;
};

/** A validated submit config (what `--resolve-only` prints and `resolved-config.yaml` holds). */
export interface SubmitConfig {
  services: Record<string, ServiceConfig>;
  compute: Record<string, SlurmConfig>;
  driver: DriverConfig;
  job: { output_path: string };
  otel: OtelConfig;
}
