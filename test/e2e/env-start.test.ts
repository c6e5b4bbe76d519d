/**
 * `gym env start` as users run it: a real process, real children, real signals. Checks the
 * documented shutdown, that no process is left behind (also when the parent is SIGKILLed), that
 * two environments start side by side, and `gym env status`.
 */
import { afterEach, describe, expect, test, setDefaultTimeout } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { GYM_MAIN, runGym, tempDir } from "../helpers/tmp.ts";
import { descendants, FIXTURES, freePort, getJson, waitGone } from "../runtime/_env.ts";

// Real processes on a shared 2-core machine: allow more than bun's 5 s default.
setDefaultTimeout(30_000);

const CONFIG = `
tool_rs:
  resources_servers:
    example_single_tool_call:
      entrypoint: app.py
      domain: agent
weather_py:
  resources_servers:
    py_weather:
      entrypoint: app.py
      domain: other
`;

interface Running {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  stderr: () => string;
  headPort: number;
  pids: number[];
}

const running: Subprocess[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) {
    p.kill("SIGKILL");
    await p.exited;
  }
});

async function startEnv(dir: string, opts: { ownGroup?: boolean } = {}): Promise<Running> {
  const cfg = join(dir, "env.yaml");
  writeFileSync(cfg, CONFIG);
  const head = freePort();
  const proc = Bun.spawn([process.execPath, GYM_MAIN, "env", "start", "--config", cfg, "--search-dir", FIXTURES, `++nemo_gym_log_dir=${join(dir, "logs")}`, `++head_server.port=${head}`], {
    cwd: dir,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    // Its own process group, so a test can send SIGINT to the whole group like a terminal's Ctrl+C.
    detached: opts.ownGroup ?? false,
  });
  running.push(proc);
  let text = "";
  void (async () => {
    for await (const chunk of proc.stderr) text += new TextDecoder().decode(chunk);
  })();
  const deadline = Date.now() + 30_000;
  while (!/All 2 \/ 2 servers ready!/.test(text)) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`gym env start did not become ready:\n${text}`);
    await Bun.sleep(50);
  }
  const headPort = Number(/Head server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text)![1]);
  // Every process gym started: servers, their children, the external-server watchdog.
  const pids = await descendants(proc.pid);
  return { proc, stderr: () => text, headPort, pids };
}

describe("gym env start", () => {
  test("two environments come up side by side; status reports them; SIGINT shuts down as documented", async () => {
    await using a = await tempDir();
    await using b = await tempDir();
    const [ea, eb] = await Promise.all([startEnv(a.path), startEnv(b.path)]);
    expect(ea.headPort).not.toBe(eb.headPort);
    expect((await getJson(`http://127.0.0.1:${ea.headPort}/readyz`)).status).toBe(200);

    const st = await runGym(["env", "status", "--json", `++head_server.port=${ea.headPort}`], { cwd: a.path });
    expect(st.code).toBe(0);
    const status = JSON.parse(st.stdout) as { ready: boolean; servers: { process_name: string; status: string }[] };
    expect(status.ready).toBe(true);
    expect(status.servers.map((s) => [s.process_name, s.status])).toEqual([
      ["tool_rs", "success"],
      ["weather_py", "success"],
    ]);
    const table = await runGym(["env", "status", `++head_server.port=${eb.headPort}`], { cwd: b.path });
    expect(table.stdout).toContain("2 servers found (2 healthy, 0 unhealthy)");

    for (const e of [ea, eb]) {
      e.proc.kill("SIGINT");
      expect(await e.proc.exited).toBe(0);
      await Bun.sleep(20);
      const err = e.stderr();
      expect(err).toContain("Sending interrupt signals to servers...");
      expect(err).toContain("Waiting for processes to finish...");
      expect(err.trimEnd().endsWith("NeMo Gym finished!")).toBe(true);
      expect(await waitGone(e.pids)).toEqual([]);
    }
    // Nothing listens any more.
    const gone = await runGym(["env", "status", `++head_server.port=${ea.headPort}`], { cwd: a.path });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("Could not connect to the head server");
  }, 60_000);

  test("a server that dies stops the run: reported by name with its log tail, exit 1, the rest shut down", async () => {
    await using dir = await tempDir();
    const env = await startEnv(dir.path);
    const instances = (await getJson(`http://127.0.0.1:${env.headPort}/server_instances`)).body as { process_name: string; pid: number }[];
    process.kill(instances.find((i) => i.process_name === "weather_py")!.pid, "SIGKILL");
    expect(await env.proc.exited).toBe(1);
    await Bun.sleep(20);
    expect(env.stderr()).toContain("error: Process `weather_py` finished unexpectedly!");
    expect(env.stderr()).toContain("serving weather_py on 127.0.0.1:");
    expect(env.stderr()).toContain("NeMo Gym finished!");
    expect(await waitGone(env.pids)).toEqual([]);
  }, 60_000);

  test("Ctrl+C in a terminal (SIGINT to the whole process group) is a clean stop, not a server failure", async () => {
    await using dir = await tempDir();
    const env = await startEnv(dir.path, { ownGroup: true });
    process.kill(-env.proc.pid, "SIGINT");
    expect(await env.proc.exited).toBe(0);
    await Bun.sleep(20);
    expect(env.stderr()).not.toContain("finished unexpectedly");
    expect(env.stderr().trimEnd().endsWith("NeMo Gym finished!")).toBe(true);
    expect(await waitGone(env.pids)).toEqual([]);
  }, 60_000);

  test("a closed terminal (SIGHUP) shuts down like Ctrl+C", async () => {
    await using dir = await tempDir();
    const env = await startEnv(dir.path);
    env.proc.kill("SIGHUP");
    expect(await env.proc.exited).toBe(0);
    await Bun.sleep(20);
    expect(env.stderr().trimEnd().endsWith("NeMo Gym finished!")).toBe(true);
    expect(await waitGone(env.pids)).toEqual([]);
  }, 60_000);

  test("dry_run=true checks every server and starts nothing", async () => {
    await using dir = await tempDir();
    const cfg = join(dir.path, "env.yaml");
    writeFileSync(cfg, CONFIG);
    const ok = await runGym(["env", "start", "--config", cfg, "--search-dir", FIXTURES, "++dry_run=true"], { cwd: dir.path });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toContain("Dry run: all 2 servers can be launched; nothing was started.");
    writeFileSync(cfg, CONFIG.replace("entrypoint: app.py\n      domain: other", "entrypoint: missing.py\n      domain: other"));
    const bad = await runGym(["env", "start", "--config", cfg, "--search-dir", FIXTURES, "++dry_run=true"], { cwd: dir.path });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("Dry run failed to set up 1 servers:");
    expect(bad.stderr).toContain("weather_py: entrypoint");
  }, 60_000);

  test("a SIGKILLed gym leaves no server processes behind", async () => {
    await using dir = await tempDir();
    const env = await startEnv(dir.path);
    // Two servers and the watchdog that guards the external one.
    expect(env.pids.length).toBeGreaterThanOrEqual(3);
    env.proc.kill("SIGKILL");
    await env.proc.exited;
    expect(await waitGone(env.pids, 8000, true)).toEqual([]);
  }, 60_000);
});
