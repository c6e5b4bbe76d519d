/** Reserved top-level keys (cli-config §7.1): never treated as server instances. */

/** Upstream's reserved keys [CODE]. */
const UPSTREAM_RESERVED = [
  "config_paths", "entrypoint", "default_host", "head_server", "disallowed_ports", "head_server_deps", "python_version",
  "pip_install_verbose", "use_absolute_ip", "uv_pip_set_python", "skip_venv_if_present", "hf_token", "ray_head_node_address",
  "port_range_low", "port_range_high", "dry_run", "model_endpoint_readiness_timeout_seconds", "allow_openai_version_skew",
  "uv_cache_dir", "uv_venv_dir", "results_dir", "cache_dir", "_inherit_from", "_copy", "nemo_gym_log_dir", "verbose", "json",
  "query", "observability_enabled", "model_call_capture_dir", "token_id_capture", "component_name", "skip_verification",
  "skip_verification_reward",
];

/** Spec default: the [SEED]-only globals of §7.2 and gym-only keys are reserved too. */
const GYM_RESERVED = [
  "uv_lock_timeout_seconds", "server_spinup_timeout_seconds", "python_executable", "request_retry_budget_seconds",
  "request_timeout_seconds", "request_liveness_timeout_seconds", "uvicorn_timeout_worker_healthcheck", "uvicorn_logging_show_200_ok", "uvicorn_proxy_headers",
  "uvicorn_forwarded_allow_ips", "global_aiohttp_connector_limit", "global_aiohttp_connector_limit_per_host",
  "global_aiohttp_intended_concurrency", "global_aiohttp_intended_concurrency_per_host", "global_aiohttp_client_request_debug",
  "global_aiohttp_tcp_keepalive_idle_seconds", "global_aiohttp_tcp_keepalive_interval_seconds", "global_aiohttp_tcp_keepalive_probes",
  "profiling_enabled", "profiling_results_dirpath", "wandb_project", "wandb_name", "wandb_api_key", "mlflow_tracking_uri",
  "mlflow_experiment_name", "mlflow_run_name", "mlflow_tracking_token", "upload_rollouts", "upload_rollouts_to_wandb",
  "max_resident_rollout_tasks", "retain_results_in_memory", "disable_aggregation",
  "policy_base_url", "policy_api_key", "policy_model_name",
  // Command keys of the dataset commands (gym dataset upload/download/rm).
  "hf_endpoint", "resource_config_path", "yes",
];

/** Every reserved top-level key. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([...UPSTREAM_RESERVED, ...GYM_RESERVED]);
