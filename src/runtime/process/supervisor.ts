/**
 * The supervisor behind `gym env start` (runtime.md §1.1, §4; D9, D13, D14, D16): head server,
 * one process per server instance, race-free ports, readiness, steady-state exit detection and
 * shutdown. It takes a ResolvedConfig and an `isBuiltin` predicate from the CLI glue, so runtime/
 * never imports components/.
 */
import { dirname, isAbsolute, resolve as resolvePath } from "node:path";
import { resolveAt } from "../../config/interpolate.ts";
import type { ResolvedConfig, ServerInstance, ServerType } from "../../config/types.ts";
import { ConfigError, RuntimeError } from "../../errors.ts";
import { log } from "../../log.ts";
import { redactSecrets } from "../../config/redact.ts";
import { maskUrlSecrets, maskUrlSecretsDeep } from "../../util/url-secrets.ts";
import { serializeConfig } from "./child-config.ts";
import { ChildProcess } from "./children.ts";
import { HeadServer, type ServerInstanceDisplay } from "./head.ts";
import { isAddressInUse, portRangeFromConfig, probeExternalPort } from "./ports.ts";
import { bunMaxHttpRequests, poolLimits } from "../http/pool.ts";
import { proxySettingsFromConfig } from "../http/proxy-headers.ts";
import { modelEndpoints, probeServer, waitForModelEndpoints } from "./readiness.ts";
import { defaultLogDir, logDirsToKeep, pruneLogDirs, ServerLog } from "./logs.ts";
import { builtinSpec, childEnv, ENV_VALUE_LIMIT, externalSpec, selfCommand } from "./spawn.ts";
import { Watchdog } from "./watchdog.ts";
import { watchLiveness } from "./liveness.ts";
import { stopChildren } from "./shutdown.ts";

/** Options of a supervisor. */
export interface SupervisorOptions {
  resolved: ResolvedConfig;
  /** True when (server type, implementation) is a built-in component. */
  isBuiltin: (serverType: ServerType, implementation: string) => boolean;
  /** Check the built-in components' leaves (components/preflight.ts); runs before anything starts. */
  checkConfigs?: (resolved: ResolvedConfig) => Promise<void>;
  /** Where status lines go (stderr by default). */
  out?: (line: string) => void;
  /** Override the command that re-runs gym (tests). */
  command?: string[];
  /** Override the log directory (default `nemo_gym_log_dir`, else a per-run temp dir). */
  logDir?: string;
  /** Echo server output on the terminal as `(name) line` (default true; logs are written either way). */
  echoServerOutput?: boolean;
  /**
   * When the head port is taken, listen on a free port instead of failing (with a warning). For
   * callers that hold the config themselves (serve-mode `gym eval run`): nobody needs to discover
   * their head server, and parallel runs on one node must not collide on 11000.
   */
  headPortFallback?: boolean;
}

/** One configured server instance and its processes. */
interface Managed {
  name: string;
  serverType: ServerType;
  implementation: string;
  dir: string | undefined;
  entrypoint: string | undefined;
  host: string;
  /** Port fixed by the config (undefined: chosen at start). */
  explicitPort: number | undefined;
  port: number | undefined;
  workers: number;
  builtin: boolean;
  maxHttpRequests: number;
  log: ServerLog;
  procs: ChildProcess[];
}

const EXTERNAL_RESPAWN_ROUNDS = 5;
const BIND_LOST = /address already in use|EADDRINUSE|Errno 98|only one usage of each socket address/i;

function read(dict: Record<string, unknown>, path: string[]): unknown {
  try {
    return resolveAt(dict, path);
  } catch {
    let cur: unknown = dict;
    for (const k of path) cur = cur && typeof cur === "object" ? (cur as Record<string, unknown>)[k] : undefined;
    return cur;
  }
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Starts, watches and stops every server of a config. */
export class Supervisor {
  readonly head = new HeadServer();
  readonly logDir: string;
  private readonly out: (line: string) => void;
  private readonly command: string[];
  private readonly managed: Managed[] = [];
  private readonly watchdog: Watchdog;
  private readonly dict: Record<string, unknown>;
  private stopping: Promise<void> | undefined;
  private published = false;
  private exitWatch = Promise.withResolvers<RuntimeError>();

  constructor(private readonly opts: SupervisorOptions) {
    this.dict = opts.resolved.dict;
    const out = opts.out ?? ((line: string) => process.stderr.write(`${line}\n`));
    // D39: status lines quote endpoint URLs (model readiness); credentials in them are masked.
    this.out = (line) => out(maskUrlSecrets(line));
    this.command = opts.command ?? selfCommand();
    this.watchdog = new Watchdog(this.command);
    const configured = opts.logDir ?? (typeof this.dict.nemo_gym_log_dir === "string" && this.dict.nemo_gym_log_dir !== "" ? this.dict.nemo_gym_log_dir : undefined);
    this.logDir = configured ? (isAbsolute(configured) ? configured : resolvePath(configured)) : defaultLogDir();
    // Default per-run dirs would pile up in /tmp forever: keep the newest `log_dirs_to_keep`.
    if (!configured) pruneLogDirs(dirname(this.logDir), logDirsToKeep(this.dict.log_dirs_to_keep));
  }

  /** The live config: after `start()` it holds every final port (build an in-process ServerClient from it). */
  get config(): Record<string, unknown> {
    return this.dict;
  }

  /** Every process started so far (tests check the process table with these). */
  get pids(): number[] {
    return [...this.managed.flatMap((m) => m.procs.map((p) => p.pid)), ...(this.watchdog.pid ? [this.watchdog.pid] : [])];
  }

  /** The instances as `/server_instances` shows them. */
  display(): ServerInstanceDisplay[] {
    return this.managed.map((m) => ({
      config_path: m.name,
      dir_path: m.dir ?? null,
      entrypoint: m.entrypoint ?? null,
      host: m.host,
      name: m.implementation,
      pid: m.procs[0]?.pid ?? null,
      port: m.port ?? 0,
      process_name: m.name,
      server_type: m.serverType,
      start_time: m.procs[0]?.startTime ?? null,
      status: null,
      uptime_seconds: null,
      url: urlOf(m.host, m.port ?? 0),
    }));
  }

  private plan(servers: ServerInstance[]): void {
    if (servers.length === 0) {
      throw new ConfigError(
        "No server instances are configured, so there is nothing to run. Pass one or more configs, e.g.:\n  gym env start --config resources_servers/<env>/configs/<env>.yaml --config responses_api_models/<model>/configs/<model>.yaml",
        { code: "E_NO_SERVERS" },
      );
    }
    servers.forEach((s, index) => {
      const at = (k: string) => read(this.dict, [s.name, s.serverType, s.implementation, k]);
      const builtin = this.opts.isBuiltin(s.serverType, s.implementation);
      const entrypoint = at("entrypoint");
      if (!builtin && (!s.dir || typeof entrypoint !== "string" || entrypoint === "")) {
        throw new ConfigError(
          `server '${s.name}': ${s.serverType}/${s.implementation} is not built in, and no directory with an entrypoint was found for it under the search roots`,
          { key: `${s.name}.${s.serverType}.${s.implementation}.entrypoint`, hint: "use a built-in implementation (`gym list`), or add the server directory with --search-dir" },
        );
      }
      const port = Number(at("port"));
      const workersRaw = Number(at("num_workers") ?? 1);
      const workers = Number.isInteger(workersRaw) && workersRaw > 1 ? workersRaw : 1;
      const limits = poolLimits(this.dict, workers, s.name);
      this.managed.push({
        name: s.name,
        serverType: s.serverType,
        implementation: s.implementation,
        dir: s.dir,
        entrypoint: typeof entrypoint === "string" ? entrypoint : undefined,
        host: String(at("host") || "127.0.0.1"),
        explicitPort: Number.isInteger(port) && port > 0 ? port : undefined,
        port: Number.isInteger(port) && port > 0 ? port : undefined,
        workers,
        builtin,
        maxHttpRequests: bunMaxHttpRequests(limits),
        log: new ServerLog(s.name, this.logDir, index, this.opts.echoServerOutput === false ? () => {} : this.out),
        procs: [],
      });
    });
  }

  private setPort(m: Managed, port: number): void {
    m.port = port;
    const leaf = ((this.dict[m.name] as Record<string, Record<string, Record<string, unknown>>>)[m.serverType]!)[m.implementation]!;
    leaf.port = port;
    const disallowed = Array.isArray(this.dict.disallowed_ports) ? (this.dict.disallowed_ports as number[]) : [];
    if (!disallowed.includes(port)) disallowed.push(port);
    this.dict.disallowed_ports = disallowed;
  }

  private spawnBuiltin(m: Managed, worker: number, yaml: string): ChildProcess {
    const env = childEnv({ configYaml: yaml, instance: m.name, maxHttpRequests: m.maxHttpRequests, dict: this.dict });
    const viaIpc = Buffer.byteLength(yaml) > ENV_VALUE_LIMIT;
    const child = new ChildProcess(m.name, worker, builtinSpec(env, m.workers > 1, viaIpc), m.log, false);
    if (viaIpc) child.sendInitialConfig(yaml);
    this.track(m, child);
    return child;
  }

  private spawnExternal(m: Managed, yaml: string): ChildProcess {
    const env = childEnv({ configYaml: yaml, instance: m.name, maxHttpRequests: m.maxHttpRequests, dict: this.dict });
    const python = typeof this.dict.python_executable === "string" && this.dict.python_executable !== "" ? this.dict.python_executable : "python3";
    const spec = externalSpec(m.name, m.dir!, m.entrypoint!, python, env);
    let child: ChildProcess;
    try {
      child = new ChildProcess(m.name, 0, spec, m.log, true);
    } catch (err) {
      const usesPython = m.entrypoint!.endsWith(".py");
      throw new ConfigError(`server '${m.name}': cannot run ${spec.argv[0]}: ${(err as Error).message}`, {
        key: usesPython ? "python_executable" : `${m.name}.${m.serverType}.${m.implementation}.entrypoint`,
        hint: usesPython ? `create ${m.dir}/.venv, or set python_executable to an interpreter that exists` : "make the entrypoint executable (chmod +x) with a valid #! line",
        cause: err,
      });
    }
    this.watchdog.watch(child.pid);
    this.track(m, child);
    return child;
  }

  private track(m: Managed, child: ChildProcess): void {
    m.procs.push(child);
    void child.done.then(() => {
      if (this.stopping || !m.procs.includes(child)) return;
      // Before publication, an external that lost the bind on a port we chose is respawned, not fatal.
      if (!this.published && !m.builtin && m.explicitPort === undefined && child.log.lastLines(40).some((l) => BIND_LOST.test(l))) return;
      const tail = child.log.lastLines(20);
      const detail = child.reportedError ? `\n${child.reportedError}` : "";
      this.exitWatch.resolve(
        new RuntimeError(
          `Process \`${m.name}\` finished unexpectedly! (${child.describeExit()})${detail}\n--- last lines of ${child.log.file} ---\n${tail.join("\n") || "(no output)"}`,
          { hint: `see the full log at ${child.log.file}` },
        ),
      );
    });
  }

  /** Rejects as soon as any server process exits on its own. */
  private async guard<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.exitWatch.promise.then((e) => Promise.reject(e))]);
  }

  /** Bring everything up; resolves when every server and model endpoint answers and the head is ready. */
  async start(): Promise<void> {
    const proxy = proxySettingsFromConfig(this.dict);
    this.plan(this.opts.resolved.servers);
    await this.opts.checkConfigs?.(this.opts.resolved);
    const spinup = Number(this.dict.server_spinup_timeout_seconds ?? 600);
    const deadline = spinup > 0 ? performance.now() + spinup * 1000 : Number.POSITIVE_INFINITY;

    const headCfg = (this.dict.head_server ?? {}) as Record<string, unknown>;
    const headHost = String(headCfg.host || "127.0.0.1");
    const headPort = Number(headCfg.port ?? 11000);
    try {
      let bound: number;
      try {
        bound = this.head.start({ host: headHost, port: headPort, proxy });
      } catch (err) {
        if (!(this.opts.headPortFallback && isAddressInUse(err))) throw err;
        bound = this.head.start({ host: headHost, port: 0, proxy });
        this.out(`warning: head port ${headPort} is in use (another gym?); this run's head server listens on ${bound} instead`);
      }
      this.dict.head_server = { ...headCfg, host: headHost, port: bound };
    } catch (err) {
      if (isAddressInUse(err)) {
        throw new RuntimeError(`the head server cannot listen on ${headHost}:${headPort}: the port is already in use (is another \`gym env start\` running?)`, {
          hint: "stop the other environment, or give this one its own head port: ++head_server.port=<free port> (clients then need the same head_server.port)",
          cause: err,
        });
      }
      throw err;
    }
    this.out(`Head server listening on ${urlOf(headHost, this.head.port!)}; server logs in ${this.logDir}`);

    try {
      await this.startProcesses(deadline);
    } catch (err) {
      await this.shutdown({ quiet: true });
      throw err;
    }
  }

  private async startProcesses(deadline: number): Promise<void> {
    const withDeadline = async <T>(p: Promise<T>, pending: () => Managed[]): Promise<T> => {
      if (!Number.isFinite(deadline)) return p;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(this.spinupError(pending())), Math.max(0, deadline - performance.now()));
      });
      try {
        return await Promise.race([p, expired]);
      } finally {
        clearTimeout(timer);
      }
    };

    const t0 = performance.now();
    const mark = (what: string) => log.debug(`startup: ${what} after ${(performance.now() - t0).toFixed(0)} ms`);
    // 1. Built-ins bind first (worker 0 of each), on their explicit port or a candidate they hold (D14).
    const builtins = this.managed.filter((m) => m.builtin);
    const prelim = serializeConfig(this.dict);
    const first = builtins.map((m) => this.spawnBuiltin(m, 0, prelim));
    mark("built-ins spawned");
    for (const c of first) {
      void c.bound.then(() => mark(`${c.name} bound`), () => {});
      void c.serving.then(() => mark(`${c.name} serving`), () => {});
    }
    const unbound = new Set(builtins);
    await withDeadline(
      this.guard(Promise.all(first.map((c, i) => c.bound.then((port) => (this.setPort(builtins[i]!, port), unbound.delete(builtins[i]!)))))),
      () => [...unbound],
    );
    mark("built-ins bound");
    // Extra workers join the port the first one holds (SO_REUSEPORT).
    const extra: ChildProcess[] = [];
    for (const m of builtins) {
      if (m.workers <= 1) continue;
      const yaml = serializeConfig(this.dict);
      for (let w = 1; w < m.workers; w++) extra.push(this.spawnBuiltin(m, w, yaml));
    }
    await withDeadline(this.guard(Promise.all(extra.map((c) => c.bound))), () => builtins.filter((m) => m.procs.length < m.workers));

    // 2. External servers get the final config; a lost bind picks another port and respawns them all.
    const externals = this.managed.filter((m) => !m.builtin);
    if (externals.length > 0) await this.startExternals(externals, deadline, withDeadline);

    // 3. Publish: every port is final now.
    const finalYaml = serializeConfig(this.dict);
    this.published = true;
    // D39: the head is readable by anyone on the machine; it serves the config with secrets masked
    // (children get the real one through their environment and sendConfig, never from the head).
    this.head.publish(serializeConfig(maskUrlSecretsDeep(redactSecrets(this.dict))), this.display());
    for (const m of builtins) for (const c of m.procs) c.sendConfig(finalYaml);

    mark("config published");
    // 4. Readiness step 1: every server answers HTTP at `/`.
    await withDeadline(this.guard(this.waitAnswering(this.managed, deadline)), () => this.managed.filter((m) => !this.answered.has(m)));
    mark("servers answering");

    // 5. Readiness step 2: upstream model endpoints.
    const endpoints = modelEndpoints(this.dict, this.managed.map((m) => m.name));
    const modelTimeout = Number(this.dict.model_endpoint_readiness_timeout_seconds ?? 600);
    await this.guard(waitForModelEndpoints(endpoints, modelTimeout, { info: this.out, warn: this.out }));

    mark("ready");
    this.head.markReady();
    this.out(`All ${this.managed.length} / ${this.managed.length} servers ready! Polling every 60s`);
    for (const m of this.managed) this.out(`  - ${m.name} (${m.serverType}/${m.implementation}${m.builtin ? "" : ", external"}): ${urlOf(m.host, m.port!)}  pid ${m.procs.map((p) => p.pid).join(",")}`);
    // A stopped or hung server never exits: probe each one so it is named within a bounded time.
    this.stopLiveness = watchLiveness(
      this.managed.map((m) => ({ name: m.name, url: urlOf(m.host, m.port!), pids: m.procs.map((p) => p.pid) })),
      { stallSeconds: Number(this.dict.server_liveness_timeout_seconds ?? 30), report: (line) => this.out(`WARNING: ${line}`) },
    );
  }

  private stopLiveness: () => void = () => {};

  private readonly answered = new Set<Managed>();

  private async waitAnswering(targets: Managed[], deadline: number): Promise<void> {
    let pause = 20;
    let lastReport = performance.now();
    for (;;) {
      const pending = targets.filter((m) => !this.answered.has(m));
      if (pending.length === 0) return;
      const results = await Promise.all(pending.map(async (m) => ({ m, s: await probeServer(`${urlOf(m.host, m.port!)}/`, 5000) })));
      for (const r of results) if (r.s === "success") this.answered.add(r.m);
      if (this.answered.size >= targets.length && targets.every((m) => this.answered.has(m))) return;
      if (performance.now() - lastReport > 30_000) {
        lastReport = performance.now();
        const waiting = targets.filter((m) => !this.answered.has(m)).map((m) => m.name);
        this.out(`Checking for HTTP server statuses.\n${targets.length - waiting.length} / ${targets.length} servers ready. Waiting for servers to spin up: [${waiting.join(", ")}]`);
      }
      if (this.stopping) throw new RuntimeError("startup interrupted: the servers are shutting down");
      if (performance.now() > deadline) throw this.spinupError(targets.filter((m) => !this.answered.has(m)));
      // A built-in says when its app is built: probe at once instead of waiting out the pause.
      const serving = targets.filter((m) => !this.answered.has(m)).flatMap((m) => m.procs.filter((c) => !c.external && !c.isServing).map((c) => c.serving.catch(() => {})));
      await Promise.race([Bun.sleep(pause), ...(serving.length > 0 ? [Promise.race(serving)] : [])]);
      pause = Math.min(1000, Math.round(pause * 1.5));
    }
  }

  private async startExternals(
    externals: Managed[],
    deadline: number,
    withDeadline: <T>(p: Promise<T>, pending: () => Managed[]) => Promise<T>,
  ): Promise<void> {
    const range = portRangeFromConfig(this.dict);
    for (const m of externals) if (m.explicitPort === undefined) this.setPort(m, probeExternalPort(m.host, range));
    for (let round = 0; ; round++) {
      const yaml = serializeConfig(this.dict);
      const procs = externals.map((m) => this.spawnExternal(m, yaml));
      // An external either answers, or dies; a death with a lost bind on a port we chose is retried.
      const lost = Promise.withResolvers<Managed>();
      procs.forEach((c, i) =>
        void c.done.then(() => {
          const m = externals[i]!;
          if (!this.stopping && m.explicitPort === undefined && c.log.lastLines(40).some((l) => BIND_LOST.test(l))) lost.resolve(m);
        }),
      );
      const answering = this.waitAnswering(externals, deadline).then(() => undefined);
      const loser = await withDeadline(Promise.race([answering, lost.promise, this.exitWatch.promise.then(() => Bun.sleep(300)).then(() => undefined)]), () =>
        externals.filter((m) => !this.answered.has(m)),
      );
      if (loser === undefined) {
        if (externals.every((m) => this.answered.has(m))) return;
        // Something exited without a lost bind: guard() reports it.
        await this.guard(Bun.sleep(1000));
        throw this.spinupError(externals.filter((m) => !this.answered.has(m)));
      }
      if (round + 1 >= EXTERNAL_RESPAWN_ROUNDS) throw new RuntimeError(`server '${loser!.name}' lost the bind on ${EXTERNAL_RESPAWN_ROUNDS} ports in a row`);
      this.out(`(${loser!.name}) port ${loser!.port} was taken before it could bind; retrying on another port`);
      // Everyone started with the old value must restart with the new one.
      for (const m of externals) {
        for (const c of m.procs) c.signal("SIGKILL");
        await Promise.all(m.procs.map((c) => c.done));
        m.procs = [];
        this.answered.delete(m);
      }
      this.setPort(loser!, probeExternalPort(loser!.host, portRangeFromConfig(this.dict)));
    }
  }

  /** A start-up timeout is a runtime failure (D31: exit 1), not a config error. */
  private spinupError(pending: Managed[]): RuntimeError {
    const t = Number(this.dict.server_spinup_timeout_seconds ?? 600);
    const names = pending.map((m) => m.name);
    const logs = pending.map((m) => `  - ${m.name}: ${m.log.file}`).join("\n");
    return new RuntimeError(
      `${pending.length} of ${this.managed.length} server(s) did not answer within ${t}s: ${names.join(", ")}. Raise \`server_spinup_timeout_seconds\` to wait longer.\nLogs:\n${logs}`,
      { code: "E_SPINUP_TIMEOUT" },
    );
  }

  /** Resolves with the error describing the first server process that exits on its own (steady state, §4.2). */
  waitForFailure(): Promise<RuntimeError> {
    return this.exitWatch.promise;
  }

  /** Stop everything (idempotent): SIGINT, ~1 s grace, SIGKILL the rest, stop the head (§4.3). */
  shutdown(opts: { quiet?: boolean } = {}): Promise<void> {
    this.stopping ??= (async () => {
      this.stopLiveness();
      const procs = this.managed.flatMap((m) => m.procs);
      await stopChildren(procs, opts.quiet ? () => {} : this.out);
      await this.watchdog.stop();
      for (const m of this.managed) m.log.close();
      await this.head.stop();
      if (!opts.quiet) this.out("NeMo Gym finished!");
    })();
    return this.stopping;
  }
}
