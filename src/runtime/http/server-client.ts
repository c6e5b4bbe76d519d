/**
 * `ServerClient`: server name → `http://host:port` from the config (runtime.md §2.3), requests
 * through the shared client with cookies passed explicitly, the observability rollout prefix, and
 * `setupServerClient()` for out-of-process callers, which reads the config from the head server.
 */
import { parse as parseYaml } from "yaml";
import type { ConfigDict } from "../../config/types.ts";
import { readEnv } from "../../env.ts";
import { RuntimeError } from "../../errors.ts";
import { clientPolicyFromConfig, HttpClient, RequestFailedError, type HttpAnswer, type RequestOptions } from "./http-client.ts";
import { localServer } from "./local-dispatch.ts";
import { localExchange } from "./local-exchange.ts";
import { poolLimits } from "./pool.ts";
import { poolMetrics } from "./pool-metrics.ts";
import { currentRolloutId, rolloutIdFromBody } from "./rollout-context.ts";

const MODEL_CAPTURE_PATHS = new Set(["/v1/responses", "/v1/chat/completions", "/v1/messages"]);

/** Where one server lives. */
export interface ServerAddress {
  serverType: string;
  host: string;
  port: number;
  baseUrl: string;
}

/** Follow a `${a.b}` reference through the dict (a bare reference only; richer interpolation is config/'s job). */
function deref(dict: ConfigDict, value: unknown): unknown {
  const m = typeof value === "string" ? /^\$\{([A-Za-z0-9_.]+)\}$/.exec(value) : null;
  if (!m) return value;
  let cur: unknown = dict;
  for (const k of m[1]!.split(".")) cur = cur && typeof cur === "object" ? (cur as Record<string, unknown>)[k] : undefined;
  return cur;
}

/** The address of a server instance from the config's first-leaf rule (`cfg[name]` → first type → first implementation). */
export function serverAddress(dict: ConfigDict, name: string): ServerAddress | undefined {
  const top = dict[name];
  if (!top || typeof top !== "object") return undefined;
  const [serverType, impls] = Object.entries(top as Record<string, unknown>)[0] ?? [];
  if (!serverType || !impls || typeof impls !== "object") return undefined;
  const leaf = Object.values(impls as Record<string, unknown>)[0];
  if (!leaf || typeof leaf !== "object") return undefined;
  const l = leaf as Record<string, unknown>;
  const host = String(deref(dict, l.host) ?? "127.0.0.1");
  const port = Number(deref(dict, l.port));
  if (!Number.isInteger(port) || port <= 0) return undefined;
  const urlHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return { serverType, host, port, baseUrl: `http://${urlHost}:${port}` };
}

/** Calls gym servers by name. */
export class ServerClient {
  private readonly cache = new Map<string, ServerAddress>();
  readonly http: HttpClient;

  constructor(
    readonly config: ConfigDict,
    opts: { http?: HttpClient; workers?: number; serverName?: string } = {},
  ) {
    this.http = opts.http ?? new HttpClient(clientPolicyFromConfig(config, poolLimits(config, opts.workers ?? 1, opts.serverName)));
    // Pool metrics name a call's destination by the server it reaches (§14).
    for (const name of Object.keys(config)) {
      const a = serverAddress(config, name);
      if (a) poolMetrics.nameDestination(a.host, a.port, name);
    }
  }

  /** The address of a configured server; throws naming the known servers when absent. */
  address(name: string): ServerAddress {
    let a = this.cache.get(name);
    if (!a) {
      a = serverAddress(this.config, name);
      if (!a) {
        const known = Object.keys(this.config).filter((k) => serverAddress(this.config, k) !== undefined);
        throw new RuntimeError(`no server named '${name}' with a host and port in the config (known servers: ${known.join(", ") || "none"})`);
      }
      this.cache.set(name, a);
    }
    return a;
  }

  /** The URL path after the observability rollout prefix rules (§2.3, §14). */
  private prefixed(a: ServerAddress, path: string, opts: RequestOptions): string {
    if (this.config.observability_enabled !== true) return path;
    let id = currentRolloutId();
    if (a.serverType === "resources_servers") {
      if (id === undefined && path === "/verify") id = rolloutIdFromBody(opts.json ?? jsonOfText(opts.body));
      return id === undefined ? path : `/ng-rollout/${id}${path}`;
    }
    if (a.serverType === "responses_api_models" && id !== undefined && MODEL_CAPTURE_PATHS.has(path)) return `/ng-rollout/${id}${path}`;
    return path;
  }

  /** Send a request to `serverName` at `urlPath`; returns the response whatever its status. */
  async request(serverName: string, urlPath: string, opts: RequestOptions = {}): Promise<Response> {
    const a = this.address(serverName);
    const path = this.prefixed(a, urlPath, opts);
    return this.http.request(a.baseUrl + path, { ...opts, internal: true });
  }

  /**
   * As `request`, with the answer read whole and no Response built (HttpClient.exchange). A call to
   * this very process's server (an agent's `/run` → its own `/v1/responses`) is served in process
   * (local-dispatch.ts); every other destination goes over HTTP.
   */
  async exchange(serverName: string, urlPath: string, opts: RequestOptions = {}): Promise<HttpAnswer> {
    const a = this.address(serverName);
    const path = this.prefixed(a, urlPath, opts);
    const local = localServer(a.baseUrl);
    if (local) return localExchange(local, a.baseUrl, path, opts, this.http.policy);
    return this.http.exchange(a.baseUrl + path, { ...opts, internal: true });
  }

  /** `POST` JSON to a server. */
  post(serverName: string, urlPath: string, json: unknown, opts: Omit<RequestOptions, "json" | "method"> = {}): Promise<Response> {
    return this.request(serverName, urlPath, { ...opts, method: "POST", json });
  }

  /** `GET` from a server. */
  get(serverName: string, urlPath: string, opts: Omit<RequestOptions, "method"> = {}): Promise<Response> {
    return this.request(serverName, urlPath, { ...opts, method: "GET" });
  }
}

/** The head server address a config names (default 127.0.0.1:11000). */
export function headAddress(dict: ConfigDict): { host: string; port: number } {
  const h = (dict.head_server ?? {}) as Record<string, unknown>;
  return { host: h.host ? String(h.host) : "127.0.0.1", port: h.port ? Number(h.port) : 11000 };
}

/** Parse the body of `/global_config_dict_yaml`: a JSON string holding YAML (§3.1). */
export function parseHeadConfigBody(body: string): ConfigDict {
  const yamlText = JSON.parse(body) as unknown;
  if (typeof yamlText !== "string") throw new RuntimeError("the head server answered /global_config_dict_yaml with something that is not a JSON string holding YAML", { hint: "is the configured head_server address really a gym or NeMo Gym head server?" });
  const parsed = parseYaml(yamlText) as unknown;
  return parsed && typeof parsed === "object" ? (parsed as ConfigDict) : {};
}

/**
 * A ServerClient for a process that did not start the servers (the rollout driver, a training
 * framework): the config comes from NEMO_GYM_CONFIG_DICT when set, else from the head server.
 */
export async function setupServerClient(local: ConfigDict = {}, opts: { waitSeconds?: number } = {}): Promise<ServerClient> {
  const env = readEnv();
  if (env.configDict) return new ServerClient((parseYaml(env.configDict) as ConfigDict | null) ?? {});
  const { host, port } = headAddress(local);
  const base = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const http = new HttpClient(clientPolicyFromConfig(local, poolLimits(local)));
  const deadline = performance.now() + (opts.waitSeconds ?? 600) * 1000;
  for (;;) {
    let res: Response;
    try {
      // Connection errors fail at once with upstream's message: nothing is listening there.
      // It answers 503 while starting: that is not an endpoint failing (breaker: false).
      res = await new HttpClient({ ...http.policy, retryBudgetSeconds: 0 }).request(`${base}/global_config_dict_yaml`, { internal: true, breaker: false });
    } catch (err) {
      if (err instanceof RequestFailedError && !err.timedOut) {
        throw new RuntimeError(
          `Could not connect to the head server at ${base}. Perhaps you are not running a server or your head server is on a different port?`,
          { hint: "start the servers with `gym env start …`, or set head_server.host/head_server.port to where they run", cause: err },
        );
      }
      throw err;
    }
    const text = await res.text();
    // 503 {"status":"starting"}: the head is up but ports are not final yet (D14); wait for publication.
    if (res.status === 503 && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    if (!res.ok) throw new RuntimeError(`the head server at ${base} answered ${res.status} to /global_config_dict_yaml: ${text.slice(0, 200)}`);
    return new ServerClient(parseHeadConfigBody(text), { http });
  }
}

/** A ready-made JSON body text as a value (undefined when absent or not JSON): only read for the rollout id of a /verify. */
function jsonOfText(body: RequestOptions["body"]): unknown {
  if (typeof body !== "string") return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
