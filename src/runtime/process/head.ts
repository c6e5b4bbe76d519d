/**
 * The head server (runtime.md §3): `/global_config_dict_yaml` (a JSON string holding the YAML, with
 * interpolations unresolved and secrets masked by D10's rules, D39), `/server_instances` (upstream's descriptor
 * array), and the readiness flag. Nothing is published before every port is final (D14): until
 * then the config endpoint answers 503 `{"status":"starting"}` and the instance list is `[]`.
 */
import type { Server } from "bun";
import { jsonResponse, serveApp } from "../http/http.ts";
import type { ServerApp } from "../http/http-types.ts";
import type { ProxySettings } from "../http/proxy-headers.ts";
import { redactSecrets } from "../../config/redact.ts";
import { maskUrlSecretsDeep } from "../../util/url-secrets.ts";

/** One element of `/server_instances` (upstream `ServerInstanceDisplayConfig`; every key present). */
export interface ServerInstanceDisplay {
  config_path: string;
  dir_path: string | null;
  entrypoint: string | null;
  host: string;
  name: string;
  pid: number | null;
  port: number;
  process_name: string;
  server_type: string;
  start_time: number | null;
  status: string | null;
  uptime_seconds: number | null;
  url: string;
}

const STARTING = { status: "starting" };

/** State and app of the head server. */
export class HeadServer {
  private configYaml: string | undefined;
  private instances: ServerInstanceDisplay[] = [];
  private ready = false;
  private server: Server<undefined> | undefined;

  /** Publish the final config (YAML text) and the instance list; called once every port is final. */
  publish(configYaml: string, instances: ServerInstanceDisplay[]): void {
    this.configYaml = configYaml;
    this.instances = maskUrlSecretsDeep(redactSecrets(instances));
  }

  /** Flip `/readyz`, `/healthz`, `/health` to 200 (after both readiness steps, §3.2). */
  markReady(): void {
    this.ready = true;
  }

  /** True once `markReady` was called. */
  get isReady(): boolean {
    return this.ready;
  }

  /** The app the head serves (no sessions: §6.1). */
  app(): ServerApp {
    const readiness = () => (this.ready ? jsonResponse({ status: "ok" }) : jsonResponse(STARTING, 503));
    return {
      className: "HeadServer",
      instanceName: "head_server",
      sessions: false,
      routes: [
        { method: "GET", path: "/global_config_dict_yaml", handler: () => (this.configYaml === undefined ? jsonResponse(STARTING, 503) : this.configYaml) },
        { method: "GET", path: "/server_instances", handler: () => this.instances },
        { method: "GET", path: "/readyz", handler: readiness },
        { method: "GET", path: "/healthz", handler: readiness },
        { method: "GET", path: "/health", handler: readiness },
      ],
    };
  }

  /** Bind and serve; `port: 0` picks a free port (read it back from `port`). */
  start(opts: { host: string; port: number; proxy?: ProxySettings }): number {
    this.server = serveApp(this.app(), { host: opts.host, port: opts.port, proxy: opts.proxy });
    return this.server.port ?? opts.port;
  }

  /** The bound port (after `start`). */
  get port(): number | undefined {
    return this.server?.port;
  }

  /** Stop serving (in-flight requests are dropped). */
  async stop(): Promise<void> {
    await this.server?.stop(true);
    this.server = undefined;
  }
}
