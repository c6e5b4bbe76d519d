/**
 * Types of the documented top-level keys (cli-config §7.2), checked on their resolved values so
 * a typo such as `dry_run: "yes please"` fails at parse time with the key and its file position
 * instead of surfacing later as odd behaviour. Unknown top-level keys are allowed (servers and
 * user values live there too). Keys with dedicated messages (results_dir, the timeouts,
 * allow_openai_version_skew, network keys) are checked where they are applied.
 */
import type { TSchema } from "typebox";
import { ConfigError, ConfigErrors, type SourceLocation } from "../errors.ts";
import { check } from "./validate.ts";

type TypeBuilder = typeof import("typebox").default;
/** Builds one key's schema; run only when that key is present, so a config without such keys never loads TypeBox. */
type SchemaOf = (T: TypeBuilder) => TSchema;

const Bool: SchemaOf = (T) => T.Boolean();
const Str: SchemaOf = (T) => T.String();
const OptStr: SchemaOf = (T) => T.Union([T.String(), T.Null()]);
const Port: SchemaOf = (T) => T.Integer({ minimum: 1, maximum: 65535 });
// The head server may ask for an ephemeral port (0): tests and parallel runs use it.
const HeadPort: SchemaOf = (T) => T.Integer({ minimum: 0, maximum: 65535 });
const NonNegInt: SchemaOf = (T) => T.Integer({ minimum: 0 });
const OptNonNegInt: SchemaOf = (T) => T.Union([NonNegInt(T), T.Null()]);
const Seconds: SchemaOf = (T) => T.Number({ minimum: 0 });

/** Schema (builder) of each documented global key. */
export const GLOBAL_KEY_SCHEMAS: Record<string, SchemaOf> = {
  use_absolute_ip: Bool,
  default_host: Str,
  head_server: (T) => T.Union([T.Object({ host: T.Optional(OptStr(T)), port: T.Optional(T.Union([HeadPort(T), T.Null()])) }), T.Null()]),
  port_range_low: Port,
  port_range_high: Port,
  disallowed_ports: (T) => T.Array(Port(T)),
  error_on_almost_servers: Bool,
  dry_run: Bool,
  skip_venv_if_present: Bool,
  uv_pip_set_python: Bool,
  pip_install_verbose: Bool,
  verbose: Bool,
  python_executable: (T) => T.String({ minLength: 1 }),
  request_retry_budget_seconds: Seconds,
  request_timeout_seconds: Seconds,
  request_liveness_timeout_seconds: Seconds,
  uv_lock_timeout_seconds: (T) => T.Union([NonNegInt(T), T.Null()]),
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
  max_resident_rollout_tasks: (T) => T.Union([T.Integer({ minimum: 1 }), T.Null()]),
};

const built = new Map<string, TSchema>();

/** The TypeBox schema of a documented global key (built, and TypeBox loaded, on first use). */
export function globalKeySchema(key: string): TSchema | undefined {
  const of = GLOBAL_KEY_SCHEMAS[key];
  if (!of) return undefined;
  let schema = built.get(key);
  if (!schema) {
    schema = of((require("typebox") as typeof import("typebox")).default);
    built.set(key, schema);
  }
  return schema;
}

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
  for (const key of Object.keys(GLOBAL_KEY_SCHEMAS)) {
    if (!has(key)) continue;
    const schema = globalKeySchema(key)!;
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
