/**
 * CodeRunner (D27): runs model-written Python against tests in a sandboxed host `python3` child —
 * a fresh temp dir per run (deleted after), a scrubbed environment (no keys, tokens, proxies or
 * NEMO_GYM_*), address-space / CPU / file-size limits, no network and a private PID namespace where
 * unprivileged namespaces work, the whole process tree killed at the global budget, and at most
 * `maxConcurrent` runs at once (the rest queue, observable through `stats()`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import DRIVER from "./driver.py" with { type: "text" };
import { pythonHost, type PythonHost } from "./python.ts";

/** One program and its tests (LiveCodeBench `input_output` shape). */
export interface CodeJob {
  code: string;
  inputs: string[];
  outputs: string[];
  /** Call-based tests when set, stdio otherwise. */
  fnName: string | null;
  /** Per-test limit in whole seconds (the reference runner's alarm). */
  timeoutSecs: number;
}

/** What a run produced: LiveCodeBench's per-test results and metadata. */
export interface CodeRunResult {
  /** Per test: true pass, false/-2 wrong, -3 time limit, -4 error; `-1` for all when the run died. */
  result: (number | boolean)[];
  metadata: Record<string, unknown> | null;
  /** The global budget `(t+1)·n+5` s ran out and the run was killed. */
  killed: boolean;
  elapsedMs: number;
}

/** Limits of every run. */
export interface RunnerLimits {
  maxConcurrent: number;
  /** RLIMIT_AS; upstream's guard is 4 GiB. */
  memoryBytes: number;
  /** RLIMIT_FSIZE: the largest file a program may write. */
  fileBytes: number;
  /** Cap on the driver's answer (the program's own output is captured inside, not here). */
  answerBytes: number;
}

const DEFAULTS: RunnerLimits = { maxConcurrent: 8, memoryBytes: 4 * 1024 ** 3, fileBytes: 64 * 1024 ** 2, answerBytes: 8 * 1024 ** 2 };
const SAFE_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Runs programs with bounded concurrency; `host()` resolves python3 once. */
export class CodeRunner {
  readonly limits: RunnerLimits;
  private running = 0;
  private completed = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly host: () => Promise<PythonHost>;

  constructor(limits: Partial<RunnerLimits> = {}, pathEnv?: string) {
    this.limits = { ...DEFAULTS, ...limits };
    this.host = () => pythonHost(pathEnv);
  }

  /** Resolve python3 and the isolation mode now (server start), so a missing python3 is said at once. */
  async check(): Promise<PythonHost> {
    return await this.host();
  }

  /** Runs in flight, runs waiting for a slot, runs finished. */
  stats(): { running: number; queued: number; completed: number } {
    return { running: this.running, queued: this.waiting.length, completed: this.completed };
  }

  /** Run one program against its tests. Rejects with PythonMissingError when there is no python3. */
  async run(job: CodeJob): Promise<CodeRunResult> {
    const host = await this.host();
    if (this.running >= this.limits.maxConcurrent) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
    try {
      return await this.spawnOnce(host, job);
    } finally {
      this.running--;
      this.completed++;
      this.waiting.shift()?.();
    }
  }

  private async spawnOnce(host: PythonHost, job: CodeJob): Promise<CodeRunResult> {
    const n = job.inputs.length;
    const budgetSecs = (job.timeoutSecs + 1) * n + 5;
    const dir = mkdtempSync(join(tmpdir(), "gym-code-"));
    const nonce = `@@gym-${crypto.randomUUID()}@@`;
    const payload = JSON.stringify({
      code: job.code,
      inputs: job.inputs,
      outputs: job.outputs,
      fn_name: job.fnName,
      timeout: job.timeoutSecs,
      nonce,
      workdir: dir,
      memory_bytes: this.limits.memoryBytes,
      file_bytes: this.limits.fileBytes,
      cpu_seconds: Math.ceil(budgetSecs) + 1,
    });
    const t0 = performance.now();
    let killed = false;
    const proc = Bun.spawn([...host.wrapper, host.python, "-I", "-c", DRIVER], {
      cwd: dir,
      // Built from nothing: the program must never see the server's keys, tokens, proxies or NEMO_GYM_*.
      env: { PATH: SAFE_PATH, HOME: dir, TMPDIR: dir, LANG: "C.UTF-8", PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    const killTree = () => {
      killed = true;
      try {
        // unshare --kill-child takes the PID namespace down with it; under setsid the group is ours to kill.
        if (!host.isolated && host.wrapper.length) process.kill(-proc.pid, "SIGKILL");
      } catch {
        /* already gone */
      }
      proc.kill("SIGKILL");
    };
    const timer = setTimeout(killTree, budgetSecs * 1000);
    try {
      proc.stdin.write(payload);
      await proc.stdin.end();
    } catch {
      /* the child died before reading its job: reported below as a dead run */
    }
    let answer = "";
    try {
      const reader = proc.stdout.getReader();
      const dec = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        answer += dec.decode(value, { stream: true });
        if (answer.length > this.limits.answerBytes) {
          killTree();
          break;
        }
      }
    } finally {
      await proc.exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    }
    const elapsedMs = performance.now() - t0;
    const line = answer.split("\n").findLast((l) => l.startsWith(nonce));
    if (killed || line === undefined) return { result: new Array<number>(n).fill(-1), metadata: null, killed, elapsedMs };
    try {
      const parsed = JSON.parse(line.slice(nonce.length)) as { result: (number | boolean)[]; metadata: Record<string, unknown> | null };
      return { result: parsed.result, metadata: parsed.metadata, killed: false, elapsedMs };
    } catch {
      return { result: new Array<number>(n).fill(-1), metadata: null, killed: false, elapsedMs };
    }
  }
}
