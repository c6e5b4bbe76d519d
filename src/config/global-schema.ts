/**
 * Types of the documented top-level keys (cli-config §7.2), checked on their resolved values so
 * a typo such as `dry_run: "yes please"` fails at parse time with the key and its file position
 * instead of surfacing later as odd behaviour. Unknown top-level keys are allowed (servers and
 * user values live there too). Keys with dedicated messages (results_dir, the timeouts,
 * allow_openai_version_skew, network keys) are checked where they are applied.
 */
import Type, { type TSchema } from "typebox";
import { ConfigError, ConfigErrors, type SourceLocation } from "../errors.ts";
import { check } from "./validate.ts";

const Bool = Type.Boolean();
const OptStr = Type.Union([Type.String(), Type.Null()]);
const Port = Type.Integer({ minimum: 1, maximum: 65535 });
// The head server may ask for an ephemeral port (0): tests and parallel runs use it.
const HeadPort = Type.Integer({ minimum: 0, maximum: 65535 });
const NonNegInt = Type.Integer({ minimum: 0 });
const OptNonNegInt = Type.Union([NonNegInt, Type.Null()]);
const Seconds = Type.Number({ minimum: 0 });

/** Schema of each documented global key. */
export const GLOBAL_KEY_SCHEMAS: Record<string, TSchema> = {
  use_absolute_ip: Bool,
  default_host: Type.String(),
  head_server: Type.Union([Type.Object({ host: Type.Optional(OptStr), port: Type.Optional(Type.Union([HeadPort, Type.Null()])) }), Type.Null()]),
  port_range_low: Port,
  port_range_high: Port,
  disallowed_ports: Type.Array(Port),
  error_on_almost_servers: Bool,
  dry_run: Bool,
  skip_venv_if_present: Bool,
  uv_pip_set_python: Bool,
  pip_install_verbose: Bool,
  verbose: Bool,
  python_executable: Type.String({ minLength: 1 }),
  request_retry_budget_seconds: Seconds,
  request_timeout_seconds: Seconds,
  uv_lock_timeout_seconds: Type.Union([NonNegInt, Type.Null()]),
  uvicorn_timeout_worker_healthcheck: NonNegInt,
  uvicorn_logging_show_200_ok: Bool,
  global_aiohttp_intended_concurrency: OptNonNegInt,
  global_aiohttp_intended_concurrency_per_host: OptNonNegInt,
  global_aiohttp_client_request_debug: Bool,
  global_aiohttp_tcp_keepalive_idle_seconds: NonNegInt,
  global_aiohttp_tcp_keepalive_interval_seconds: NonNegInt,
  global_aiohttp_tcp_keepalive_probes: NonNegInt,
  profiling_enabled: Bool,
  profiling_results_dirpath: OptStr,
  nemo_gym_log_dir: OptStr,
  upload_rollouts: Bool,
  upload_rollouts_to_wandb: Bool,
  observability_enabled: Bool,
  disable_aggregation: Bool,
  retain_results_in_memory: Bool,
  max_resident_rollout_tasks: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
};

function valueAt(value: unknown, path: (string | number)[]): unknown {
  let cur = value;
  for (const k of path) cur = cur !== null && typeof cur === "object" ? (cur as Record<string, unknown>)[String(k)] : undefined;
  return cur;
}

/** Check every documented global key present in the config; all problems are reported at once. */
export function checkGlobalKeys(
  has: (key: string) => boolean,
  read: (key: string) => unknown,
  locate: (key: string) => SourceLocation | undefined,
): void {
  const errors: ConfigError[] = [];
  for (const [key, schema] of Object.entries(GLOBAL_KEY_SCHEMAS)) {
    if (!has(key)) continue;
    const value = read(key);
    // A union reports one problem per branch; the deepest one is what the user got wrong.
    const problems = check(schema, value).sort((a, b) => b.path.length - a.path.length);
    const p = problems[0];
    if (p === undefined) continue;
    const at = [key, ...p.path].join(".");
    errors.push(new ConfigError(`${at}: ${p.message}, got ${JSON.stringify(valueAt(value, p.path))}`, { key: at, location: locate(key) }));
  }
  const low = has("port_range_low") ? read("port_range_low") : 10001;
  const high = has("port_range_high") ? read("port_range_high") : 20000;
  if (errors.length === 0 && typeof low === "number" && typeof high === "number" && low > high) {
    errors.push(new ConfigError(`port_range_low (${low}) is above port_range_high (${high})`, { key: "port_range_low", location: locate("port_range_low") ?? locate("port_range_high") }));
  }
  if (has("profiling_enabled") && read("profiling_enabled") === true) {
    const dir = has("profiling_results_dirpath") ? read("profiling_results_dirpath") : undefined;
    if (typeof dir !== "string" || dir === "") {
      errors.push(
        new ConfigError("profiling_enabled=true requires profiling_results_dirpath (the directory that receives one <server>.log per server).", {
          key: "profiling_results_dirpath",
          location: locate("profiling_enabled"),
        }),
      );
    }
  }
  if (errors.length === 1) throw errors[0]!;
  if (errors.length > 1) throw new ConfigErrors(`${errors.length} global config keys have invalid values:`, errors, "fix each value at the position shown");
}
