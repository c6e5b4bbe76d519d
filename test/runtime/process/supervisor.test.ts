import { afterEach, describe, expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import "../../../src/components/index.ts";
import { isBuiltin } from "../../../src/components/registry.ts";
import { setEnvVar } from "../../../src/env.ts";
import { ConfigError, exitCodeOf, RuntimeError } from "../../../src/errors.ts";
import { Supervisor } from "../../../src/runtime/process/supervisor.ts";
import { tempDir } from "../../helpers/tmp.ts";
import { FIXTURES, getJson, pidAlive, resolvedConfig, waitGone, type ServerDef } from "../_env.ts";

// Real processes on a shared 2-core machine: allow more than bun's 5 s default.
setDefaultTimeout(30_000);

const started: Supervisor[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.shutdown({ quiet: true });
});

function supervisor(servers: ServerDef[], globals: Record<string, unknown> = {}, lines: string[] = []): Supervisor {
  const s = new Supervisor({ resolved: resolvedConfig(servers, globals), isBuiltin, out: (l) => lines.push(l) });
  started.push(s);
  return s;
}

const weather: ServerDef = { name: "weather_py", type: "resources_servers", impl: "py_weather", leaf: { entrypoint: "app.py", domain: "other" }, external: true };
const echoExe: ServerDef = { name: "echo_exe", type: "resources_servers", impl: "exe_echo", leaf: { entrypoint: "serve", domain: "other" }, external: true };
const builtinRs: ServerDef = { name: "tool_rs", type: "resources_servers", impl: "example_single_tool_call", leaf: { entrypoint: "app.py", domain: "agent" } };

describe("Supervisor", () => {
  test("brings up built-in and external servers, publishes the final config, reports a dead child, shuts down cleanly", async () => {
    await using logs = await tempDir();
    const lines: string[] = [];
    const sup = supervisor([builtinRs, weather, echoExe], { nemo_gym_log_dir: logs.path, global_aiohttp_connector_limit: 300, uv_cache_dir: "/tmp/uvc" }, lines);
    const head = () => `http://127.0.0.1:${sup.head.port}`;
    // A parent started as `bun` (BUN_BE_BUN) must not make its children behave as the bun CLI.
    setEnvVar("BUN_BE_BUN", "1");
    try {
      await sup.start();
    } finally {
      setEnvVar("BUN_BE_BUN", undefined);
    }

    // Head endpoints: ready, JSON-string YAML with final ports, upstream descriptor shape.
    expect((await getJson(`${head()}/readyz`)).status).toBe(200);
    const cfgRes = await getJson(`${head()}/global_config_dict_yaml`);
    expect(typeof cfgRes.body).toBe("string");
    const cfg = parseYaml(cfgRes.body as string) as Record<string, any>;
    const instances = (await getJson(`${head()}/server_instances`)).body as Record<string, unknown>[];
    expect(instances.map((i) => i.config_path)).toEqual(["tool_rs", "weather_py", "echo_exe"]);
    for (const i of instances) {
      expect(Object.keys(i).sort()).toEqual(["config_path", "dir_path", "entrypoint", "host", "name", "pid", "port", "process_name", "server_type", "start_time", "status", "uptime_seconds", "url"]);
      expect(i.url).toBe(`http://127.0.0.1:${i.port}`);
      expect(cfg[i.config_path as string].resources_servers[i.name as string].port).toBe(i.port);
    }
    const ports = instances.map((i) => i.port as number);
    expect(new Set(ports).size).toBe(3);
    for (const p of ports) expect(p >= 10001 && p <= 20000).toBe(true);
    expect(cfg.disallowed_ports).toEqual(expect.arrayContaining(ports));

    // The Python server read the env contract: its own port, the built-in's final port, cwd and PYTHONPATH.
    const byName = Object.fromEntries(instances.map((i) => [i.config_path, i])) as Record<string, Record<string, any>>;
    const w = (await (await fetch(`${byName.weather_py!.url}/get_weather`, { method: "POST", body: '{"city":"Oslo"}' })).json()) as Record<string, any>;
    expect(w).toMatchObject({ city: "Oslo", server: "weather_py", port: byName.weather_py!.port, cwd: join(FIXTURES, "resources_servers", "py_weather") });
    expect(w.pythonpath.split(":")[0]).toBe(join(FIXTURES, "resources_servers", "py_weather"));
    expect(w.peers.tool_rs).toBe(byName.tool_rs!.port);
    expect(w.env).toEqual({ BUN_CONFIG_MAX_HTTP_REQUESTS: "300", BUN_BE_BUN: null, NEMO_GYM_CONFIG_PATH: "weather_py", UV_CACHE_DIR: "/tmp/uvc" });
    // The executable entrypoint ran from its own directory.
    const e = (await (await fetch(`${byName.echo_exe!.url}/get_weather`, { method: "POST", body: "{}" })).json()) as Record<string, any>;
    expect(e.cwd).toBe(join(FIXTURES, "resources_servers", "exe_echo"));
    // The built-in answers on its port with a session cookie named after its class and instance.
    const b = await fetch(`${byName.tool_rs!.url}/`);
    expect(b.status).toBe(200);

    // Per-server log files.
    expect(readFileSync(join(logs.path, "weather_py.log"), "utf8")).toContain(`serving weather_py on 127.0.0.1:${byName.weather_py!.port}`);

    // Kill one child: the supervisor reports it by name with the tail of its log.
    const pids = sup.pids;
    process.kill(byName.weather_py!.pid, "SIGKILL");
    const failure = await sup.waitForFailure();
    expect(failure).toBeInstanceOf(RuntimeError);
    expect(failure.message).toContain("Process `weather_py` finished unexpectedly!");
    expect(failure.message).toContain("serving weather_py");
    expect(failure.message).toContain(join(logs.path, "weather_py.log"));

    await sup.shutdown();
    expect(lines).toContain("Sending interrupt signals to servers...");
    expect(lines.at(-1)).toBe("NeMo Gym finished!");
    expect(await waitGone(pids)).toEqual([]);
  });

  test("a server that never binds times out naming it, its log and the key; nothing is left running", async () => {
    const never: ServerDef = { name: "sleepy", type: "resources_servers", impl: "never_binds", leaf: { entrypoint: "run.sh", domain: "other" }, external: true };
    const sup = supervisor([never], { server_spinup_timeout_seconds: 1.5 });
    const err = (await sup.start().catch((x) => x)) as RuntimeError;
    // D31: a start-up timeout is a runtime failure, exit 1.
    expect(err).toBeInstanceOf(RuntimeError);
    expect(exitCodeOf(err)).toBe(1);
    expect(err.message).toContain("1 of 1 server(s) did not answer within 1.5s: sleepy");
    expect(err.message).toContain("server_spinup_timeout_seconds");
    expect(err.message).toContain("sleepy.log");
    expect(await waitGone(sup.pids)).toEqual([]);
    // The head is gone too.
    expect(sup.head.port).toBeUndefined();
  });

  test("an external that loses its bind is respawned on another port before publication", async () => {
    await using tmp = await tempDir();
    const marker = join(tmp.path, "lost-once");
    const lines: string[] = [];
    const sup = supervisor([{ ...weather, leaf: { ...weather.leaf, lose_bind_once_marker: marker } }], {}, lines);
    await sup.start();
    expect(lines.some((l) => l.includes("(weather_py) port") && l.includes("retrying on another port"))).toBe(true);
    expect(existsSync(marker)).toBe(true);
    const [inst] = (await getJson(`http://127.0.0.1:${sup.head.port}/server_instances`)).body as Record<string, any>[];
    const w = (await (await fetch(`${inst!.url}/get_weather`, { method: "POST", body: "{}" })).json()) as Record<string, any>;
    expect(w.port).toBe(inst!.port);
  });

  test("two supervisors started at once both come up on distinct ports", async () => {
    const a = supervisor([builtinRs, weather]);
    const b = supervisor([builtinRs, weather]);
    await Promise.all([a.start(), b.start()]);
    const ia = (await getJson(`http://127.0.0.1:${a.head.port}/server_instances`)).body as { port: number }[];
    const ib = (await getJson(`http://127.0.0.1:${b.head.port}/server_instances`)).body as { port: number }[];
    const all = [...ia, ...ib].map((i) => i.port);
    expect(new Set(all).size).toBe(4);
    for (const i of [...ia, ...ib]) expect((await fetch(`http://127.0.0.1:${i.port}/`)).status).toBe(200);
  });

  test("bad input to a built-in server's endpoints gets JSON 4xx and the server keeps serving", async () => {
    const sup = supervisor([builtinRs]);
    await sup.start();
    const [inst] = (await getJson(`http://127.0.0.1:${sup.head.port}/server_instances`)).body as { url: string }[];
    const url = inst!.url;
    const json = { "content-type": "application/json" };
    const bad: [string, RequestInit, number][] = [
      ["/get_weather", { method: "POST", body: "{not json", headers: json }, 422],
      ["/get_weather", { method: "POST", body: '{"city": 5}', headers: json }, 422],
      ["/get_weather", { method: "POST", body: JSON.stringify({ city: "x".repeat(10 * 1024 * 1024) }).slice(0, -3), headers: json }, 422],
      ["/verify", { method: "POST", body: "[1,2]", headers: json }, 422],
      ["/no_such_route", { method: "POST", body: "{}", headers: json }, 404],
      ["/get_weather", { method: "GET" }, 405],
    ];
    for (const [path, init, status] of bad) {
      const res = await fetch(url + path, init);
      expect([path, res.status]).toEqual([path, status]);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("set-cookie")).toContain("SimpleWeatherResourcesServer___tool_rs=");
      await res.json();
    }
    const ok = await fetch(`${url}/get_weather`, { method: "POST", body: '{"city":"Oslo"}', headers: json });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { city: string }).city).toBe("Oslo");
  });

  test("a server that ignores SIGINT is killed after the 1 s grace and named", async () => {
    const lines: string[] = [];
    const sup = supervisor([{ ...weather, name: "stubborn", leaf: { ...weather.leaf, ignore_sigint: true } }, builtinRs], {}, lines);
    await sup.start();
    const pids = sup.pids;
    const t0 = performance.now();
    await sup.shutdown();
    const took = performance.now() - t0;
    expect(lines).toContain("Some processes (stubborn) didn't shutdown within the 1s timeout, killing instead. You may see messages like: \"raylet ... GCS ... failed\" from servers killed this way.");
    expect(lines.at(-1)).toBe("NeMo Gym finished!");
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(4000);
    expect(await waitGone(pids)).toEqual([]);
  });

  test("a config too large for one environment value reaches built-ins over IPC; externals get a clear error", async () => {
    const big = { notes: "x".repeat(200 * 1024) };
    const sup = supervisor([builtinRs], big);
    await sup.start();
    const [inst] = (await getJson(`http://127.0.0.1:${sup.head.port}/server_instances`)).body as { url: string }[];
    expect((await fetch(`${inst!.url}/get_weather`, { method: "POST", body: '{"city":"a"}' })).status).toBe(200);
    const ext = supervisor([weather], big);
    const err = (await ext.start().catch((e) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain("too large for NEMO_GYM_CONFIG_DICT");
  });

  test("a missing interpreter is a clear error naming the server and python_executable", async () => {
    const sup = supervisor([weather], { python_executable: "/nonexistent/python3" });
    const err = (await sup.start().catch((e) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain("server 'weather_py': cannot run /nonexistent/python3");
    expect(err.key).toBe("python_executable");
    expect(sup.head.port).toBeUndefined();
  });

  test("a server key that does not resolve is a ConfigError naming it, before anything starts (not a silently raw value)", async () => {
    const sup = supervisor([{ ...builtinRs, leaf: { ...builtinRs.leaf, port: "${no_such_port_key}" } }]);
    const err = (await sup.start().catch((e) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain("references 'no_such_port_key'");
    expect(err.key).toBe("tool_rs.resources_servers.example_single_tool_call.port");
    expect(sup.pids.length).toBe(0);
  });

  test("num_workers: 2 runs two processes sharing one port", async () => {
    const sup = supervisor([{ ...builtinRs, leaf: { ...builtinRs.leaf, num_workers: 2 } }]);
    await sup.start();
    expect(sup.pids.length).toBe(2);
    for (const p of sup.pids) expect(pidAlive(p)).toBe(true);
    const [inst] = (await getJson(`http://127.0.0.1:${sup.head.port}/server_instances`)).body as { url: string }[];
    for (let i = 0; i < 4; i++) expect((await fetch(`${inst!.url}/`)).status).toBe(200);
  });

  test("before publication the head answers 503 starting and an empty instance list", async () => {
    const never: ServerDef = { name: "sleepy", type: "resources_servers", impl: "never_binds", leaf: { entrypoint: "run.sh", domain: "other" }, external: true };
    const sup = supervisor([never], { server_spinup_timeout_seconds: 3 });
    const starting = sup.start().catch((e) => e);
    // The head listens before any child is spawned: wait for that (bounded), not for a fixed time.
    for (const t0 = performance.now(); sup.head.port === undefined && performance.now() - t0 < 10_000; ) await Bun.sleep(5);
    const base = `http://127.0.0.1:${sup.head.port}`;
    const cfg = await getJson(`${base}/global_config_dict_yaml`);
    expect(cfg.status).toBe(503);
    expect(cfg.text).toBe('{"status":"starting"}');
    expect((await getJson(`${base}/server_instances`)).text).toBe("[]");
    expect((await getJson(`${base}/readyz`)).status).toBe(503);
    expect((await getJson(`${base}/`)).status).toBe(200);
    const t0 = performance.now();
    await sup.shutdown({ quiet: true });
    expect(String(await starting)).toContain("interrupted");
    expect(performance.now() - t0).toBeLessThan(2500);
  });
});
