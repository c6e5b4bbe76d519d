/**
 * Every environment variable gym reads, read in one place and typed.
 * Other modules import from here instead of touching `process.env`, so the set of
 * knobs a user can turn is visible at a glance.
 */
import { homedir } from "node:os";

/** A snapshot of the environment variables gym understands. */
export interface GymEnv {
  /** Serialized merged config handed to a child server (D3). */
  configDict: string | undefined;
  /** The child's own top-level key in the merged config (D3). */
  configPath: string | undefined;
  /** Extra search roots, comma separated (spec cli-config §5). */
  extraRoots: string | undefined;
  /** Upper bound of attempts for one rollout (runtime §11). */
  maxRolloutAttempts: number | undefined;
  /** Set by the test preload; switches off colours and TTY progress. */
  testing: boolean;
  /** `XDG_CACHE_HOME`, where the binary extracts its embedded assets. */
  xdgCacheHome: string | undefined;
  /** `NO_COLOR` convention. */
  noColor: boolean;
  /** Debug logging forced on from the environment. */
  debug: boolean;
  /** `GYM_TIMING=1`: print stage timing marks of the config pipeline on stderr (profiling aid). */
  timing: boolean;
  /** `GYM_JOB_END_TIME`: allocation end, epoch seconds, exported by submit's batch script (D30 addendum). */
  jobEndTime: number | undefined;
  /** `BUN_CONFIG_MAX_HTTP_REQUESTS` as set at process start (D16: Bun's outbound fetch cap, 256 when unset). */
  bunMaxHttpRequests: number | undefined;
  /** `NEMO_GYM_OTEL_ENABLED=1` (submit's gym telemetry) turns on the driver's OTLP metrics. */
  otelEnabled: boolean;
  /** OTLP/HTTP metrics endpoint: `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/metrics`. */
  otlpMetricsEndpoint: string | undefined;
  /** `NEMO_GYM_OTEL_RUN_ID`: the submit job id, a resource attribute of exported metrics. */
  otelRunId: string | undefined;
  /** `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, as given (the exporter decides; OTel's default is http/protobuf). */
  otlpMetricsProtocol: string | undefined;
  /** `OTEL_METRIC_EXPORT_INTERVAL` (ms, positive integer): how often OTLP metrics are pushed; gym's default is 10 s. */
  otelMetricExportIntervalMs: number | undefined;
  /** `HF_ENDPOINT`: the Hugging Face Hub base URL (dataset upload/download; the `hf_endpoint` key wins). */
  hfEndpoint: string | undefined;
  /** `GYM_OFFLINE=1` (or the global `--offline` flag): never reach a non-loopback host (issue 20 §3). */
  offline: boolean;
  /** `GYM_OFFLINE_ALLOW`: comma-separated hosts offline mode may still reach (a cluster-internal vLLM or mirror). */
  offlineAllow: string | undefined;
  /** `PATH`: where code-running verifiers look for the host python3 (D27). */
  path: string | undefined;
  /** `GYM_SESSION_SECRET`: the per-run key session cookies are signed with, set by the supervisor for its children (D39). */
  sessionSecret: string | undefined;
  /** `GYM_UNIX_SOCKETS=0`: gym's own servers talk over TCP only (no Unix-domain sockets between them; runtime/http/unix-socket.ts). */
  unixSockets: boolean;
  /** `GYM_SOCKET_DIR`: where gym's servers put their Unix-domain sockets (default `<tmpdir>/gym-sock-<uid>`). */
  socketDir: string | undefined;
}

function intOrUndefined(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  return Number.isInteger(n) ? n : undefined;
}

/** Read the gym-relevant variables from an environment map (defaults to the process env). */
export function readEnv(source: Record<string, string | undefined> = process.env): GymEnv {
  return {
    configDict: source.NEMO_GYM_CONFIG_DICT,
    path: source.PATH,
    configPath: source.NEMO_GYM_CONFIG_PATH,
    extraRoots: source.NEMO_GYM_EXTRA_ROOTS,
    maxRolloutAttempts: intOrUndefined(source.NEMO_GYM_MAX_ROLLOUT_ATTEMPTS),
    testing: source.GYM_TESTING === "1",
    xdgCacheHome: source.XDG_CACHE_HOME,
    noColor: source.NO_COLOR !== undefined && source.NO_COLOR !== "",
    debug: source.GYM_DEBUG === "1",
    timing: source.GYM_TIMING === "1",
    jobEndTime: source.GYM_JOB_END_TIME && Number.isFinite(Number(source.GYM_JOB_END_TIME)) ? Number(source.GYM_JOB_END_TIME) : undefined,
    bunMaxHttpRequests: intOrUndefined(source.BUN_CONFIG_MAX_HTTP_REQUESTS),
    otelEnabled: source.NEMO_GYM_OTEL_ENABLED === "1" || source.NEMO_GYM_OTEL_ENABLED === "true",
    otlpMetricsEndpoint:
      source.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT || (source.OTEL_EXPORTER_OTLP_ENDPOINT ? `${source.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, "")}/v1/metrics` : undefined),
    otelRunId: source.NEMO_GYM_OTEL_RUN_ID || undefined,
    otlpMetricsProtocol: source.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL || source.OTEL_EXPORTER_OTLP_PROTOCOL || undefined,
    otelMetricExportIntervalMs: (() => {
      const n = intOrUndefined(source.OTEL_METRIC_EXPORT_INTERVAL);
      return n !== undefined && n > 0 ? n : undefined;
    })(),
    hfEndpoint: source.HF_ENDPOINT || undefined,
    offline: /^(1|true|yes)$/i.test(source.GYM_OFFLINE ?? ""),
    offlineAllow: source.GYM_OFFLINE_ALLOW || undefined,
    sessionSecret: source.GYM_SESSION_SECRET || undefined,
    unixSockets: !/^(0|false|no)$/i.test(source.GYM_UNIX_SOCKETS ?? ""),
    socketDir: source.GYM_SOCKET_DIR || undefined,
  };
}

/** The process environment as a plain copy, for handing to child processes. */
export function processEnvCopy(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}

/** Look up one variable by name (for `${oc.env:VAR}` interpolation and `host:VAR` submit values). */
export function envVar(name: string): string | undefined {
  return process.env[name];
}

/** The user's home directory for `~` expansion: `$HOME` as Python's expanduser reads it, else the OS record. */
export function homeDir(): string {
  const h = process.env.HOME;
  return h !== undefined && h !== "" ? h : homedir();
}

/** Set or clear one variable for the rest of this process (used to fold `--search-dir`, spec §5.2). */
export function setEnvVar(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  generation++;
}

let generation = 0;

/** Bumped by every `setEnvVar`: readers that cache a variable re-read it when this changes. */
export function envGeneration(): number {
  return generation;
}

/** Turn offline mode on for this process and every child it starts (the global `--offline` flag). */
export function enableOffline(): void {
  process.env.GYM_OFFLINE = "1";
}
