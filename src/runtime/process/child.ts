/**
 * The server-process side of the supervisor protocol (runtime.md §1.1, §4.3; D14, D16):
 * bind (a candidate port when the config leaves it unset), report the port over IPC, wait for the
 * final config, build the app, serve. SIGINT/SIGTERM stop with a 0.5 s grace; a dead parent (IPC
 * channel closed, or re-parented) ends the process so nothing is orphaned.
 */
import type { Server } from "bun";
import { readEnv } from "../../env.ts";
import { log } from "../../log.ts";
import { parseChildConfig, type ChildConfig } from "./child-config.ts";
import { createEntries, listen, originOf } from "../http/http.ts";
import { serveLocally } from "../http/local-dispatch.ts";
import type { ServerApp } from "../http/http-types.ts";
import { otlpProtocol, ServerTelemetry } from "../http/otlp-push.ts";
import { bindInRange, isAddressInUse, portRangeFromConfig } from "./ports.ts";
import { poolLimits, reportPoolLimits } from "../http/pool.ts";
import { Profiler, setActiveProfiler } from "./profiling.ts";
import { proxySettingsFromConfig } from "../http/proxy-headers.ts";
import { openFileLimits } from "../http/http-fd-budget.ts";
import { ConfigError, RuntimeError } from "../../errors.ts";
import { clearStaleSocket, serverSocketPath } from "../http/unix-socket.ts";

/** Messages between supervisor and child. */
export type ChildMessage = { type: "bound"; port: number } | { type: "serving" } | { type: "error"; message: string };
/** Messages from the supervisor to a child. */
export type ParentMessage = { type: "config"; yaml: string } | { type: "init"; yaml: string };

/** What the child entry passes in. */
export interface ChildServeOptions {
  instanceName: string;
  dictYaml: string;
  /** Build the app from the final config (the CLI looks the component up in the registry). */
  buildApp: (cfg: ChildConfig) => Promise<ServerApp>;
  /** Share the port with sibling workers (SO_REUSEPORT). */
  reusePort?: boolean;
  /** Called with the initial config before the final one arrives (e.g. to start loading the component's code). */
  prepare?: (cfg: ChildConfig) => void;
}

type Handler = (req: Request, via?: Server<undefined>) => Promise<Response>;

function send(msg: ChildMessage): void {
  if (process.send) process.send(msg);
}

/** Wait for the supervisor's final config (or use ours when not supervised). */
function finalConfig(initial: string): Promise<string> {
  if (!process.send) return Promise.resolve(initial);
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      const msg = m as ParentMessage;
      if (msg && msg.type === "config") {
        process.off("message", onMessage);
        resolve(msg.yaml);
      }
    };
    process.on("message", onMessage);
  });
}

/** The initial config of a child started with `--config-via-ipc` (config too large for the environment). */
export function receiveInitialConfig(): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!process.send) return reject(new Error("--config-via-ipc needs an IPC channel to the supervisor"));
    const onMessage = (m: unknown) => {
      const msg = m as ParentMessage;
      if (msg && msg.type === "init") {
        process.off("message", onMessage);
        resolve(msg.yaml);
      }
    };
    process.on("message", onMessage);
  });
}

/** Exit when the supervisor goes away without telling us (SIGKILL, crash). */
function watchParent(stop: (why: string) => void): void {
  process.on("disconnect", () => stop("supervisor disconnected"));
  const original = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== original) stop("supervisor exited");
  }, 1000);
  timer.unref();
}

/** Run one server process until it is told to stop; resolves with the exit code. */
export async function runChildServer(opts: ChildServeOptions): Promise<number> {
  const initial = parseChildConfig(opts.dictYaml, opts.instanceName);
  opts.prepare?.(initial);
  const proxy = proxySettingsFromConfig(initial.global);
  const host = String(initial.leaf.host || "127.0.0.1");
  const wanted = Number(initial.leaf.port);

  let ready: Handler | undefined;
  const { promise: handlerReady, resolve: setHandler } = Promise.withResolvers<Handler>();
  let server: Server<undefined> | undefined;
  // The same server also answers on a Unix-domain socket (gym's own processes call it there).
  let unixServer: Server<undefined> | undefined;
  // A Unix-socket caller is a loopback caller: it gets the peer a loopback TCP connection would have.
  const peer = (req: Request, via?: Server<undefined>) => (via !== undefined && via === unixServer ? "127.0.0.1" : (via ?? server)?.requestIP(req)?.address);
  // Requests that arrive before the final config wait for the app instead of failing.
  const entry = (req: Request, via: Server<undefined>) => (ready ? ready(req, via) : handlerReady.then((h) => h(req, via)));
  const bind = (port: number) => listen(entry, { host, port, reusePort: opts.reusePort });

  try {
    if (Number.isInteger(wanted) && wanted > 0) server = bind(wanted);
    else server = bindInRange(portRangeFromConfig(initial.global), bind).value;
  } catch (err) {
    const message = isAddressInUse(err)
      ? `port ${wanted} of server '${opts.instanceName}' on ${host} is already in use; free it or leave the port unset so gym picks one`
      : `server '${opts.instanceName}' could not bind ${host}: ${(err as Error).message}`;
    send({ type: "error", message });
    throw new RuntimeError(message, { cause: err });
  }
  const port = server.port ?? wanted;
  const socketPath = serverSocketPath(host, port, opts.reusePort === true);
  if (socketPath !== undefined) {
    clearStaleSocket(socketPath);
    try {
      // Bun 1.4 ignores server.timeout(req, s) on a Unix listener, so the 30 s body-idle guard of
      // http.ts does not cut a Unix caller that stalls mid-body; only this user's processes can
      // connect (the socket directory is 0700), and gym's pool writes each request whole.
      unixServer = listen(entry, { host, port, unix: socketPath });
    } catch (err) {
      // Not fatal: callers find no socket and use TCP.
      log.debug(`(${opts.instanceName}) no Unix socket at ${socketPath}: ${(err as Error).message}`);
    }
  }
  send({ type: "bound", port });

  let stopping = false;
  const { promise: stopped, resolve: stopDone } = Promise.withResolvers<number>();
  let app: ServerApp | undefined;
  let profiler: Profiler | undefined;
  let profileDir: string | undefined;
  let telemetry: ServerTelemetry | undefined;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.debug(`(${opts.instanceName}) stopping: ${why}`);
    const grace = Bun.sleep(500).then(() => Promise.all([unixServer?.stop(true), server?.stop(true)]));
    // The socket file goes first (Bun removes it on stop): new callers then use TCP until it closes too.
    await Promise.race([Promise.all([unixServer?.stop(false), server?.stop(false)]), grace]);
    try {
      await app?.close?.();
      await telemetry?.stop();
      if (profiler && profileDir) await profiler.dump(profileDir, opts.instanceName);
    } catch (err) {
      log.error(`(${opts.instanceName}) error while closing:`, err);
    }
    stopDone(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  watchParent((why) => void stop(why));

  // The supervisor may die (SIGKILL) before it sends the final config: the watchdog's stop() then
  // resolves `stopped`, and waiting for a config that can never come would leave an orphan behind.
  const finalYaml = await Promise.race([finalConfig(opts.dictYaml), stopped.then(() => null)]);
  if (finalYaml === null) return stopped;
  const cfg = parseChildConfig(finalYaml, opts.instanceName);
  cfg.leaf.port = port;
  // Server processes initialise telemetry themselves (§14): connection-pool metrics over OTLP when
  // observability or submit's gym telemetry is on and an endpoint is configured.
  const env = readEnv();
  if ((cfg.global.observability_enabled === true || env.otelEnabled) && env.otlpMetricsEndpoint) {
    telemetry = new ServerTelemetry(env.otlpMetricsEndpoint, { "nemo.gym.server.name": opts.instanceName, ...(env.otelRunId ? { "nemo.gym.run.id": env.otelRunId } : {}) }, env.otelMetricExportIntervalMs, otlpProtocol(env.otlpMetricsProtocol));
    telemetry.start();
  }
  try {
    app = await opts.buildApp(cfg);
  } catch (err) {
    send({ type: "error", message: `server '${opts.instanceName}' failed to start: ${(err as Error)?.message ?? String(err)}` });
    throw err;
  }
  const workers = Number(cfg.leaf.num_workers ?? 1);
  reportPoolLimits(cfg.global, poolLimits(cfg.global, workers > 1 ? workers : 1, opts.instanceName), opts.instanceName, openFileLimits()?.soft);
  const routes = [...app.routes];
  if (cfg.global.profiling_enabled === true) {
    if (/\s/.test(opts.instanceName)) {
      throw new ConfigError(`profiling: server name '${opts.instanceName}' contains whitespace; rename the server or turn profiling_enabled off`, { key: "profiling_enabled" });
    }
    profiler = new Profiler();
    setActiveProfiler(profiler);
    profileDir = String(cfg.global.profiling_results_dirpath ?? "profiling_results");
    const p = profiler;
    const dir = profileDir;
    routes.push({ method: "GET", path: "/stats", handler: async () => (await p.dump(dir, opts.instanceName), new Response("")) });
    log.info(`(${opts.instanceName}) profiling enabled; results go to ${dir}/${opts.instanceName}.log`);
  }
  const { handler, local } = createEntries({ ...app, routes }, {
    proxy,
    peerAddress: peer,
    // Bun ignores timeouts on a Unix listener (see above): no call for those requests.
    connectionTimeout: (req, s, via) => void (via === unixServer ? undefined : via.timeout(req, s)),
    origin: () => originOf(host, port),
    ambientRolloutId: cfg.global.observability_enabled === true, profile: profiler ? (n, fn) => profiler!.time(n, fn) : undefined });
  // uvicorn_logging_show_200_ok: uvicorn's access log line per request (off by default, as upstream).
  const accessLog = cfg.global.uvicorn_logging_show_200_ok === true;
  const served: Handler = accessLog
    ? async (req, via) => {
        const res = await handler(req, via);
        const u = new URL(req.url);
        log.info(`${peer(req, via) ?? "-"} - "${req.method} ${u.pathname}${u.search} HTTP/1.1" ${res.status}`);
        return res;
      }
    : handler;
  // Calls of this server to itself (simple_agent's /run → own /v1/responses) are served in process.
  serveLocally(originOf(host, port), accessLog
    ? async (req) => {
        const res = await local(req);
        log.info(`${host === "0.0.0.0" ? "127.0.0.1" : host} - "${req.method} ${req.target} HTTP/1.1" ${res.status}`);
        return res;
      }
    : local);
  ready = served;
  setHandler(served);
  send({ type: "serving" });
  return stopped;
}
