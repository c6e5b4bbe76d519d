/**
 * The CodeRunner sandbox against hostile programs: each run ends within its limit with the right status,
 * leaves no process or temp dir behind, and never sees the server's environment.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CodeRunner } from "../../../src/verify/code/runner.ts";
import { PythonMissingError } from "../../../src/verify/code/python.ts";
import { readEnv } from "../../../src/env.ts";

const runner = new CodeRunner({ maxConcurrent: 4 }, readEnv().path);
const stdio = (code: string, output = "OK", timeoutSecs = 2) => runner.run({ code, inputs: [""], outputs: [output], fnName: null, timeoutSecs });

/** Whether a process is alive (not a zombie). */
function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

/** Live descendants of `pid` (through /proc/<pid>/task/<pid>/children). */
function descendants(pid: number): number[] {
  let kids: number[] = [];
  try {
    kids = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return kids.flatMap((k) => [k, ...descendants(k)]);
}

const runners: CodeRunner[] = [];
// Every zygote these tests started, with its process tree (other test files run their own runners).
const started = new Set<number>();
const roots = new Set<string>();
const track = () => {
  for (const r of [runner, ...runners]) {
    const pid = r.zygotePid();
    if (pid !== undefined) for (const p of [pid, ...descendants(pid)]) started.add(p);
    const root = r.zygoteRoot();
    if (root !== undefined) roots.add(root);
  }
};
afterAll(async () => {
  track();
  for (const r of [runner, ...runners]) r.close();
  const left = () => [...started].filter(alive);
  for (let i = 0; i < 50 && left().length > 0; i++) await Bun.sleep(100);
  expect(left()).toEqual([]);
  for (let i = 0; i < 50 && [...roots].some(existsSync); i++) await Bun.sleep(100);
  expect([...roots].filter(existsSync)).toEqual([]);
});

describe("sandbox", () => {
  afterEach(track);
  test("an infinite loop that ignores the per-test alarm is killed at the global budget", async () => {
    const t0 = performance.now();
    const r = await stdio("import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    pass", "OK", 1);
    expect(r.killed).toBe(true);
    expect(r.result).toEqual([-1]);
    expect(r.metadata).toBeNull();
    expect(performance.now() - t0).toBeLessThan(20_000); // (1+1)·1+5 = 7 s budget
  }, 30_000);

  test("fork, posix.fork and subprocess are refused (no fork bomb)", async () => {
    for (const code of ["import os\nwhile True:\n    os.fork()", "import posix\nposix.fork()\nprint('OK')", "import subprocess\nsubprocess.run(['true'])\nprint('OK')"]) {
      const r = await stdio(code);
      expect(r.result).toEqual([-4]);
    }
  }, 30_000);

  test("a 10 GiB allocation fails inside the program's 4 GiB address space", async () => {
    const r = await stdio("x = bytearray(10 * 1024**3)\nprint('OK')");
    expect(r.result).toEqual([-4]);
    expect(String(r.metadata?.error)).toContain("MemoryError");
  }, 30_000);

  test("writing outside the run directory is refused; inside it works", async () => {
    const target = join(tmpdir(), `gym-sandbox-escape-${process.pid}`);
    const r = await stdio(`with io.open(${JSON.stringify(target)}, 'w') as f:\n    f.write('x')\nprint('OK')`);
    expect(r.result).toEqual([-4]);
    expect(existsSync(target)).toBe(false);
    const inside = await stdio("with io.open('scratch.txt', 'w') as f:\n    f.write('x')\nprint(io.open('scratch.txt').read() and 'OK')");
    expect(inside.result).toEqual([true]);
  }, 30_000);

  test("no network: a socket to 127.0.0.1 cannot connect", async () => {
    const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const r = await stdio(`import socket\ns = socket.socket()\ns.settimeout(2)\ns.connect(('127.0.0.1', ${server.port}))\nprint('OK')`);
      expect(r.result).toEqual([-4]);
    } finally {
      server.stop(true);
    }
  }, 30_000);

  test("the program never sees the server's secrets", async () => {
    process.env.GYM_SANDBOX_PLANTED_SECRET = "sk-planted-0123456789";
    try {
      const r = await stdio("import os\nvals = ' '.join(os.environ.values())\nprint('LEAK' if 'sk-planted' in vals or 'NEMO_GYM' in ' '.join(os.environ) else 'OK')");
      expect(r.result).toEqual([true]);
    } finally {
      delete process.env.GYM_SANDBOX_PLANTED_SECRET;
    }
  }, 30_000);

  test("printing 100 MB ends with a wrong answer, not a hung server", async () => {
    const r = await stdio("import sys\nfor _ in range(100):\n    sys.stdout.write('x' * (1 << 20))\n", "OK", 10);
    expect(r.result).toEqual([-2]);
    expect(String(r.metadata?.output).length).toBeLessThan(400);
  }, 60_000);

  test("a program closing stdin and stdout still ends with a verdict", async () => {
    const r = await stdio("import os, sys\nos.close(0)\nos.close(1)\nsys.stdout.close()\n");
    expect(r.result).toEqual([-4]);
  }, 30_000);

  test("a killed zygote fails its runs (all tests -1) and the next run starts a new one", async () => {
    const r3 = new CodeRunner({ maxConcurrent: 2 }, readEnv().path);
    runners.push(r3);
    const slow = r3.run({ code: "import time\ntime.sleep(30)", inputs: [""], outputs: ["1"], fnName: null, timeoutSecs: 40 });
    await Bun.sleep(500);
    r3.close();
    expect((await slow).result).toEqual([-1]);
    const again = await r3.run({ code: "print(1)", inputs: [""], outputs: ["1"], fnName: null, timeoutSecs: 5 });
    expect(again.result).toEqual([true]);
  }, 30_000);

  test("no python3 on PATH: a clear error, not a verdict", async () => {
    const none = new CodeRunner({}, "/nonexistent-dir");
    runners.push(none);
    await expect(none.run({ code: "print(1)", inputs: [""], outputs: ["1"], fnName: null, timeoutSecs: 1 })).rejects.toBeInstanceOf(PythonMissingError);
    await expect(none.check()).rejects.toThrow(/needs python3 on PATH/);
  });

  test("concurrency is bounded; queued runs are visible", async () => {
    const r2 = new CodeRunner({ maxConcurrent: 2 }, readEnv().path);
    runners.push(r2);
    const runs = Array.from({ length: 5 }, () => r2.run({ code: "import time\ntime.sleep(0.5)\nprint(1)", inputs: [""], outputs: ["1"], fnName: null, timeoutSecs: 5 }));
    await Bun.sleep(150); // let the first two start (python3 is already resolved for this PATH)
    const s = r2.stats();
    expect(s.running).toBeLessThanOrEqual(2);
    expect(s.running + s.queued + s.completed).toBe(5);
    expect((await Promise.all(runs)).every((x) => x.result[0] === true)).toBe(true);
    expect(r2.stats()).toEqual({ running: 0, queued: 0, completed: 5 });
  }, 30_000);
});
