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

// A field with a default is not `Optional`: validation fills defaults before it checks
// (Value.Default, then Check), so the derived type of a validated config has the field.

/** `T | null`, default null. */
function nullable<T extends TSchema>(t: T) {
  return Type.Union([t, Type.Null()], { default: null });
}

/** A field the user may leave out, filled with its default. */
function opt<T extends TSchema>(t: T, def: unknown) {
  return Type.Unsafe<Static<T>>({ ...t, default: def });
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
export type HealthCheck = Static<typeof HealthCheck>;

const common = {
  container: Type.Optional(Type.String()),
  placement: Type.Optional(Type.String()),
  health_check: Type.Optional(HealthCheck),
  env: EnvMap,
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
  resources: Type.Record(Type.String(), Type.Record(Type.String(), Type.Number()), { default: {} }),
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
  extra_args: ExtraArgs,
});

/** `compute.<name>` with `type: slurm`. */
export const SlurmCompute = strict({
  type: Type.Literal("slurm"),
  account: Type.String(),
  hostname: nullable(Type.String()),
  walltime: nullable(Type.String()),
  forward_env: opt(Type.Array(Type.String()), []),
  node_pools: Type.Record(Type.String(), Type.Unknown(), { default: {} }),
  extra_args: ExtraArgs,
  container_runtime: opt(Type.Enum(["pyxis", "none"]), "pyxis"),
});

/** `resumable` as a mapping. */
// Optional, unlike other defaulted fields: it is checked inside Benchmark's union (where TypeBox
// fills no defaults) before validation types it on its own with its defaults.
export const Resumable = strict({
  max_retries: Type.Optional(opt(Type.Integer({ minimum: 0 }), 3)),
  max_walltime: Type.Optional(nullable(Type.String())),
});

/** One benchmark of the driver. */
export const Benchmark = strict({
  prepare: Type.Record(Type.String(), Type.Unknown(), { default: {} }),
  run: Type.Record(Type.String(), Type.Unknown(), { default: {} }),
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
  env: EnvMap,
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
    gpu_metrics_port: Type.Union([Type.Integer(), Type.Null()], { default: 9400 }),
    node_metrics_port: Type.Union([Type.Integer(), Type.Null()], { default: 9100 }),
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

// ---- validated shapes: derived from the schemas (after defaults) ----------------------------
// Entries checked one at a time (services' tiers, node pools, benchmarks) are typed by their own
// schema; validation sets `placement` (default: the compute entry) and every health check.

/** What validation adds to every service and tier. */
interface Placed {
  placement: string;
  health_check?: HealthCheck;
}

/** A validated `vllm` service (also the shape of a derived PD tier). */
export type VllmConfig = Static<typeof VllmService> & Placed;

/** A validated `vllm_pd` service (tiers already derived). */
export type VllmPdConfig = Omit<Static<typeof VllmPdService>, "prefill" | "decode"> & Placed & { prefill: VllmConfig; decode: VllmConfig };

/** A validated `ray` service. */
export type RayConfig = Static<typeof RayService> & Placed;

/** Any validated service. */
export type ServiceConfig = VllmConfig | VllmPdConfig | RayConfig;

/** Fields every validated service has. */
export type ServiceCommon = Pick<ServiceConfig, "container" | "placement" | "health_check" | "env" | "mounts" | "pre_command">;

/** A validated node pool. */
export type NodePoolConfig = Static<typeof NodePool>;

/** A validated Slurm compute entry. */
export type SlurmConfig = Omit<Static<typeof SlurmCompute>, "node_pools"> & { node_pools: Record<string, NodePoolConfig> };

/** A validated `resumable` mapping (its defaults filled). */
export type ResumableConfig = Required<Static<typeof Resumable>>;

/** A validated benchmark. */
export type BenchmarkConfig = Omit<Static<typeof Benchmark>, "resumable" | "shards"> & {
  resumable: boolean | ResumableConfig;
  /** Sharded collection over a job array (issue 20); absent = one job. Normalized to the mapping by validate. */
  shards?: ShardsConfig;
};

/** A validated `shards` value (a bare count becomes `{count, max_parallel: null}`). */
export type ShardsConfig = { count: number; max_parallel: number | null };

/** A validated driver. */
export type DriverConfig = Omit<Static<typeof Driver>, "benchmarks"> & { benchmarks: Record<string, BenchmarkConfig> };

/** Validated `otel`. */
export type OtelConfig = Static<typeof Otel>;

/** Validated `job`. */
export type JobConfig = Static<typeof Job>;

/** A validated submit config (what `--resolve-only` prints and `resolved-config.yaml` holds). */
export interface SubmitConfig {
  services: Record<string, ServiceConfig>;
  compute: Record<string, SlurmConfig>;
  driver: DriverConfig;
  job: JobConfig;
  otel: OtelConfig;
}
