/** Test harness: host built-in components in this process on real loopback sockets (port 0), wired by name. */
import "../../src/components/index.ts";
import { findBuiltin } from "../../src/components/registry.ts";
import type { ConfigDict, ServerType } from "../../src/config/types.ts";
import { serveApp } from "../../src/runtime/http/http.ts";

/** One server of a stack. */
export interface StackEntry {
  name: string;
  serverType: ServerType;
  impl: string;
  leaf?: Record<string, unknown>;
}

/** A running stack: base URL per instance name; `stop()` closes every socket. */
export interface Stack extends AsyncDisposable {
  url: Record<string, string>;
  config: ConfigDict;
  stop(): Promise<void>;
}

/** Start the entries (in order) and publish their ports into one shared config dict. */
export async function startStack(entries: StackEntry[], extra: ConfigDict = {}): Promise<Stack> {
  const config: ConfigDict = { ...extra };
  for (const e of entries) config[e.name] = { [e.serverType]: { [e.impl]: { entrypoint: "app.py", host: "127.0.0.1", ...(e.leaf ?? {}), name: e.name } } };
  const servers: ReturnType<typeof serveApp>[] = [];
  const url: Record<string, string> = {};
  for (const e of entries) {
    const comp = await findBuiltin(e.serverType, e.impl);
    if (!comp) throw new Error(`not built in: ${e.serverType}/${e.impl}`);
    const leaf = (config[e.name] as Record<string, Record<string, Record<string, unknown>>>)[e.serverType]![e.impl]!;
    const app = await comp.create({ instanceName: e.name, config: leaf, globalConfig: config });
    const server = serveApp(app, { host: "127.0.0.1", port: 0 });
    servers.push(server);
    leaf.port = server.port;
    url[e.name] = `http://127.0.0.1:${server.port}`;
  }
  const stop = async () => {
    for (const s of servers) await s.stop(true);
  };
  return { url, config, stop, [Symbol.asyncDispose]: stop };
}

/** POST JSON and return status, parsed body (or text) and the response's cookies. */
export async function postJson(url: string, body: unknown, cookies?: Record<string, string>): Promise<{ status: number; json: any; text: string; cookies: Record<string, string> }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (cookies && Object.keys(cookies).length > 0) headers.cookie = Object.entries(cookies).map(([k, v]) => `${k}=${v}`).join("; ");
  const res = await fetch(url, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const out: Record<string, string> = {};
  for (const line of res.headers.getSetCookie()) {
    const first = line.split(";")[0]!;
    const eq = first.indexOf("=");
    out[first.slice(0, eq)] = first.slice(eq + 1);
  }
  return { status: res.status, json, text, cookies: out };
}
